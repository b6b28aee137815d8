"""A process of a dealing (``--jobs N``, connections dealt) leaves out the other processes'
lines at C speed (``_deal._Share.lines``: a line that begins as the writer begins a line of
another process's connection, and names no other after), and trusts its own lines without
reading their ``conn`` again where the whole batch is as the writer writes it; every other line
is left to ``_Share.mine`` (``_formats.framelog_conn``). The lines left out must be exactly lines
``mine`` refuses, and the report the one process's."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow, Entry, Totals, _deal, _files, _run, audit, plan
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_jobs import conversation, request


def rec(conn: str, tail: bytes = b"") -> bytes:
    """A writer's line of ``conn`` (an open record), with ``tail`` members before its end."""
    return b'{"v":1,"conn":"%s","seq":0,"t":1.5,"dir":"c2s","kind":"open"%s}\n' % (conn.encode(), tail)


A, B = rec("a"), rec("b")
# (name, owners, this process, the batch, the lines left in (by index), whether all are this process's)
BATCHES: list[tuple[str, dict[bytes, int], int, list[bytes], list[int], bool]] = [
    ("the writer's lines", {b"a": 0, b"b": 1}, 0, [A, B, A, B, B], [0, 2], True),
    ("the other process's view", {b"a": 0, b"b": 1}, 1, [A, B, A, B, B], [1, 3, 4], True),
    ("none of this process's", {b"a": 0, b"b": 1}, 0, [B, B, B], [], True),
    ("the last line without its end", {b"a": 0, b"b": 1}, 0, [A, B, A, B[:-1]], [0, 2], True),
    ("a line of the other's names a conn again", {b"a": 0, b"b": 1}, 0,
     [A, rec("b", b',"conn":"a"'), A, B], [0, 1, 2, 3], False),
    ("a line of the other's names one escaped (con\\u006e)", {b"a": 0, b"b": 1}, 0,
     [A, B, rec("b", b',"con\\u006e":"a"'), A], [0, 1, 2, 3], False),
    ("a \\u006 escape in a line of the other's", {b"a": 0, b"b": 1}, 0,
     [A, B, rec("b", b',"note":"\\u006e"'), A], [0, 1, 2, 3], False),
    ("a \\u006 escape in a line of this process's", {b"a": 0, b"b": 1}, 0,
     [A, B, rec("a", b',"note":"\\u006e"'), B], [0, 2], False),
    ("\\u escapes of other letters", {b"a": 0, b"b": 1}, 0,
     [A, rec("b", b',"note":"\\u00e9\\u4e2d"'), A], [0, 2], True),
    ('"conn" in the data (escaped quotes)', {b"a": 0, b"b": 1}, 0,
     [A, rec("b", b',"note":"{\\"conn\\":\\"a\\"}"'), A], [0, 2], True),
    ("a blank line", {b"a": 0, b"b": 1}, 0, [A, B, b"\n", B, A], [0, 2, 4], False),
    ("a line that is no JSON", {b"a": 0, b"b": 1}, 1, [A, b"not json\n", B], [1, 2], False),
    ("a line of a connection in no dealing", {b"a": 0, b"b": 1}, 0, [A, rec("c"), B], [0, 1], False),
    ("another key order", {b"a": 0, b"b": 1}, 0,
     [A, b'{"conn":"b","v":1,"seq":0,"t":1.5,"dir":"c2s","kind":"open"}\n', B], [0, 1], False),
    ("a line of the other's cut off in its conn", {b"a": 0, b"b": 1}, 0, [A, b'{"v":1,"conn":"b\n', B], [0, 1], False),
    ("two records on one line", {b"a": 0, b"b": 1}, 0, [A, B[:-1] + A, B], [0, 1, 2], False),
    ("one conn begins another", {b"s": 1, b"s1": 0}, 0, [rec("s"), rec("s1"), rec("s")], [1], True),
    ("a conn written as no writer writes it", {'sé'.encode(): 1, b'q"d': 1, b"a": 0, b"b": 1}, 0,
     [A, rec("sé"), B, rec('q\\"d')], [0, 1, 3], False),
    ("no connection of this process's", {b"b": 1}, 0, [A, B, A], [0, 2], False),
    ("no connection of another process's", {b"a": 0}, 0, [A, B, A], [0, 1, 2], False),
    ("one line", {b"a": 0, b"b": 1}, 0, [B], [0], False),
]


@pytest.mark.parametrize(("name", "owners", "index", "batch", "left", "sure"), BATCHES, ids=[b[0] for b in BATCHES])
def test_a_process_leaves_out_only_lines_of_other_processes(name: str, owners: dict[bytes, int], index: int,
                                                            batch: list[bytes], left: list[int], sure: bool) -> None:
    share = _deal._Share(index, 2, owners)
    kept, all_mine = share.lines(list(batch))
    assert [k for k, line in enumerate(kept) if line is not None] == left
    assert all_mine == sure
    assert all(line is batch[k] for k, line in enumerate(kept) if line is not None)
    assert not any(share.mine(line) for k, line in enumerate(batch) if k not in left)
    if sure:
        assert all(share.mine(batch[k]) for k in left)


def busy_log(path: Path, seed: int) -> None:
    """Six connections open throughout, interleaved at random, and lines of every kind the quick
    skip must leave to ``mine``: a record that names its connection twice (the last, another
    connection's, is read), one that names it again escaped, frames with ``\\u006e`` escapes, a
    connection written with an escape, a non-ASCII one (a short one, at the start), blank and
    unreadable lines."""
    rng = random.Random(seed)
    conns = [f"srv-{n}" for n in range(5)] + ["sérv"]
    streams = {conn: conversation(rng, 2 if conn == "sérv" else rng.randint(30, 60))[0] for conn in conns}
    lines = [encode(FrameRecord(conn, 0, 1.0, "c2s", "open", transport="stdio")) for conn in conns]
    seqs = dict.fromkeys(conns, 1)
    odd = [b"\n", b"not json\n", b'{"v":1,"conn":"srv-1","dir":\n']
    while streams:
        conn = rng.choice(sorted(streams))
        direction, frame = streams[conn].pop(0)
        if rng.random() < 0.02:  # (an escaped letter in the frame: \u006e is n)
            frame = frame.replace(b'"name":"', b'"name":"\\u006e', 1)
        line = encode(FrameRecord(conn, seqs[conn], 1.0, direction, "message", frame,  # type: ignore[arg-type]
                                  transport="stdio"))
        if conn == "srv-2" and seqs[conn] == 9:
            line = line.replace(b'"conn":"srv-2"', b'"conn":"srv\\u002d2"', 1)
        lines.append(line)
        seqs[conn] += 1
        if not streams[conn]:
            del streams[conn]
        if odd and rng.random() < 0.02:
            lines.append(odd.pop())
    lines.extend(odd)
    # calls of srv-3 answered by records of srv-4 (halfway) and srv-0 (at the end) that name srv-3
    # last, plainly and escaped: they are srv-3's
    for rid, other, key, at in ((700, "srv-4", b'"conn"', len(lines) // 2),
                                (701, "srv-0", b'"con\\u006e"', len(lines))):
        answer = b'{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","content":[]}}' % rid
        lines[at:at] = [encode(FrameRecord("srv-3", 9_000 + rid, 1.0, "c2s", "message",
                                           request(rid, "tools/call", b'"name":"search"'), transport="stdio")),
                        encode(FrameRecord(other, 9_000 + rid, 1.0, "s2c", "message", answer, transport="stdio"))
                        .replace(b',"seq"', b',' + key + b':"srv-3","seq"', 1)]
    path.write_bytes(b"".join(lines))


def run(paths: list[str], jobs: int) -> tuple[list[Entry], Totals]:
    totals = Totals()
    return list(audit(plan(paths), totals, jobs=jobs)), totals


DEALINGS: dict[str, dict[bytes, int]] = {
    "by the last letter": {b"srv-0": 0, b"srv-1": 1, b"srv-2": 0, b"srv-3": 1, b"srv-4": 0},
    "one to a process": {b"srv-3": 1},
    "srv-4 in no dealing": {b"srv-0": 0, b"srv-1": 1, b"srv-2": 1, b"srv-3": 0},
}


@pytest.mark.parametrize("dealing", list(DEALINGS))
@pytest.mark.parametrize("batch", [64 * 1024, 2048])
def test_a_busy_log_dealt_gives_the_one_process_report(tmp_path: Path, dealing: str, batch: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "busy.jsonl"
    busy_log(path, 11)
    one, one_totals = run([str(path)], 1)
    assert [(e.conn, e.end) for e in one if isinstance(e, CallRow) and e.request_id in ("700", "701")] == [
        ("srv-3", "answered"), ("srv-3", "answered")]
    monkeypatch.setattr(_files, "_BATCH", batch)
    inputs = plan([str(path)])
    sure = 0
    lines = _deal._Share.lines

    def counted(share: _deal._Share, batch: list[bytes | str]) -> tuple[list[bytes | str | None], bool]:
        nonlocal sure
        kept, all_mine = lines(share, batch)
        sure += all_mine
        return kept, all_mine

    for jobs in (2, 3):  # each process's entries, with the quick skip and without
        for index in range(jobs):
            share = _deal._Share(index, jobs, DEALINGS[dealing])
            monkeypatch.setattr(_deal._Share, "lines", counted)
            quick = list(_run._audit(inputs, Totals(), share=share))
            monkeypatch.setattr(_deal._Share, "lines", lambda share, batch: (batch, False))
            assert quick == list(_run._audit(inputs, Totals(), share=share)), (jobs, index)
    if dealing == "by the last letter" and batch < 4096:  # (every conn dealt; small batches with no odd line)
        assert sure > 0
    monkeypatch.setattr(_deal._Share, "lines", lines)
    monkeypatch.setattr(_run, "_start_method", lambda: "fork")
    monkeypatch.setattr(_run, "_dealing", lambda items, jobs: DEALINGS[dealing])
    for jobs in (2, 3):
        many, many_totals = run([str(path)], jobs)
        assert many == one, jobs
        assert many_totals.tally == one_totals.tally and many_totals.bytes_read == one_totals.bytes_read


def test_the_dealt_skip_reads_what_a_spawned_process_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A share is sent to a spawned process (pickled): its quick skip with it."""
    import pickle

    share = _deal._Share(1, 2, {b"a": 0, b"b": 1})
    again: Any = pickle.loads(pickle.dumps(share))
    assert again.lines([A, B, A, B]) == share.lines([A, B, A, B]) == ([None, B, None, B], True)

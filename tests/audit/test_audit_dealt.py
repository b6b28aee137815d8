"""``--jobs N`` on a log of few connections open throughout (a host with its servers, the usual
MCP recording): the connections are dealt to the processes, each reading every line and
auditing its own connections' lines with their whole state, and the parent merges the entries
by line (issue #14: cut by bytes, the parent audited those connections again, nearly the whole
log). The report must be the one process's: the same entries in the same order, the same line
counts and bytes read. The cases of ``test_audit_parts`` (written by hand, with their expected
calls) are audited dealt in every way; generated host logs (2 to 5 connections open throughout,
calls, input rounds, tasks, a connection closed and opened again, unreadable lines between,
calls the log ends before answering) on 1, 2 and 3 processes."""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import CallRow, Entry, Input, Totals, _deal, _files, _run, audit, plan
from mcp_verdict.frames import FrameRecord, encode

from .test_audit_jobs import conversation, request
from .test_audit_parts import CASES, write


def run(paths: list[str], jobs: int) -> tuple[list[Entry], Totals]:
    totals = Totals()
    return list(audit(plan(paths), totals, jobs=jobs)), totals


def dealt_as(rule: Callable[[bytes], int]) -> Callable[[list[Input], int], dict[bytes, int] | None]:
    """A dealing of every frame log, each connection (the first pass's) to ``rule``'s process."""
    def dealing(inputs: list[Input], jobs: int) -> dict[bytes, int] | None:
        if any(item.format != "framelog" for item in inputs):
            return None
        owners = {}
        for item in inputs:
            with _files._open(item.path) as handle:
                for match in _deal._FIRST_PASS.finditer(b"\n" + handle.read()):
                    owners[match[1]] = rule(match[1]) % jobs
        return owners
    return dealing


RULES: dict[str, Callable[[bytes], int]] = {
    "all to the first": lambda conn: 0,
    "all to the last": lambda conn: -1,
    "by the last letter": lambda conn: conn[-1],
    "none known (crc32)": lambda conn: 1 << 30,  # (the process of a connection not in the dealing: its crc32)
}


def rotated_frame_logs() -> dict[str, bytes]:
    """``test_audit_parts``' rotated case less its JSON-RPC file (which is never dealt): a
    connection whose request is in the rotated gzip file and its answer in the current one, and
    another recording with a connection of the same id."""
    files = dict(next(c[1] for c in CASES if c[0] == "rotated_gzip_and_jsonrpc")())
    del files["rpc.jsonl"]
    return files


DEALT = [*((c[0], c[1]) for c in CASES), ("rotated_frame_logs", rotated_frame_logs)]


@pytest.mark.parametrize(("name", "files"), DEALT, ids=[c[0] for c in DEALT])
@pytest.mark.parametrize("rule", list(RULES))
def test_dealt_connections_give_the_one_process_report(tmp_path: Path, name: str,
                                                       files: Callable[[], dict[str, bytes]], rule: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    paths = write(tmp_path, files())
    one, one_totals = run(paths, 1)
    dealing = dealt_as(RULES[rule])

    def unknown(inputs: list[Input], jobs: int) -> dict[bytes, int] | None:
        return None if dealing(inputs, jobs) is None else {}

    monkeypatch.setattr(_run, "_dealing", unknown if rule == "none known (crc32)" else dealing)
    for jobs in (2, 3):
        many, many_totals = run(paths, jobs)
        assert many == one, (jobs, rule)
        assert many_totals.tally == one_totals.tally
        assert many_totals.bytes_read == one_totals.bytes_read


DEEP = b'{"v":1,"conn":"srv-1","x":' + b"[" * 3_000 + b"]" * 3_000 + b"}\n"
"""A line of srv-1 nested past any parser's depth: unreadable, its conn read in place only."""


def host_log(path: Path, servers: int, seed: int, *, gzipped: bool = False) -> None:
    """A host's log: ``servers`` connections opened at the start and open to the end, their
    frames interleaved at random; the first closed halfway and opened again (its ids and call
    numbers from 1 again); unreadable lines between (not JSON, a record cut off, one nested too
    deep, one whose connection is written with an escape, one in another key order); the last
    two connections' last calls never answered (the log ends)."""
    rng = random.Random(seed)
    t = 1_790_000_000.0
    streams: dict[str, list[tuple[str, bytes]]] = {}
    for n in range(servers):
        frames, _ = conversation(rng, rng.randint(20, 40))
        if n == 0:  # closed halfway (the calls waiting end there) and opened again
            again, _ = conversation(rng, 10)
            frames = [*frames[:len(frames) // 2 + 1], ("close", b""), ("open", b""), *again]
        if n >= servers - 2:
            frames.append(("c2s", request(900 + n, "tools/call", b'"name":"search","arguments":{}')))
        streams[f"srv-{n}"] = frames
    lines: list[bytes] = [encode(FrameRecord(conn, 0, t, "c2s", "open", transport="stdio")) for conn in streams]
    seqs = dict.fromkeys(streams, 1)
    odd = [b"not json at all\n", b'{"v":1,"conn":"srv-1","dir":\n', DEEP, b"\n"]
    while streams:
        conn = rng.choice(sorted(streams))
        direction, frame = streams[conn].pop(0)
        t += 0.001
        if direction in ("close", "open"):
            lines.append(encode(FrameRecord(conn, seqs[conn], t, "s2c" if direction == "close" else "c2s",
                                            direction, transport="stdio")))  # type: ignore[arg-type]
        else:
            line = encode(FrameRecord(conn, seqs[conn], t, direction, "message", frame,  # type: ignore[arg-type]
                                      transport="stdio"))
            if conn == "srv-1" and seqs[conn] == 7:  # its connection written with an escape (srv\u002d1)
                line = line.replace(b'"conn":"srv-1"', b'"conn":"srv\\u002d1"', 1)
            lines.append(line)
        seqs[conn] += 1
        if not streams[conn]:
            del streams[conn]
        if odd and rng.random() < 0.05:
            lines.append(odd.pop())
    lines.extend(odd)
    # a call of srv-1 answered by a record that names srv-0, then srv-1 again with an escape (the last is read)
    lines.append(encode(FrameRecord("srv-1", 9_000, t, "c2s", "message", request(777, "tools/call", b'"name":"search"'),
                                    transport="stdio")))
    lines.append(encode(FrameRecord("srv-0", 9_001, t, "s2c", "message", b'{"jsonrpc":"2.0","id":777,"result":'
                                    b'{"resultType":"complete","content":[]}}', transport="stdio"))
                 .replace(b',"seq"', b',"con\\u006e":"srv-1","seq"', 1))
    data = b"".join(lines)
    path.write_bytes(gzip.compress(data) if gzipped else data)


HOSTS = [("two servers", 2, 1, False), ("three servers", 3, 2, False), ("four servers", 4, 3, False),
         ("five servers", 5, 4, False), ("three servers, gzip", 3, 5, True)]


@pytest.mark.parametrize(("name", "servers", "seed", "gzipped"), HOSTS, ids=[h[0] for h in HOSTS])
def test_a_host_log_gives_the_one_process_report(tmp_path: Path, name: str, servers: int, seed: int, gzipped: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "host.jsonl"
    host_log(path, servers, seed, gzipped=gzipped)
    one, one_totals = run([str(path)], 1)
    assert one_totals.tally["unreadable"] == 3 and one_totals.tally["blank"] == 1
    assert sum(1 for e in one if isinstance(e, CallRow) and e.end == "log_ended") == 2
    assert [(e.conn, e.end) for e in one if isinstance(e, CallRow) and e.request_id == "777"] == [("srv-1", "answered")]
    assert sum(1 for e in one if isinstance(e, CallRow) and e.end == "closed") <= 1
    monkeypatch.setattr(_run, "_start_method", lambda: "fork")
    for jobs in (2, 3):
        assert _deal._dealing(plan([str(path)]), jobs) is not None, jobs  # (the byte cuts would audit again)
        many, many_totals = run([str(path)], jobs)
        assert many == one, jobs
        assert many_totals.tally == one_totals.tally
        assert many_totals.bytes_read == one_totals.bytes_read


def test_a_host_log_dealt_to_spawned_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "host.jsonl"
    host_log(path, 3, 7)
    one, one_totals = run([str(path)], 1)
    monkeypatch.setattr(_run, "_start_method", lambda: "spawn")
    many, many_totals = run([str(path)], 2)
    assert many == one and many_totals.tally == one_totals.tally


def test_the_parent_audits_no_line_of_a_dealt_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut by bytes, the parent decoded again every line of the connections open at the cut (here
    all of them, up to their close at the log's end); dealt, it decodes none."""
    path = tmp_path / "host.jsonl"
    host_log(path, 3, 8)
    one, _ = run([str(path)], 1)
    monkeypatch.setattr(_run, "_start_method", lambda: "fork")
    decoded: list[int] = []
    decode_line = _run.decode_line  # type: ignore[attr-defined]

    def counted(line: bytes | str, number: int = 0) -> Any:
        decoded.append(number)  # (in this process only: the forked processes count their own)
        return decode_line(line, number)

    monkeypatch.setattr(_run, "decode_line", counted)
    many, _ = run([str(path)], 2)
    assert many == one
    assert decoded == []


def test_processes_wait_for_the_parent_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each line a batch, and a process may read no byte past what the parent has put out: the
    processes take turns with the parent (none waits for ever) and the report is the same."""
    path = tmp_path / "host.jsonl"
    host_log(path, 4, 9)
    one, one_totals = run([str(path)], 1)
    monkeypatch.setattr(_run, "_start_method", lambda: "fork")
    monkeypatch.setattr(_files, "_BATCH", 2)  # (each line a batch)
    monkeypatch.setattr(_run, "_WINDOW", 1)
    many, many_totals = run([str(path)], 3)
    assert many == one and many_totals.tally == one_totals.tally


def sequential(path: Path) -> None:
    """Short connections one after another, each closed before the next opens (nothing open at a cut)."""
    rng = random.Random(3)
    lines = []
    for n in range(40):
        conn = f"c-{n}"
        lines.append(encode(FrameRecord(conn, 0, 1.0, "c2s", "open", transport="stdio")))
        for seq, (direction, frame) in enumerate(conversation(rng, 3)[0], 1):
            lines.append(encode(FrameRecord(conn, seq, 1.0, direction, "message", frame,  # type: ignore[arg-type]
                                            transport="stdio")))
        lines.append(encode(FrameRecord(conn, 99, 1.0, "s2c", "close", transport="stdio")))
    path.write_bytes(b"".join(lines))


def one_big(path: Path) -> None:
    """Three connections open throughout, one of them with nine tenths of the bytes."""
    rng = random.Random(4)
    lines = []
    for conn, calls in (("big", 90), ("s1", 5), ("s2", 5)):
        for seq, (direction, frame) in enumerate(conversation(rng, calls)[0]):
            lines.append((seq / (calls * 2 + 2), encode(FrameRecord(conn, seq, 1.0, direction, "message", frame,  # type: ignore[arg-type]
                                                                     transport="stdio"))))
    path.write_bytes(b"".join(line for _, line in sorted(lines)))


# (the log, processes, dealt) by the rule of _deal._dealing: the busiest process's bytes (plus
# 20% of those it skips) against half (a third) of the bytes plus 0.7 of the bytes audited again
CHOICES = [("connections one after another", sequential, 2, False),
           ("one connection with most bytes", one_big, 2, False),
           ("three servers, two processes", lambda p: host_log(p, 3, 2), 2, True),
           ("JSON-RPC lines", lambda p: p.write_bytes(b"".join(request(n, "tools/call", b'"name":"t"') + b"\n"
                                                              for n in range(50))), 2, False)]


@pytest.mark.parametrize(("name", "make", "jobs", "dealt"), CHOICES, ids=[c[0] for c in CHOICES])
def test_the_dealing_is_chosen_where_it_spares_work(tmp_path: Path, name: str, make: Callable[[Path], None],
                                                    jobs: int, dealt: bool) -> None:
    path = tmp_path / "log.jsonl"
    make(path)
    assert (_deal._dealing(plan([str(path)]), jobs) is not None) == dealt
    one, one_totals = run([str(path)], 1)
    many, many_totals = run([str(path)], jobs)
    assert many == one and many_totals.tally == one_totals.tally


@pytest.mark.parametrize("window", [2048])
@pytest.mark.parametrize(("name", "make", "jobs", "dealt"), CHOICES, ids=[c[0] for c in CHOICES])
def test_the_dealing_is_chosen_alike_from_samples(tmp_path: Path, name: str, make: Callable[[Path], None],
                                                  jobs: int, dealt: bool, window: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pass reads a log over 2 MiB in 32 windows spread over it (a quarter of the log,
    in windows of 64 KiB up to 256 KiB, ~115 lines or more each); here windows of 2 KiB (a few
    lines each) on these small logs: the same choice as reading them whole."""
    path = tmp_path / "log.jsonl"
    make(path)
    monkeypatch.setattr(_deal, "_SMALL_SAMPLE", window)
    monkeypatch.setattr(_deal, "_SAMPLE", window)
    assert path.stat().st_size > 32 * window or name == "JSON-RPC lines"  # (sampled; JSON-RPC is never dealt)
    assert (_deal._dealing(plan([str(path)]), jobs) is not None) == dealt


@pytest.mark.parametrize(("megabytes", "window"), [(1.5, None), (3, 64 * 1024), (12, 1 / 128)],
                         ids=["1.5 MiB: whole", "3 MiB: 32 windows of 64 KiB", "~12 MiB: 32 windows of 1/128"])
def test_the_first_pass_reads_a_quarter_of_a_log_over_2_mib(tmp_path: Path, megabytes: float, window: float | None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.jsonl"
    line = encode(FrameRecord("a", 1, 1.0, "c2s", "message", b'{"jsonrpc":"2.0","method":"ping","params":{"p":"'
                              + b"x" * 900 + b'"}}', transport="stdio"))
    lines = int(megabytes * 1024 * 1024) // len(line)
    path.write_bytes(b"".join(line.replace(b'"conn":"a"', b'"conn":"%d"' % (n % 3), 1) for n in range(lines)))
    scanned: list[int] = []
    scan = _deal._scan_conns

    def counted(*args: Any, **kwargs: Any) -> int:
        scanned.append(scan(*args, **kwargs))
        return scanned[-1]

    monkeypatch.setattr(_deal, "_scan_conns", counted)
    assert _deal._dealing(plan([str(path)]), 2) is not None
    size = path.stat().st_size
    assert sum(scanned) == (size if window is None else 32 * (int(window) if window > 1 else size // 128))

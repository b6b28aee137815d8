"""What the audit keeps of a connection's ``tools/list`` answers follows the rule the tap keeps
(``frames._tools``): a whole listing — its first page asked with no ``cursor``, through the page
with no ``nextCursor`` (basic/utilities/pagination: the cursor is opaque, the last page has
none) — replaces the tools kept, so a tool it no longer lists is judged as a tool whose listing
is not in the recording (no outputSchema: ``content_checked`` False); a listing read in part, a
page whose listing was not followed from its start, drop nothing; and a connection keeps at most
10,000 tools and 64 MiB of them. The old audit kept every tool of every listing of a connection:
a dropped tool's outputSchema judged its later calls, and a recording listing new names again
and again grew its memory without bound (issue #14: memory bounded whatever the file size).
Frames written by hand, fed to an :class:`Auditor` and audited as a frame log in parts
(``--jobs``: the state crosses processes)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.audit import Auditor, CallRow, Totals, _parts, audit, plan
from mcp_verdict.frames import FrameRecord, encode

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def tool(name: str, description: str = "") -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "required": ["n"]}}


def listing(rid: int, cursor: str | None, names: list[str], next_cursor: str | None) -> list[tuple[str, bytes]]:
    """A tools/list request (with ``cursor`` when given) and its answer: the tools ``names``."""
    params: dict[str, Any] = {"_meta": META}
    if cursor is not None:
        params["cursor"] = cursor
    result: dict[str, Any] = {"resultType": "complete", "tools": [tool(n) for n in names]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return [("c2s", json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params}).encode()),
            ("s2c", json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())]


def failed(rid: int, cursor: str | None) -> list[tuple[str, bytes]]:
    """A tools/list request answered with an error."""
    params: dict[str, Any] = {"_meta": META} if cursor is None else {"_meta": META, "cursor": cursor}
    return [("c2s", json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params}).encode()),
            ("s2c", json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "x"}}).encode())]


def calls(first: int, names: list[str]) -> list[tuple[str, bytes]]:
    """A call of each tool, answered with a result its outputSchema accepts."""
    frames = []
    for rid, name in enumerate(names, first):
        frames += [("c2s", json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                       "params": {"name": name, "arguments": {}, "_meta": META}}).encode()),
                   ("s2c", json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
                       "resultType": "complete", "content": [{"type": "text", "text": "ok"}],
                       "structuredContent": {"n": 1}}}).encode())]
    return frames


Step = tuple[str | None, list[str], str | None] | str | None
"""A page read: (the cursor it was asked with, its tools, its nextCursor); or a cursor (or None)
alone: a page asked with it and answered with an error."""


def conversation(steps: list[Step], names: list[str]) -> list[tuple[str, bytes]]:
    frames: list[tuple[str, bytes]] = []
    for rid, step in enumerate(steps, 1):
        frames += listing(rid, *step) if isinstance(step, tuple) else failed(rid, step)
    return frames + calls(100, names)


# (the pages read, in order; per tool called after them, whether its outputSchema was known) — by hand
CASES: list[tuple[str, list[Step], dict[str, bool]]] = [
    ("one listing", [(None, ["a", "b"], None)], {"a": True, "b": True}),
    ("b dropped by a later listing", [(None, ["a", "b"], None), (None, ["a"], None)], {"a": True, "b": False}),
    ("b on the later listing's second page: kept", [(None, ["a", "b"], None), (None, ["a"], "2"), ("2", ["b"], None)],
     {"a": True, "b": True}),
    ("the later listing read in part (its first page): nothing dropped", [(None, ["a", "b"], None), (None, ["a"], "2")],
     {"a": True, "b": True}),
    ("b dropped, c listed by the later listing's pages", [(None, ["a", "b"], None), (None, ["a"], "2"),
                                                           ("2", ["c"], None)], {"a": True, "b": False, "c": True}),
    ("an empty listing drops every tool", [(None, ["a", "b"], None), (None, [], None)], {"a": False, "b": False}),
    ("a page of a listing whose start is not in the log adds", [(None, ["a", "b"], None), ("9", ["c"], None)],
     {"a": True, "b": True, "c": True}),
    ("a page asked with another cursor than the last nextCursor adds",
     [(None, ["a", "b"], None), (None, ["a"], "2"), ("x", ["c"], None)], {"a": True, "b": True, "c": True}),
    ("a failed page ends the listing: its page asked again adds", [(None, ["a", "b"], None), (None, ["a"], "2"), "2",
                                                                   ("2", ["c"], None)],
     {"a": True, "b": True, "c": True}),
    ("a whole listing after a failed one replaces", [(None, ["a", "b"], None), None, (None, ["b"], None)],
     {"a": False, "b": True}),
    ("a tool listed again keeps its last definition", [(None, ["a"], "2"), ("2", ["a"], None)], {"a": True}),
]


def checked(rows: list[Any]) -> dict[str | None, bool]:
    return {r.tool: r.content_checked for r in rows if isinstance(r, CallRow)}


@pytest.mark.parametrize(("steps", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_whole_listing_replaces_the_tools_the_audit_keeps(steps: list[Step], expected: dict[str, bool]) -> None:
    auditor = Auditor()
    rows = []
    for line, (direction, data) in enumerate(conversation(steps, list(expected)), 1):
        rows += auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    rows += auditor.end()
    assert checked(rows) == expected
    assert all(r.kind == "normal_complete" for r in rows if isinstance(r, CallRow))


@pytest.mark.parametrize(("steps", "expected"), [c[1:] for c in CASES if len(c[1]) > 1],
                         ids=[c[0] for c in CASES if len(c[1]) > 1])
def test_the_listing_followed_crosses_the_parts_of_jobs(tmp_path: Path, steps: list[Step], expected: dict[str, bool],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame log cut to a line per part: each page, each call in its own part (the tools kept
    and the listing under way handed from process to process)."""
    path = tmp_path / "frames.jsonl"
    frames = conversation(steps, list(expected))
    path.write_bytes(b"".join(encode(FrameRecord("c", seq, 1_790_000_000.0 + seq, direction, "message", data,  # type: ignore[arg-type]
                                                 transport="stdio"))
                              for seq, (direction, data) in enumerate(frames, 1)))
    monkeypatch.setattr(_parts, "_STRIPE", 1)
    for jobs in (1, 2):
        assert checked(list(audit(plan([str(path)]), Totals(), jobs=jobs))) == expected, jobs


# (the params of a tools/list asked after a whole listing of a and b, as written; per tool called
# after its answer, which lists a alone with no nextCursor, whether its outputSchema was known) —
# by hand (frames._tools): a request no strict parser reads (a member name given twice, one maybe
# spelled with \\u escapes) may have asked another page than the one the audit reads (a server
# keeping the first name): it drops nothing. Before, "cursor" read last (null) took the page for a
# whole listing, and b was dropped.
TWICE: list[tuple[str, str, dict[str, bool]]] = [
    ("strict", '{"_meta":@}', {"a": True, "b": False}),
    ("cursor-twice", '{"cursor":"1","cursor":null,"_meta":@}', {"a": True, "b": True}),
    ("cursor-twice-escaped", '{"cursor":"1","\\u0063ursor":null,"_meta":@}', {"a": True, "b": True}),
]


@pytest.mark.parametrize(("params", "expected"), [c[1:] for c in TWICE], ids=[c[0] for c in TWICE])
def test_a_listing_request_read_two_ways_drops_no_tool_the_audit_keeps(params: str, expected: dict[str, bool]) -> None:
    page = {"resultType": "complete", "tools": [tool("a")]}
    frames = [*listing(1, None, ["a", "b"], None),
              ("c2s", f'{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{params}}}'.replace(
                  "@", json.dumps(META)).encode()),
              ("s2c", json.dumps({"jsonrpc": "2.0", "id": 2, "result": page}).encode()),
              *calls(100, list(expected))]
    auditor = Auditor()
    rows = []
    for line, (direction, data) in enumerate(frames, 1):
        rows += auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    rows += auditor.end()
    assert checked(rows) == expected


# (the pages read: per page its cursor, how many new names, whether it has a nextCursor; each page's
# names new to the connection) → the tools the connection keeps at the end, by hand: 30 whole
# listings of 2,000 names keep the last's 2,000; 30 pages of one listing, or of no listing followed
# from its start, keep the first 10,000 (the budget, frames._tools.TOOLS_KEPT; a listing's 60,000
# names are past the 20,000 it is followed for, _FOLLOWED; the old audit kept all 60,000)
BOUND: list[tuple[str, int, str, int]] = [
    ("30 whole listings of 2,000 new names", 30, "whole", 2_000),
    ("one listing of 30 pages of 2,000 new names", 30, "pages", 10_000),
    ("30 pages of 2,000 new names, no listing's start", 30, "unstarted", 10_000),
]


@pytest.mark.parametrize(("pages", "shape", "expected"), [c[1:] for c in BOUND], ids=[c[0] for c in BOUND])
def test_a_connection_keeps_at_most_the_budget_of_tools(pages: int, shape: str, expected: int) -> None:
    auditor = Auditor()
    line = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for page in range(pages):
            names = [f"t{page}-{n}" for n in range(2_000)]
            cursor = None if shape == "whole" or (shape == "pages" and page == 0) else str(page)
            next_cursor = str(page + 1) if shape == "pages" and page + 1 < pages else None
            for direction, data in listing(page + 1, cursor, names, next_cursor):
                line += 1
                auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    assert len(auditor._conns["c"].listed.tools) == expected
    # tools past the budget are said once (past 10,000 kept on one connection)
    assert len([w for w in caught if "past the audit's budget" in str(w.message)]) == (expected == 10_000)


def test_a_connection_keeps_at_most_64_mib_of_tools() -> None:
    """36 tools of a 1,000,000-character description: each 1,000,1xx bytes of JSON counted twice
    (ASCII) and 128 bytes per token (16: ``{``, ``[``, ``,``, ``:`` and one), 2,002,2xx; 33 are
    66.07 MB ≤ 64 MiB (67,108,864), 34 are 68.08 MB: the first 33 kept, the others judged as
    tools whose listing was not kept."""
    auditor = Auditor()
    names = [f"t{n}" for n in range(36)]
    frames = listing(1, None, [], None)
    frames[1] = ("s2c", json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "tools": [tool(n, "a" * 1_000_000) for n in names]}}).encode())
    rows = []
    with pytest.warns(RuntimeWarning, match="past the audit's budget"):
        for line, (direction, data) in enumerate(frames + calls(100, ["t0", "t32", "t33", "t35"]), 1):
            rows += auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
    assert len(auditor._conns["c"].listed.tools) == 33
    assert checked(rows) == {"t0": True, "t32": True, "t33": False, "t35": False}


def test_the_connections_held_at_once_keep_at_most_the_auditors_budget_of_tools() -> None:
    """Past each connection's budget, the tools kept by all the connections an auditor holds at
    once count against :attr:`Auditor.max_tools_bytes` (256 MiB by default): 50 connections each
    listing 10,000 tools would keep ~1 GB of them (issue #14: memory bounded whatever the
    file size). A budget of 1,000 tools' worth here: a tool ``tool("t0-000")`` is 116 bytes of
    JSON, and counts 116 + 116 + 128 × 16 (its 15 tokens ``{``, ``[``, ``,``, ``:`` and one) =
    2,280: the first connection keeps its 600, the second 400 (its 401st does not fit), the
    third none — and a warning says tools were not kept; once the first connection closes, the
    third's next listing keeps its 600."""
    auditor = Auditor(max_tools_bytes=1_000 * 2_280)
    line = 0

    def feed(conn: str, frames: list[tuple[str, bytes]]) -> None:
        nonlocal line
        for direction, data in frames:
            line += 1
            auditor.message(conn, direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]

    with pytest.warns(RuntimeWarning, match="tools listed past the audit's budget"):
        for conn in ("c0", "c1", "c2"):
            feed(conn, listing(1, None, [f"t{conn[1]}-{n:03}" for n in range(600)], None))
    assert [len(auditor._conns[c].listed.tools) for c in ("c0", "c1", "c2")] == [600, 400, 0]
    assert auditor._tools.size <= auditor.max_tools_bytes
    line += 1
    auditor.record("c0", "close", "c2s", line=line)
    feed("c2", listing(2, None, [f"t2-{n:03}" for n in range(600)], None))
    assert [len(auditor._conns[c].listed.tools) for c in ("c1", "c2")] == [400, 600]


# A tools/list answer no strict parser reads (RFC 8259 s4: with member names that are not unique
# "the behavior of software that receives such an object is unpredictable"; the audit's routing
# read keeps the last copy, the client's may have kept the first) teaches the audit nothing
# (frames._tools, as the tap and the proxy): no tool kept or dropped, the tools kept before stay as
# they were, and a RuntimeWarning names its finding, where it is, once per finding code.
def _tool_text(name: str, *required: str) -> str:
    """A tool with one outputSchema per member in ``required`` (more than one: the name given twice)."""
    schemas = "".join(f',"outputSchema":{{"type":"object","required":["{r}"]}}' for r in required)
    return f'{{"name":"{name}","inputSchema":{{"type":"object"}}{schemas}}}'


def _page(tools: str, rest: str = "") -> str:
    return f'{{"resultType":"complete","tools":[{tools}]{rest}}}'


# (the results the listings are answered with, as written, each asked with no cursor) → (per tool
# then called — each call's structuredContent {"x":1} —: whether its outputSchema was known, and
# the findings of its call; the finding codes the warnings name, with their lines) — by hand. Each
# "before" is what the old audit judged.
STRICT: list[tuple[str, list[str], dict[str, tuple[bool, list[str]]], list[tuple[str, int]]]] = [
    ("strict listing", [_page(_tool_text("a", "x"))], {"a": (True, [])}, []),
    # before: the last outputSchema (y) judged a's call: output.schema
    ("outputSchema twice", [_page(_tool_text("a", "x")), _page(_tool_text("a", "x", "y"))], {"a": (True, [])},
     [("json.duplicate_key", 4)]),
    # before: b dropped by the last "tools" ([]), read as a whole listing: b (False, [])
    ("tools twice, the last empty", [_page(_tool_text("b", "x")), _page(_tool_text("a", "x"), ',"tools":[]')],
     {"a": (False, []), "b": (True, [])}, [("json.duplicate_key", 4)]),
    # before: a kept (the name read last), judged by its outputSchema (y): output.schema
    ("name twice", [_page(_tool_text("a", "y").replace('{"name":"a"', '{"name":"c","name":"a"'))],
     {"a": (False, [])}, [("json.duplicate_key", 2)]),
    # one warning per finding code; before: a dropped by the second (a whole listing), b judged by its
    # outputSchema read last (y): output.schema
    ("two such listings", [_page(_tool_text("a", "x", "y")), _page(_tool_text("b", "y", "y"))],
     {"a": (False, []), "b": (False, [])}, [("json.duplicate_key", 2)]),
]


@pytest.mark.parametrize(("results", "expected", "told"), [c[1:] for c in STRICT], ids=[c[0] for c in STRICT])
def test_a_listing_no_strict_parser_reads_teaches_the_audit_nothing(
        results: list[str], expected: dict[str, tuple[bool, list[str]]], told: list[tuple[str, int]]) -> None:
    frames: list[tuple[str, bytes]] = []
    for rid, result in enumerate(results, 1):
        frames += [("c2s", json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list",
                                       "params": {"_meta": META}}).encode()),
                   ("s2c", f'{{"jsonrpc":"2.0","id":{rid},"result":{result}}}'.encode())]
    frames += [(direction, data.replace(b'"structuredContent": {"n": 1}', b'"structuredContent": {"x": 1}'))
               for direction, data in calls(100, list(expected))]
    auditor = Auditor()
    rows = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for line, (direction, data) in enumerate(frames, 1):
            rows += auditor.message("c", direction, data, at=float(line), seq=line, line=line)  # type: ignore[arg-type]
        rows += auditor.end()
    said = [str(w.message) for w in caught if "is read by no strict parser" in str(w.message)]
    assert {r.tool: (r.content_checked, [f.code for f in r.findings]) for r in rows if isinstance(r, CallRow)} \
        == expected
    assert [(s.split("strict parser (", 1)[1].split(" ", 1)[0], int(s.split(" line ", 1)[1].split(":", 1)[0]))
            for s in said] == told
    assert all(s.startswith("mcp-verdict audit: line ") and "of connection c is" in s for s in said)

"""What a connection keeps of a ``tools/list`` answer that no strict parser reads
(``frames._tools``: the one rule of the tap, the audit and the proxy).

RFC 8259 s4: "The names within an object SHOULD be unique"; with names that are not, "the
behavior of software that receives such an object is unpredictable" — the routing read here
(orjson) keeps the last copy of a name, a client's or a host's reader may keep the first (cJSON
and many others). A tool's ``name``, ``outputSchema`` or ``inputSchema`` given twice, the
``tools`` array or ``nextCursor`` given twice, may thus be read two ways, and a schema kept of it
may not be the one the peer acted on. So nothing is learnt from such an answer: no tool kept or
dropped (the tools kept before stay as they were), the listing under way no longer followed
(basic/utilities/pagination: its next page adds and drops nothing), and ``Listed.problem`` says
why (the strict reader's finding: ``json.duplicate_key``, or ``json.too_deep`` for nesting the
strict reader refuses and orjson reads). Before, the tap and the audit kept the routing read's
last copies (the proxy alone refused, or learnt nothing of, such an answer).

Frames written by hand, paired by a real :class:`Tracker`; expected values by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict.frames import Answered, Tracker
from mcp_verdict.frames._tools import ListedTools

META = '{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'


def tool(name: str, required: str) -> str:
    """A tool whose outputSchema requires the member ``required`` (what tells one definition from another)."""
    return (f'{{"name":"{name}","inputSchema":{{"type":"object"}},'
            f'"outputSchema":{{"type":"object","required":["{required}"]}}}}')


DEEP = '{"type":"object","properties":{"p":' * 125 + '{}' + "}}" * 125
"""An inputSchema nesting 251 levels (with the envelope and the tool, 255): orjson reads 1,024, the strict reader
refuses it past its bound of about 200 (``json.too_deep``)."""

Step = tuple[str, str]
"""A tools/list asked: (its params' members besides ``_meta``, as written; its answer's result, as
written, or the whole answer when it starts ``{"jsonrpc"``, or an error answer when empty)."""

# (steps, in order) → (the tools kept after the last: name → the member its outputSchema requires;
# per step, the finding code of Listed.problem, None when a strict parser reads the answer) — by hand.
# Each row but the controls' kept something else before (the routing read's last copies): named.
ROWS: list[tuple[str, list[Step], dict[str, str], list[str | None]]] = [
    ("strict listing", [("", f'{{"tools":[{tool("a", "x")}]}}')], {"a": "x"}, [None]),
    ("strict listing replaces", [("", f'{{"tools":[{tool("b", "y")}]}}'), ("", f'{{"tools":[{tool("a", "x")}]}}')],
     {"a": "x"}, [None, None]),
    # before: the last "tools" ([]) read as a whole listing: b dropped, nothing kept
    ("tools twice, the last empty", [("", f'{{"tools":[{tool("b", "y")}]}}'),
                                     ("", f'{{"tools":[{tool("a", "x")}],"tools":[]}}')],
     {"b": "y"}, [None, "json.duplicate_key"]),
    # before: a kept (b dropped), though a peer keeping the first copy saw no tool
    ("tools twice, the first empty", [("", f'{{"tools":[{tool("b", "y")}]}}'),
                                      ("", f'{{"tools":[],"tools":[{tool("a", "x")}]}}')],
     {"b": "y"}, [None, "json.duplicate_key"]),
    # before: a tool named c kept
    ("name twice", [("", '{"tools":[{"name":"a","name":"c","inputSchema":{"type":"object"},'
                         '"outputSchema":{"type":"object","required":["x"]}}]}')], {}, ["json.duplicate_key"]),
    ("name twice, the second escaped", [("", '{"tools":[{"name":"a","\\u006eame":"c","inputSchema":{"type":"object"},'
                                             '"outputSchema":{"type":"object","required":["x"]}}]}')],
     {}, ["json.duplicate_key"]),
    # before: a kept (both copies alike: the strict reader refuses it all the same)
    ("name twice alike", [("", '{"tools":[{"name":"a","name":"a","inputSchema":{"type":"object"},'
                               '"outputSchema":{"type":"object","required":["x"]}}]}')], {}, ["json.duplicate_key"]),
    # before: a's definition replaced by the last outputSchema's (required z)
    ("outputSchema twice keeps the earlier definition",
     [("", f'{{"tools":[{tool("a", "x")}]}}'),
      ("", '{"tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["y"]},'
           '"outputSchema":{"type":"object","required":["z"]}}]}')],
     {"a": "x"}, [None, "json.duplicate_key"]),
    # before: a replaced by the page's (required y)
    ("a member twice deep in the inputSchema",
     [("", f'{{"tools":[{tool("a", "x")}]}}'),
      ("", '{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"string"},'
           '"n":{"type":"integer"}}},"outputSchema":{"type":"object","required":["y"]}}]}')],
     {"a": "x"}, [None, "json.duplicate_key"]),
    # before: the last nextCursor (null) took the page for a whole listing: b dropped, a kept; then
    # the page asked with "2" added c
    ("nextCursor twice, then the next page",
     [("", f'{{"tools":[{tool("b", "y")}]}}'),
      ("", f'{{"tools":[{tool("a", "x")}],"nextCursor":"2","nextCursor":null}}'),
      ('"cursor":"2",', f'{{"tools":[{tool("c", "w")}]}}')],
     {"b": "y", "c": "w"}, [None, "json.duplicate_key", None]),
    # before: a listing under way (page 1: a), its page 2 with an id twice ended it, dropping b and keeping c
    ("a page of a listing under way, the envelope's id twice",
     [("", f'{{"tools":[{tool("b", "y")}]}}'), ("", f'{{"tools":[{tool("a", "x")}],"nextCursor":"2"}}'),
      ('"cursor":"2",', f'{{"jsonrpc":"2.0","id":3,"id":3,"result":{{"tools":[{tool("c", "w")}]}}}}')],
     {"a": "x", "b": "y"}, [None, None, "json.duplicate_key"]),
    # before: a kept (orjson reads 1024 levels)
    ("nesting the strict reader refuses", [("", f'{{"tools":[{{"name":"a","inputSchema":{DEEP}}}]}}')], {},
     ["json.too_deep"]),
    # controls: an error answer, even with a name twice, teaches nothing and is not read strictly
    ("an error answer with a name twice", [("", f'{{"tools":[{tool("b", "y")}]}}'), ("", "")], {"b": "y"},
     [None, None]),
]


def _answer(rid: int, result: str) -> bytes:
    if result.startswith('{"jsonrpc"'):
        return result.encode()
    if not result:
        return f'{{"jsonrpc":"2.0","id":{rid},"error":{{"code":-32603,"message":"a","message":"b"}}}}'.encode()
    return f'{{"jsonrpc":"2.0","id":{rid},"result":{result}}}'.encode()


def _run(steps: list[Step]) -> tuple[dict[str, Any], list[str | None]]:
    tracker, tools = Tracker(), ListedTools()
    problems: list[str | None] = []
    for rid, (params, result) in enumerate(steps, 1):
        request = f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/list","params":{{{params}"_meta":{META}}}}}'.encode()
        answer = _answer(rid, result)
        tracker.feed("c", "c2s", request, at=float(rid), seq=2 * rid)
        events = tracker.feed("c", "s2c", answer, at=float(rid), seq=2 * rid + 1)
        assert [type(e) for e in events] == [Answered]
        assert isinstance(events[0], Answered)
        problem = tools.listed(events[0].exchange).problem
        problems.append(None if problem is None else problem.code)
    return {name: t["outputSchema"]["required"][0] if "outputSchema" in t else None
            for name, t in tools.tools.items()}, problems


@pytest.mark.parametrize(("steps", "kept", "problems"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_nothing_is_learnt_from_a_listing_no_strict_parser_reads(steps: list[Step], kept: dict[str, str],
                                                                  problems: list[str | None]) -> None:
    assert _run(steps) == (kept, problems)

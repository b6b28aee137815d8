"""The extensions in force for a 2026-07-28 request whose ``_meta`` repeats the last one's, when
the server said which extensions it supports in between (``server/discover``): the Tracker gives
such a request the last context only while the server's extensions are unchanged.

The extensions in force are the ones the request's ``_meta`` declares
(https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta) that the server
declares too, once it has said (``server/discover``'s ``capabilities.extensions``).
"""

from __future__ import annotations

import pytest

from mcp_verdict.frames import Tracker


def _call(rid: int) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","_meta":{'
            b'"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":'
            b'{"extensions":{"io.example/a":{},"io.example/b":{}}}}}}' % rid)


def _discover(rid: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"server/discover","params":{}}' % rid


def _discovered(rid: int, extensions: bytes) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","capabilities":{"extensions":%s}}}'
            % (rid, extensions))


# (the frames before and between two identical tools/call requests, the extensions in force for
# each request); server/discover is asked before the first call and answered after it, or asked
# and answered between the calls
Frames = list[tuple[str, bytes]]
CASES: list[tuple[str, Frames, Frames, tuple[tuple[str, ...], tuple[str, ...]]]] = [
    ("nothing between: both declared extensions", [], [],
     (("io.example/a", "io.example/b"), ("io.example/a", "io.example/b"))),
    ("the server supports one of them", [], [("c2s", _discover(10)), ("s2c", _discovered(10, b'{"io.example/a":{}}'))],
     (("io.example/a", "io.example/b"), ("io.example/a",))),
    ("the server supports none", [], [("c2s", _discover(10)), ("s2c", _discovered(10, b"{}"))],
     (("io.example/a", "io.example/b"), ())),
    ("the server supports both", [],
     [("c2s", _discover(10)), ("s2c", _discovered(10, b'{"io.example/a":{},"io.example/b":{},"io.example/c":{}}'))],
     (("io.example/a", "io.example/b"), ("io.example/a", "io.example/b"))),
    ("answered after the first call: the server supports one of them", [("c2s", _discover(10))],
     [("s2c", _discovered(10, b'{"io.example/a":{}}'))], (("io.example/a", "io.example/b"), ("io.example/a",))),
    ("answered after the first call: the server supports none", [("c2s", _discover(10))],
     [("s2c", _discovered(10, b"{}"))], (("io.example/a", "io.example/b"), ())),
    ("answered after the first call: the same extensions as before", [("c2s", _discover(10))],
     [("s2c", _discovered(10, b'{"io.example/a":{},"io.example/b":{}}'))],
     (("io.example/a", "io.example/b"), ("io.example/a", "io.example/b"))),
]


@pytest.mark.parametrize(("before", "between", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_repeated_meta_has_the_extensions_the_server_supports_now(
        before: Frames, between: Frames, expected: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    tracker = Tracker()
    frames: Frames = [*before, ("c2s", _call(1)), *between, ("c2s", _call(2))]
    in_force = []
    for seq, (direction, data) in enumerate(frames):
        tracker.feed("c", direction, data, at=0.0, seq=seq)  # type: ignore[arg-type]
        opened = tracker.opened("c")
        if opened is not None and opened.method == "tools/call":
            in_force.append(opened.context.extensions)
    assert tuple(in_force) == expected

"""``proxy._twice.each_once``: a 2026-07-28 request names ``"name"`` twice as written (its
``params._meta``'s ``io.modelcontextprotocol/clientInfo`` and, in a ``tools/call``, ``params.name``:
2026-07-28 schema, CallToolRequest; basic/index, the request ``_meta``), so the counts of
``may_repeat`` said "maybe" for every one and each was scanned and read strictly (jiter) once more,
per request, in both modes. The routing read (orjson's, which every request gets) shows each name
given once: ``may_repeat(data, message)`` is False then, and enforce sends such a request before the
relay reads it, as any other.

False must stay sure (RFC 8259 s4: a name given twice is read two ways by parsers that keep the first
and the last): a name given twice at ``params``' level, with two values or the same, one of them
written with ``\\u`` escapes, the top-level ``params`` given twice, a routing value that is an object
whose own member is given twice — each is still "maybe" and read. Expected values by hand; the
property test holds each_once's True against the two readings themselves (``read_repeated``: no
gate before the strict read)."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_verdict.proxy import Relay, _twice
from mcp_verdict.verdict._parser import read_strict

from ._host_stream import KeptHost

META = (b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},'
        b'"io.modelcontextprotocol/clientCapabilities":{}}')
"""A 2026-07-28 request's ``_meta`` (2026-07-28 examples, CallToolRequest/call-tool-request.json)."""


def call26(params: bytes, head: bytes = b'"jsonrpc":"2.0","id":1,"method":"tools/call"') -> bytes:
    """A 2026-07-28 request: ``head``, then params holding ``META`` and ``params``."""
    return b"{" + head + b',"params":{' + META + b"," + params + b"}}"


MANY = b",".join(b'"a%d":%d' % (n, n) for n in range(70))

ROWS: list[tuple[str, bytes, bool, str | None]] = [
    # (row, frame, may_repeat given orjson's reading, read_two_ways' member)
    ("2025: a plain tools/call", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",'
     b'"arguments":{}}}', False, None),
    ("2026: a tools/call (clientInfo's name, params.name)", call26(b'"name":"get_weather","arguments":'
     b'{"location":"New York"}'), False, None),
    ("2026: params.name first, _meta last", b'{"jsonrpc":"2.0","id":"c","method":"tools/call","params":'
     b'{"name":"echo","arguments":{"size":1},' + META + b"}}", False, None),
    ("2026: an argument named name (walked)", call26(b'"name":"echo","arguments":{"name":"x"}'), False, None),
    ("2026: a string value name in the arguments (walked)", call26(b'"name":"echo","arguments":{"say":"name",'
     b'"list":["name",{"name":1}]}'), False, None),
    ("2026: a tools/list, name once", b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{' + META + b"}}",
     False, None),
    ("2026: tasks/get, taskId once", call26(b'"taskId":"t1"', b'"jsonrpc":"2.0","id":3,"method":"tasks/get"'),
     False, None),
    ("2026: params.name twice, two values", call26(b'"name":"a","name":"b","arguments":{}'), True, "params.name"),
    ("2026: params.name twice, one value", call26(b'"name":"a","name":"a","arguments":{}'), True, None),
    ("2026: params.name twice, one written with \\u", call26(b'"name":"a","n\\u0061me":"b","arguments":{}'),
     True, "params.name"),
    ("2026: a \\u escape in an argument", call26(b'"name":"a","arguments":{"city":"caf\\u00e9"}'), True, None),
    ("2026: an escaped quote before name in a value", call26(b'"name":"a","arguments":{"say":"\\"name"}'),
     True, None),
    ("2026: params.name twice, the client info naming none", b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
     b'"params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"version":"1"}},"name":"a","name":"b"}}', True,
     "params.name"),
    ("2026: params.name and an escaped quote before name", b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
     b'"params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"version":"\\"name"}},"name":"a"}}', True, None),
    ("2026: params given twice", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{' + META
     + b',"name":"a"},"params":{' + META + b',"name":"b"}}', True, "params.name"),
    ("2026: method twice", call26(b'"name":"a"', b'"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"'),
     True, "method"),
    ("2026: id twice", call26(b'"name":"a"', b'"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call"'), True, "id"),
    ("2026: taskId twice", call26(b'"taskId":"t1","taskId":"t2"', b'"jsonrpc":"2.0","id":3,"method":"tasks/get"'),
     True, "params.taskId"),
    ("2026: clientInfo's name twice (read alike)", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
     b'{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","name":"y"}},"name":"a"}}', True, None),
    ("2026: params.name an object whose member is given twice", call26(b'"name":{"k":1,"k":2}'), True,
     "params.name"),
    ("2026: an argument named name past the walk's 64", call26(b'"name":"a","arguments":{' + MANY
     + b',"name":"x"}'), True, None),
]


@pytest.mark.parametrize(("frame", "maybe", "member"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_may_repeat_given_the_routing_read(frame: bytes, maybe: bool, member: str | None) -> None:
    message = orjson.loads(frame)
    assert _twice.may_repeat(frame, message) is maybe  # type: ignore[call-arg,unused-ignore]  # (base: no message)
    assert two_ways_member(_twice.read_two_ways(frame, message)) == member  # type: ignore[call-arg,unused-ignore]
    assert two_ways_member(_twice.read_two_ways(frame)) == member  # (the old path, no reading given: the same)


@pytest.mark.parametrize(("frame", "maybe"), [row[1:3] for row in ROWS], ids=[row[0] for row in ROWS])
def test_the_bridge_counts_once(frame: bytes, maybe: bool) -> None:
    """The bridge in enforce counts a frame once before it reads it (``counted``) and asks
    ``repeats`` with those counts and the routing read: the same answer as ``may_repeat``."""
    assert _twice.repeats(frame, orjson.loads(frame), _twice.counted(frame)) is maybe


COUNTED: list[tuple[str, bytes, tuple[int, ...] | None]] = [
    # (row, frame, counted: "method", "id", "params", "name", "taskId" as written; () each at most once)
    ("2025: a plain tools/call", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}', ()),
    ("2026: a tools/call", call26(b'"name":"get_weather","arguments":{}'), (1, 1, 1, 2, 0)),
    ("2026: tasks/get", call26(b'"taskId":"t1"', b'"jsonrpc":"2.0","id":3,"method":"tasks/get"'), ()),
    ("2026: id twice", call26(b'"name":"a"', b'"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call"'),
     (1, 2, 1, 2, 0)),
    ("a \\u escape: not counted", call26(b'"name":"a","arguments":{"city":"caf\\u00e9"}'), None),
]


@pytest.mark.parametrize(("frame", "expected"), [row[1:] for row in COUNTED], ids=[row[0] for row in COUNTED])
def test_counted(frame: bytes, expected: tuple[int, ...] | None) -> None:
    assert _twice.counted(frame) == expected


def two_ways_member(read: _twice.Twice | None) -> str | None:
    return None if read is None else read.member


REQUEST26 = call26(b'"name":"get_weather","arguments":{"location":"New York"}')
TWICE26 = call26(b'"name":"get_weather","name":"rm","arguments":{}')

RELAY = [
    ("observe, a 2026-07-28 tools/call: not read again", "observe", REQUEST26, 0, False),
    ("enforce, a 2026-07-28 tools/call: not read again", "enforce", REQUEST26, 0, False),
    ("observe, params.name twice: read", "observe", TWICE26, 1, False),
    ("enforce, params.name twice: read and answered -32600", "enforce", TWICE26, 1, True),
]


@pytest.mark.parametrize(("mode", "frame", "strict_reads", "refused"), [row[1:] for row in RELAY],
                         ids=[row[0] for row in RELAY])
def test_the_relay_reads_strictly_only_a_request_that_may_repeat(
        monkeypatch: pytest.MonkeyPatch, mode: str, frame: bytes, strict_reads: int, refused: bool) -> None:
    """The relay's own look (``Relay.from_host``, the frame not yet sent: the bridge found it may
    repeat, or a caller with no upstream): the strict read (jiter) counted. Before, the
    2026-07-28 rows read it once each."""
    reads: list[bytes] = []
    def counted(data: bytes) -> object:
        reads.append(data)
        return read_strict(data)

    monkeypatch.setattr("mcp_verdict.proxy._twice.read_strict", counted)
    outs = Relay(mode=mode).from_host(frame)  # type: ignore[arg-type]
    assert len(reads) == strict_reads
    assert [(out.to, b'"code":-32600' in out.data) for out in outs] == [("host" if refused else "upstream", refused)]


class _Pipe:
    """An upstream that is a pipe (frames are sent before the relay reads them); each send notes how
    many host frames the relay had read by then."""

    routes_by_key = False

    def __init__(self, relay: Relay) -> None:
        self.relay = relay
        self.sent: list[tuple[bytes, int]] = []

    def send(self, data: bytes, *, key: object, stream: object, headers: object, own: bool = False) -> bool:
        self.sent.append((data, self.relay.stats.host_frames))
        return True

    async def aclose(self) -> None:
        pass


BRIDGE = [
    ("a 2026-07-28 tools/call: sent before the relay reads it", REQUEST26, [(REQUEST26, 0)], []),
    ("params.name twice: read first, answered -32600, not sent", TWICE26, [], [-32600]),
]


@pytest.mark.parametrize(("frame", "sent", "answered"), [row[1:] for row in BRIDGE], ids=[row[0] for row in BRIDGE])
def test_enforce_sends_a_2026_request_first(frame: bytes, sent: list[tuple[bytes, int]], answered: list[int]) -> None:
    """enforce: the bridge sends a frame within the limit before the relay reads it unless it may
    give a routing member twice (then the relay reads it first: it may answer it itself). Before,
    every 2026-07-28 tools/call was read first (``[(REQUEST26, 1)]``)."""
    from mcp_verdict.proxy._bridge import Bridge

    async def go() -> tuple[_Pipe, KeptHost]:
        relay = Relay(mode="enforce")
        pipe, host = _Pipe(relay), KeptHost()
        bridge = Bridge(relay, pipe, host)
        bridge.from_host(frame, host)
        bridge.close()
        return pipe, host

    pipe, host = asyncio.run(go())
    assert pipe.sent == sent
    assert [orjson.loads(d)["error"]["code"] for d in host.got] == answered


# -- property: each_once's True is sure ------------------------------------------------------------

_NAMES = st.sampled_from(['"method"', '"id"', '"params"', '"name"', '"taskId"', '"arguments"', '"_meta"',
                          '"n\\u0061me"', '"\\u0069d"', '"x"', '"x"', '"x"'])
_STRINGS = st.sampled_from(['"name"', '"tools/call"', '"tasks/get"', '"ping"', '"a"', '"b"', '"say \\"name"',
                            '"\\"name\\""', '"caf\\u00e9"', '"id"', '"\\\\"'])
_SCALARS = st.one_of(_STRINGS, st.sampled_from(["1", "2", "1.5", "null", "true"]))


def _values(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    members = st.lists(st.tuples(_NAMES, inner), max_size=4).map(lambda ms: "{" + ",".join(f"{n}:{v}" for n, v in ms)
                                                                  + "}")
    elements = st.lists(inner, max_size=3).map(lambda vs: "[" + ",".join(vs) + "]")
    return st.one_of(members, elements)


_VALUES = st.recursive(_SCALARS, _values, max_leaves=12)
_CLIENTS = st.sampled_from(['{"name":"c","version":"1"}', '{"version":"1"}', '{"name":"c","name":"d"}',
                            '{"name":"name"}', '{"x":"name"}', "[]"])
_IDS = st.sampled_from(["1", "2", '"a"'])
_METHODS = st.sampled_from(['"tools/call"', '"tasks/get"', '"ping"'])


@st.composite
def _requests(draw: st.DrawFn) -> bytes:
    """A request as text: its top-level members and params' members drawn (names maybe repeated,
    maybe escaped, values maybe holding the names as strings, escaped quotes, escapes), params
    maybe carrying a 2026-07-28 ``_meta`` (its client info maybe naming no name, or one twice)."""
    params = draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=4))
    inner = [f"{n}:{v}" for n, v in params]
    if draw(st.booleans()):
        inner.insert(draw(st.integers(0, len(inner))), '"_meta":{"io.modelcontextprotocol/protocolVersion":'
                     '"2026-07-28","io.modelcontextprotocol/clientInfo":' + draw(_CLIENTS) + "}")
    top = draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=3))
    members = ['"jsonrpc":"2.0"', '"id":' + draw(_IDS), '"method":' + draw(_METHODS),
               '"params":{' + ",".join(inner) + "}", *(f"{n}:{v}" for n, v in top)]
    order = draw(st.permutations(members))
    return ("{" + ",".join(order) + "}").encode()


@settings(max_examples=3000, deadline=None)
@given(_requests())
def test_each_once_is_sure(frame: bytes) -> None:
    """Whenever the routing read shows each name once (``each_once``: ``may_repeat`` False), the
    two readings (first kept, last kept) agree on every routing member: the strict read and the
    readings, with no gate before them, name none; nor does the old path (``read_two_ways`` with
    no routing read given)."""
    try:
        message: Any = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return
    if _twice.each_once(frame, message):
        assert _twice.read_repeated(frame) is None
        assert _twice.read_two_ways(frame) is None
        assert _twice.may_repeat(frame, message) is False

"""The Streamable HTTP routing headers of a 2026-07-28 request against its body: one table, held
to the shared rule (``frames/_routing_headers``), to the demo server over real HTTP on
127.0.0.1, and to the proxy's check of an HTTP host's POST (``proxy/_headers.header_mismatch``).

2026-07-28 basic/transports/streamable-http (PVH: Protocol Version Header; SRH: Standard Request
Headers; VE: Value Encoding; CS: Case Sensitivity; SV: Server Validation) and the tasks extension
(ext-tasks specification/draft/tasks.md, "Streamable HTTP: Routing Headers": the client MUST set
``Mcp-Name`` to ``params.taskId`` on tasks/get, tasks/update, tasks/cancel). Each expected reason is
written by hand; None: the headers pass (the server goes on to answer the body).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_verdict.demo import serve_http_in_thread
from mcp_verdict.frames._routing_headers import FieldList, applies, decoded, header_value, mismatch

V = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "test_routing_headers", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}
OLD_META = {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
NO_META: dict[str, Any] = {}
PV, METHOD, NAME = "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"
CALL = {"name": "get_forecast", "arguments": {"city": "Oslo"}}
TASK = {"taskId": "t-1"}
URI = {"uri": "file:///notes/today.txt"}
Headers = tuple[tuple[str, str], ...]


def _sent(method: str, name: str | None = None) -> Headers:
    """The headers a conforming client writes (SRH)."""
    return ((PV, V), (METHOD, method), *(((NAME, name),) if name is not None else ()))


def _missing(method: str, member: str) -> str:
    return f"the Mcp-Name header is missing (required on {method}: params.{member})"


def _undecodable(value: str) -> str:
    return f"the Mcp-Name header '{value}' is a Base64 sentinel that does not decode to UTF-8"


def _other_name(value: str, member: str, body: str) -> str:
    return f"the Mcp-Name header '{value}' does not match the body's params.{member} '{body}'"


NOT_ASCII = "the Mcp-Name header holds a character outside visible ASCII, space and tab"
NO_METHOD = "the Mcp-Method header is missing (required on every request)"

# (id, method, params (its _meta, when not given, META), request (else a notification), headers,
# the reason or None, sent to the demo over HTTP (False: the HTTP parser refuses such a header
# before any server reads it), the spec). Fixed by hand.
ROWS: list[tuple[str, str, dict[str, Any], bool, Headers, str | None, bool, str]] = [
    ("call-agree", "tools/call", CALL, True, _sent("tools/call", "get_forecast"), None, True, "SRH"),
    ("call-names-any-case", "tools/call", CALL, True,
     (("mcp-protocol-version", V), ("MCP-METHOD", "tools/call"), ("mcp-name", "get_forecast")), None, True, "CS"),
    ("call-base64", "tools/call", CALL, True, _sent("tools/call", "=?base64?Z2V0X2ZvcmVjYXN0?="), None, True, "VE"),
    ("call-base64-other", "tools/call", CALL, True, _sent("tools/call", "=?base64?ZGVsZXRl?="),  # "delete"
     _other_name("=?base64?ZGVsZXRl?=", "name", "get_forecast"), True, "VE, SV"),
    ("call-sentinel-not-base64", "tools/call", CALL, True, _sent("tools/call", "=?base64?!!?="),
     _undecodable("=?base64?!!?="), True, "VE, SV"),
    ("call-sentinel-not-utf8", "tools/call", CALL, True, _sent("tools/call", "=?base64?/w==?="),  # 0xFF
     _undecodable("=?base64?/w==?="), True, "VE, SV"),
    # a body value in the sentinel's shape: a client MUST encode it (VE), so the header written as
    # the body writes it is no encoding of it; before, the demo compared it as written and passed it
    ("call-sentinel-as-written", "tools/call", {**CALL, "name": "=?base64?literal?="}, True,
     _sent("tools/call", "=?base64?literal?="), _undecodable("=?base64?literal?="), True, "VE"),
    ("call-sentinel-encoded", "tools/call", {**CALL, "name": "=?base64?literal?="}, True,
     _sent("tools/call", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), None, True, "VE (the spec's example)"),
    ("call-non-ascii-base64", "tools/call", {**CALL, "name": "天気"}, True, _sent("tools/call", "=?base64?5aSp5rCX?="),
     None, True, "VE"),
    ("call-non-ascii-raw", "tools/call", {**CALL, "name": "天気"}, True, _sent("tools/call", "天気"), NOT_ASCII,
     True, "VE, SV: invalid characters"),
    ("call-control-char", "tools/call", {**CALL, "name": "get\x01forecast"}, True,
     _sent("tools/call", "get\x01forecast"), NOT_ASCII, False, "VE, SV: invalid characters"),
    # the edges of visible ASCII (0x20-0x7E) and the tab, the one control character a value may hold
    ("call-delete-char", "tools/call", {**CALL, "name": "get\x7fforecast"}, True,
     _sent("tools/call", "get\x7fforecast"), NOT_ASCII, False, "VE, SV: invalid characters (DEL)"),
    ("call-no-break-space", "tools/call", {**CALL, "name": "get\u00a0forecast"}, True,
     _sent("tools/call", "get\u00a0forecast"), NOT_ASCII, False, "VE, SV: invalid characters"),
    ("call-tab-and-tilde", "tools/call", {**CALL, "name": "get\tforecast~ "}, True,
     _sent("tools/call", "get\tforecast~ "), None, False, "SV: a tab, 0x7E and a space are valid characters"),
    ("call-name-twice", "tools/call", CALL, True, (*_sent("tools/call", "get_forecast"), (NAME, "get_forecast")),
     "the Mcp-Name header is given 2 times", True, "SV: malformed"),
    ("call-name-twice-other-first", "tools/call", CALL, True,
     ((PV, V), (METHOD, "tools/call"), (NAME, "delete_everything"), (NAME, "get_forecast")),
     "the Mcp-Name header is given 2 times", True, "SV: malformed (an intermediary may route on the first)"),
    ("call-version-twice", "tools/call", CALL, True, ((PV, V), *_sent("tools/call", "get_forecast")),
     "the MCP-Protocol-Version header is given 2 times", True, "SV: malformed"),
    ("call-method-twice", "tools/call", CALL, True, ((METHOD, "tools/call"), *_sent("tools/call", "get_forecast")),
     "the Mcp-Method header is given 2 times", True, "SV: malformed"),
    ("call-no-method", "tools/call", CALL, True, ((PV, V), (NAME, "get_forecast")), NO_METHOD, True,
     "SRH, SV: a required header missing"),
    ("call-no-name", "tools/call", CALL, True, _sent("tools/call"), _missing("tools/call", "name"), True,
     "SRH, SV: a required header missing"),
    ("call-other-method", "tools/call", CALL, True, ((PV, V), (METHOD, "tools/list"), (NAME, "get_forecast")),
     "the Mcp-Method header 'tools/list' does not match the body's method 'tools/call'", True, "SV"),
    ("call-method-case", "tools/call", CALL, True, ((PV, V), (METHOD, "Tools/Call"), (NAME, "get_forecast")),
     "the Mcp-Method header 'Tools/Call' does not match the body's method 'tools/call'", True, "CS: values"),
    ("call-name-case", "tools/call", CALL, True, _sent("tools/call", "Get_Forecast"),
     _other_name("Get_Forecast", "name", "get_forecast"), True, "CS: values"),
    ("call-version-other", "tools/call", CALL, True, ((PV, "2025-11-25"), *_sent("tools/call", "get_forecast")[1:]),
     "the MCP-Protocol-Version header '2025-11-25' does not match the body's _meta "
     "io.modelcontextprotocol/protocolVersion '2026-07-28'", True, "PVH"),
    ("call-meta-older", "tools/call", {**CALL, "_meta": OLD_META}, True, _sent("tools/call", "get_forecast"),
     "the MCP-Protocol-Version header '2026-07-28' does not match the body's _meta "
     "io.modelcontextprotocol/protocolVersion '2025-11-25'", True, "PVH"),
    ("call-no-headers", "tools/call", CALL, True, (), None, True, "PVH: MAY be taken as 2025-03-26's"),
    ("call-no-version-name-only", "tools/call", CALL, True, ((METHOD, "tools/call"),), None, True,
     "PVH: nothing required without MCP-Protocol-Version"),
    ("call-no-version-other-name", "tools/call", CALL, True, ((METHOD, "tools/call"), (NAME, "delete_everything")),
     _other_name("delete_everything", "name", "get_forecast"), True, "SV: a given header matches the body"),
    ("call-name-not-a-string", "tools/call", {**CALL, "name": 42}, True, _sent("tools/call", "42"), None, True,
     "the body is malformed: its own error"),
    ("prompt-agree", "prompts/get", {"name": "greeting"}, True, _sent("prompts/get", "greeting"), None, True, "SRH"),
    ("prompt-no-name", "prompts/get", {"name": "greeting"}, True, _sent("prompts/get"),
     _missing("prompts/get", "name"), True, "SRH"),
    ("resource-agree", "resources/read", URI, True, _sent("resources/read", URI["uri"]), None, True, "SRH"),
    ("resource-no-name", "resources/read", URI, True, _sent("resources/read"), _missing("resources/read", "uri"),
     True, "SRH"),
    ("resource-other-uri", "resources/read", URI, True, _sent("resources/read", "file:///etc/passwd"),
     _other_name("file:///etc/passwd", "uri", URI["uri"]), True, "SV"),
    ("task-get-agree", "tasks/get", TASK, True, _sent("tasks/get", "t-1"), None, True, "ext-tasks"),
    ("task-get-base64", "tasks/get", TASK, True, _sent("tasks/get", "=?base64?dC0x?="), None, True, "ext-tasks, VE"),
    ("task-get-no-name", "tasks/get", TASK, True, _sent("tasks/get"), _missing("tasks/get", "taskId"), True,
     "ext-tasks: the client MUST set it; SV: a required header missing"),
    ("task-update-no-name", "tasks/update", {**TASK, "inputResponses": {}}, True, _sent("tasks/update"),
     _missing("tasks/update", "taskId"), True, "ext-tasks; SV"),
    ("task-cancel-no-name", "tasks/cancel", TASK, True, _sent("tasks/cancel"), _missing("tasks/cancel", "taskId"),
     True, "ext-tasks; SV"),
    ("task-cancel-other", "tasks/cancel", TASK, True, _sent("tasks/cancel", "t-2"), _other_name("t-2", "taskId", "t-1"),
     True, "ext-tasks; SV"),
    ("list-no-name", "tools/list", {}, True, _sent("tools/list"), None, True, "SRH: Mcp-Name not required"),
    ("list-name-given", "tools/list", {}, True, _sent("tools/list", "anything"), None, True,
     "SRH: no body value for it"),
    ("notification-no-method", "notifications/cancelled", {"requestId": 3, "_meta": NO_META}, False, ((PV, V),),
     None, True, "SRH: Mcp-Method required on requests"),
    ("notification-other-method", "notifications/cancelled", {"requestId": 3, "_meta": NO_META}, False,
     ((PV, V), (METHOD, "tools/call")),
     "the Mcp-Method header 'tools/call' does not match the body's method 'notifications/cancelled'", True, "SV"),
    ("legacy-2025", "ping", {"_meta": NO_META}, True, ((PV, "2025-06-18"), (METHOD, "tools/call")), None, True,
     "2025-06-18 defines no routing header"),
]
IDS = [row[0] for row in ROWS]


def _body(method: str, params: dict[str, Any], is_request: bool) -> dict[str, Any]:
    params = dict(params)
    if "_meta" not in params:
        params["_meta"] = META
    elif not params["_meta"]:
        del params["_meta"]
    return {"jsonrpc": "2.0", **({"id": 7} if is_request else {}), "method": method, "params": params}


@pytest.mark.parametrize(("row", "method", "params", "is_request", "headers", "reason", "over_http", "spec"),
                         ROWS, ids=IDS)
def test_the_shared_rule(row: str, method: str, params: dict[str, Any], is_request: bool, headers: Headers,
                         reason: str | None, over_http: bool, spec: str) -> None:
    body = _body(method, params, is_request)
    fields = FieldList(headers)
    kind = "request" if is_request else "notification"
    got = mismatch(kind, method, body["params"], fields) if applies(kind, body["params"], fields) else None
    assert got == reason


# -- the demo server, over real HTTP -------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve_http_in_thread() as url:
        yield url


def _post(url: str, body: dict[str, Any], headers: Headers) -> tuple[int, Any]:
    httpx = next((m for m in (_module("httpx2"), _module("httpx")) if m is not None), None)
    if httpx is None:
        pytest.skip("neither httpx2 nor httpx is installed")
    sent = [(b"content-type", b"application/json"), *((k.encode(), v.encode("utf-8")) for k, v in headers)]
    response = httpx.post(url, content=json.dumps(body).encode(), headers=sent, timeout=10.0)
    return response.status_code, (json.loads(response.content) if response.content else None)


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _refused(status: int, answer: Any) -> bool:
    return status == 400 and isinstance(answer, dict) and answer.get("error", {}).get("code") == -32020


HTTP_ROWS = [pytest.param(*row, id=row[0]) for row in ROWS if row[6]]


@pytest.mark.parametrize(("row", "method", "params", "is_request", "headers", "reason", "over_http", "spec"),
                         HTTP_ROWS)
def test_the_demo_server_refuses_what_the_rule_refuses(demo_url: str, row: str, method: str, params: dict[str, Any],
                                                       is_request: bool, headers: Headers, reason: str | None,
                                                       over_http: bool, spec: str) -> None:
    status, answer = _post(demo_url, _body(method, params, is_request), headers)
    assert _refused(status, answer) is (reason is not None), (status, answer)
    if reason is not None:
        assert answer["error"]["message"] == f"Header mismatch: {reason}"
        assert answer["id"] == (7 if is_request else None)


# -- the proxy's check of an HTTP host's POST ------------------------------------------------------

@pytest.mark.parametrize(("row", "method", "params", "is_request", "headers", "reason", "over_http", "spec"),
                         ROWS, ids=IDS)
def test_the_proxy_refuses_what_the_rule_refuses(row: str, method: str, params: dict[str, Any], is_request: bool,
                                                 headers: Headers, reason: str | None, over_http: bool,
                                                 spec: str) -> None:
    multidict = pytest.importorskip("multidict")
    from mcp_verdict.frames import peek
    from mcp_verdict.proxy._headers import header_mismatch

    raw = json.dumps(_body(method, params, is_request)).encode()
    got = header_mismatch(peek(raw), multidict.CIMultiDict(headers), None, raw)
    assert (got is not None) is (reason is not None), got
    assert got is None or got == (-32020, reason)


# -- Value Encoding, both ways ---------------------------------------------------------------------

# (the value, as a client writes it): VE's table of examples, and its rule for a tab and the sentinel.
ENCODED = [
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
    ("a\tb", "=?base64?YQli?="),
    ("inner space", "inner space"),
    ("tilde~", "tilde~"),
    ("del\x7f", "=?base64?ZGVsfw==?="),
    ("é", "=?base64?w6k=?="),
]


@pytest.mark.parametrize(("value", "written"), ENCODED, ids=[w for _, w in ENCODED])
def test_a_value_is_written_and_read_back_as_value_encoding_says(value: str, written: str) -> None:
    assert header_value(value) == written
    assert decoded(written) == value


# (a header value, what a server compares: None when it refuses the sentinel).
DECODED = [
    ("=?base64?Z2V0X2ZvcmVjYXN0?=", "get_forecast"),
    ("=?base64??=", ""),  # the empty value, encoded
    ("=?base64?=", "=?base64?="),  # too short to be the sentinel: as written
    ("=?BASE64?Z2V0?=", "=?BASE64?Z2V0?="),  # the markers are case-sensitive: not the sentinel
    ("=?base64?Z2V0X2ZvcmVjYXN0?", "=?base64?Z2V0X2ZvcmVjYXN0?"),  # no suffix
    ("=?base64?!!?=", None),
    ("=?base64?Z2V0X2ZvcmVjYXN?=", None),  # 15 characters: not Base64
    ("=?base64?/w==?=", None),  # 0xFF: not UTF-8
]


@pytest.mark.parametrize(("value", "compared"), DECODED, ids=[v for v, _ in DECODED])
def test_a_header_value_is_decoded_or_refused(value: str, compared: str | None) -> None:
    assert decoded(value) == compared


def test_the_demo_keeps_every_value_of_a_repeated_header() -> None:
    fields = FieldList([("Mcp-Name", "a"), ("mcp-name", "b"), ("Host", "127.0.0.1")])
    assert (fields.getall("MCP-NAME", ()), fields["mcp-name"], fields.get("host"), "HOST" in fields, len(fields)) \
        == (("a", "b"), "b", "127.0.0.1", True, 2)
    assert fields.getall("origin", ()) == ()


def test_the_demo_core_takes_a_plain_mapping_of_headers_too() -> None:
    from mcp_verdict.demo import Connection, DemoServer

    message = _body("tools/call", CALL, True)
    server = DemoServer()
    refused = server.handle(message, Connection(headers={"mcp-protocol-version": V, "mcp-method": "tools/list",
                                                         "mcp-name": "get_forecast"}))
    passed = server.handle(message, Connection(headers=dict(_sent("tools/call", "get_forecast"))))
    assert json.loads(refused.frames[0])["error"] == {
        "code": -32020,
        "message": "Header mismatch: the Mcp-Method header 'tools/list' does not match the body's method 'tools/call'"}
    assert "result" in json.loads(passed.frames[0])

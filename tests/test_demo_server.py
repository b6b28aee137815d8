"""The demo server, driven for real: raw lines to a stdio subprocess, raw POSTs to the HTTP edge.

Each tool's response bytes are classified with ``mcp_verdict.classify`` and checked against
HAND, a table written by hand from each tool's construction (and kept equal to the catalogue).
Every process and server started here is stopped, and checked to be gone; every wait has a
timeout.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib
import itertools
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from mcp_verdict import Kind, classify, decide, evaluate
from mcp_verdict.demo import (
    CATALOGUE,
    CATALOGUE_BY_NAME,
    DEMO_CLIENT_CAPABILITIES,
    DEMO_EXTENSIONS,
    TOOLS,
    Connection,
    DemoServer,
    http_command,
    naive_conclusion,
    serve_http,
    serve_http_in_thread,
    stdio_command,
)

V = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
DECLARED: dict[str, Any] = json.loads(json.dumps(dict(DEMO_CLIENT_CAPABILITIES)))
TIMEOUT = 10.0

# tool → (kind, the error code or finding that explains it, what '"result" in response' concludes).
# Written by hand from each tool's construction; the catalogue must say the same.
HAND: dict[str, tuple[Kind, int | str | None, str]] = {
    "get_forecast": (Kind.NORMAL_COMPLETE, None, "success"),
    "charge_card": (Kind.TOOL_ERROR, None, "success"),
    "add_integers": (Kind.PROTOCOL_ERROR, -32602, "failure"),
    "confirm_delete": (Kind.INPUT_REQUIRED, None, "success"),
    "summarize_text": (Kind.INPUT_REQUIRED, None, "success"),
    "generate_report": (Kind.TASK, None, "success"),
    "count_open_tickets": (Kind.NORMAL_COMPLETE, None, "success"),
    "slow_echo": (Kind.NORMAL_COMPLETE, None, "success"),
    "create_note": (Kind.NORMAL_COMPLETE, None, "success"),
    "get_note": (Kind.NORMAL_COMPLETE, None, "success"),
    "string_is_error": (Kind.UNCLASSIFIED, "result.is_error", "success"),
    "missing_result_type": (Kind.UNCLASSIFIED, "result.result_type_missing", "success"),
    "unknown_result_type": (Kind.UNCLASSIFIED, "result.result_type_unknown", "success"),
    "text_block_without_text": (Kind.UNCLASSIFIED, "content.field_missing", "success"),
    "duplicate_is_error": (Kind.UNCLASSIFIED, "json.duplicate_key", "success"),
    "nan_value": (Kind.UNCLASSIFIED, "json.syntax", "success"),
    "mismatched_id": (Kind.UNCLASSIFIED, "envelope.id_mismatch", "success"),
    "hang_up": (Kind.UNCLASSIFIED, "transport.closed", "no_response"),
    "malformed_json": (Kind.UNCLASSIFIED, "json.syntax", "crash"),
    "invalid_utf8": (Kind.UNCLASSIFIED, "json.encoding", "crash"),
    "slow_write": (Kind.NORMAL_COMPLETE, None, "success"),
    "write_count": (Kind.NORMAL_COMPLETE, None, "success"),
    "deferred_everywhere": (Kind.UNCLASSIFIED, "result.result_type_unknown", "success"),
}
# With no capabilities declared, these three answer differently (by hand).
HAND_UNDECLARED: dict[str, tuple[Kind, int | None]] = {
    "confirm_delete": (Kind.PROTOCOL_ERROR, -32021),
    "summarize_text": (Kind.PROTOCOL_ERROR, -32021),
    "generate_report": (Kind.NORMAL_COMPLETE, None),
}
ANSWERED = [name for name in HAND if name != "hang_up"]


def _http_module() -> Any:
    for name in ("httpx2", "httpx"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    pytest.skip("neither httpx2 nor httpx is installed")


def meta(capabilities: Mapping[str, Any] | None = None, version: str = V) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "test_demo_server", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": dict(DECLARED if capabilities is None else capabilities)}


def request(request_id: int | str, method: str, params: Mapping[str, Any] | None = None, *,
            capabilities: Mapping[str, Any] | None = None, with_meta: bool = True) -> dict[str, Any]:
    body = dict(params or {})
    if with_meta:
        body["_meta"] = meta(capabilities)
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}


def call(request_id: int | str, name: str, arguments: Mapping[str, Any] | None = None, *,
         capabilities: Mapping[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return request(request_id, "tools/call", {"name": name, "arguments": dict(arguments or {}), **extra},
                   capabilities=capabilities)


def naive(raw: bytes | None) -> str:
    """The receiver the demo shows up: parse with json, success when a result is present."""
    if raw is None:
        return "no_response"
    try:
        return "success" if "result" in json.loads(raw) else "failure"
    except ValueError:
        return "crash"


def demo_arguments(name: str) -> dict[str, Any]:
    arguments = dict(CATALOGUE_BY_NAME[name].arguments)
    if name == "slow_echo":
        arguments["seconds"] = 0.05  # the demo waits 2 s; the tests do not
    return arguments


def verdict_of(raw: bytes, request_id: int | str, capabilities: Mapping[str, Any] | None = None,
               version: str = V) -> Any:
    caps = DECLARED if capabilities is None else capabilities
    extensions = DEMO_EXTENSIONS if TASKS in caps.get("extensions", {}) else ()
    return classify(raw, version=version, request_id=request_id, client_capabilities=caps, extensions=extensions)


def check_expected(name: str, raw: bytes | None, request_id: int) -> None:
    kind, why, conclusion = HAND[name]
    assert naive(raw) == naive_conclusion(raw) == conclusion
    assert raw is not None
    verdict = verdict_of(raw, request_id)
    assert verdict.kind is kind, (name, verdict.findings, raw[:300])
    if isinstance(why, int):
        assert verdict.error_code == why
    elif why is not None:
        assert why in [f.code for f in verdict.findings]
    assert decide(verdict).action == CATALOGUE_BY_NAME[name].expected.action


# --- raw stdio ------------------------------------------------------------------------------


class StdioPeer:
    """The stdio server as a subprocess, spoken to in raw lines."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(stdio_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        self.ids = itertools.count(1)
        self._threads = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._drain, daemon=True)]
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self.lines.put(line.removesuffix(b"\n"))
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(iter(self.proc.stderr.readline, b""))

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode())

    def recv(self, timeout: float = TIMEOUT) -> bytes | None:
        """The next line; None when stdout ended. Fails the test when nothing comes in time."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no line from the stdio server within {timeout} s; stderr: {b''.join(self.stderr)!r}")

    def exchange(self, message: Mapping[str, Any]) -> bytes:
        self.send(message)
        line = self.recv()
        assert line is not None, b"".join(self.stderr)
        return line

    def close(self) -> int:
        """Close stdin (the spec's shutdown signal) and wait; kill only if it does not exit."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
            pytest.fail("the stdio server did not exit when its stdin closed")
        finally:
            for thread in self._threads:
                thread.join(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def stdio() -> Iterator[StdioPeer]:
    peer = StdioPeer()
    yield peer
    assert peer.close() == 0
    assert peer.proc.poll() is not None


# --- raw HTTP -------------------------------------------------------------------------------


class HttpPeer:
    """The HTTP server, spoken to in raw POSTs with the standard headers of a 2026 client."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.httpx = _http_module()
        self.client = self.httpx.Client(timeout=TIMEOUT)
        self.ids = itertools.count(1)

    def post(self, message: Any, headers: Mapping[str, str] | None = None, *, standard: bool = True,
             timeout: float = TIMEOUT) -> Any:
        sent = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if standard and isinstance(message, dict) and "method" in message:
            sent["mcp-method"] = message["method"]
            params = message.get("params") or {}
            version = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
            if version is not None:
                sent["mcp-protocol-version"] = version
            if "name" in params:
                sent["mcp-name"] = params["name"]
            if "taskId" in params:
                sent["mcp-name"] = params["taskId"]
        sent.update(headers or {})
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        return self.client.post(self.url, content=body, headers=sent, timeout=timeout)


@pytest.fixture(scope="module")
def http() -> Iterator[HttpPeer]:
    with serve_http_in_thread() as url:
        peer = HttpPeer(url)
        yield peer
        peer.client.close()
    _assert_stopped(url)


def _assert_stopped(url: str) -> None:
    httpx = _http_module()
    with pytest.raises(httpx.TransportError):
        httpx.post(url, content=b"{}", timeout=2)
    assert not [t for t in threading.enumerate() if t.name == f"demo-http {url}"]


# --- the catalogue --------------------------------------------------------------------------


def test_catalogue_lists_every_tool_in_order_and_agrees_with_the_hand_table() -> None:
    assert [t.name for t in CATALOGUE] == [t.name for t in TOOLS] == list(HAND)
    for tool in CATALOGUE:
        kind, why, conclusion = HAND[tool.name]
        assert (tool.expected.kind, tool.expected.naive) == (kind, conclusion), tool.name
        assert (tool.expected.error_code if isinstance(why, int) else tool.expected.finding) == why, tool.name
        undeclared = tool.expected_for({})
        otherwise = (kind, tool.expected.error_code)
        assert (undeclared.kind, undeclared.error_code) == HAND_UNDECLARED.get(tool.name, otherwise)
        assert tool.expected_for(DECLARED) is tool.expected


# --- every tool, over both transports -------------------------------------------------------


@pytest.mark.parametrize("name", ANSWERED)
def test_every_tool_over_stdio(stdio: StdioPeer, name: str) -> None:
    request_id = next(stdio.ids)
    stdio.send(call(request_id, name, demo_arguments(name)))
    check_expected(name, stdio.recv(), request_id)


@pytest.mark.parametrize("name", ANSWERED)
def test_every_tool_over_http(http: HttpPeer, name: str) -> None:
    request_id = next(http.ids)
    response = http.post(call(request_id, name, demo_arguments(name)))
    check_expected(name, response.content, request_id)
    assert response.headers["content-type"] == "application/json"
    assert response.status_code == (400 if name == "add_integers" else 200)


@pytest.mark.parametrize("name", sorted(HAND_UNDECLARED))
def test_without_declared_capabilities(http: HttpPeer, name: str) -> None:
    request_id = next(http.ids)
    response = http.post(call(request_id, name, demo_arguments(name), capabilities={}))
    verdict = verdict_of(response.content, request_id, {})
    kind, code = HAND_UNDECLARED[name]
    assert verdict.kind is kind
    assert verdict.error_code == code
    assert decide(verdict).action == CATALOGUE_BY_NAME[name].expected_for({}).action
    assert response.status_code == (400 if code is not None else 200)


def test_missing_capability_is_32021_with_the_required_capabilities(stdio: StdioPeer) -> None:
    no_form: dict[str, Any] = {"elicitation": {"url": {}}, "sampling": {}}
    for name, capabilities, required in (("confirm_delete", no_form, {"elicitation": {"form": {}}}),
                                         ("summarize_text", {"elicitation": {}}, {"sampling": {}})):
        request_id = next(stdio.ids)
        raw = stdio.exchange(call(request_id, name, demo_arguments(name), capabilities=capabilities))
        verdict = verdict_of(raw, request_id, capabilities)
        assert verdict.kind is Kind.PROTOCOL_ERROR
        assert verdict.error_code == -32021
        assert verdict.error_data == {"requiredCapabilities": required}
        decision = decide(verdict)
        assert decision.action == "add_capability"
        assert decision.capabilities == required


def test_content_check_decides_the_complete_results(http: HttpPeer) -> None:
    listed = {t["name"]: t for t in json.loads(http.post(request(1, "tools/list")).content)["result"]["tools"]}
    for tool in CATALOGUE:
        if tool.expected.kind is not Kind.NORMAL_COMPLETE or tool.checked_action is None:
            continue
        request_id = next(http.ids)
        verdict = verdict_of(http.post(call(request_id, tool.name, demo_arguments(tool.name))).content, request_id)
        assert decide(evaluate(verdict, listed[tool.name])).action == tool.checked_action, tool.name


# --- discovery and listing ------------------------------------------------------------------


def test_discover_shape(stdio: StdioPeer) -> None:
    message = json.loads(stdio.exchange(request(next(stdio.ids), "server/discover")))
    result = message["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == [V]
    assert result["capabilities"] == {"tools": {}, "extensions": {TASKS: {}}}
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-verdict-demo"
    assert isinstance(result["instructions"], str)
    assert result["ttlMs"] >= 0
    assert result["cacheScope"] in ("public", "private")


def test_tools_list_shape(http: HttpPeer) -> None:
    response = http.post(request(next(http.ids), "tools/list"))
    result = json.loads(response.content)["result"]
    assert result["resultType"] == "complete"
    assert result["ttlMs"] >= 0
    assert result["cacheScope"] == "public"
    tools = {tool["name"]: tool for tool in result["tools"]}
    assert list(tools) == list(HAND)
    for tool in tools.values():
        assert tool["inputSchema"]["type"] == "object"
        assert isinstance(tool["description"], str)
        assert isinstance(tool["annotations"]["readOnlyHint"], bool)
    for name in ("get_forecast", "get_note", "add_integers", "count_open_tickets", "summarize_text", "slow_echo"):
        assert tools[name]["annotations"]["readOnlyHint"] is True
        assert "destructiveHint" not in tools[name]["annotations"]
    assert tools["create_note"]["annotations"] | {"title": None} == {
        "title": None, "readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
        "openWorldHint": False}
    assert tools["confirm_delete"]["annotations"]["destructiveHint"] is True
    assert tools["confirm_delete"]["annotations"]["idempotentHint"] is True
    for name in ("get_forecast", "count_open_tickets", "create_note", "get_note", "generate_report"):
        assert tools[name]["outputSchema"]["type"] == "object"


# --- protocol errors ------------------------------------------------------------------------


def test_missing_meta_fields_are_32602(stdio: StdioPeer, http: HttpPeer) -> None:
    no_meta = request(7, "tools/list", with_meta=False)
    half = request(8, "tools/list", with_meta=False)
    half["params"]["_meta"] = {"io.modelcontextprotocol/protocolVersion": V}
    for message in (no_meta, half):
        raw = stdio.exchange(message)
        verdict = classify(raw, version=V, request_id=message["id"])
        assert (verdict.kind, verdict.error_code) == (Kind.PROTOCOL_ERROR, -32602)
        response = http.post(message)
        assert response.status_code == 400
        assert json.loads(response.content)["error"]["code"] == -32602
    assert "clientCapabilities" in json.loads(raw)["error"]["message"]


def test_unsupported_version_is_32022(stdio: StdioPeer, http: HttpPeer) -> None:
    message = request(9, "tools/list")
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
    raw = stdio.exchange(message)
    error = json.loads(raw)["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supported": [V], "requested": "2099-01-01"}
    decision = decide(classify(raw, version=V, request_id=9))
    assert (decision.action, decision.version) == ("renegotiate", V)
    response = http.post(message)
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["data"]["requested"] == "2099-01-01"


def test_unknown_tool_and_unknown_method(stdio: StdioPeer, http: HttpPeer) -> None:
    error = json.loads(stdio.exchange(call(10, "no_such_tool")))["error"]
    assert (error["code"], error["message"]) == (-32602, "Unknown tool: no_such_tool")
    assert json.loads(stdio.exchange(request(11, "resources/list")))["error"]["code"] == -32601
    response = http.post(request(12, "prompts/list"))
    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == -32601


def test_malformed_requests_over_stdio(stdio: StdioPeer) -> None:
    for line in (b"this is not json", b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"v":NaN}}',
                 b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"s":"caf\xe9"}}',
                 # a lone surrogate escape is no Unicode text (RFC 8259 s8.2): it was an internal error
                 b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast",'
                 b'"arguments":{"city":"\\ud800"}}}'):
        stdio.send_raw(line)
        message = json.loads(stdio.recv() or b"null")
        assert message["id"] is None
        assert message["error"]["code"] == -32700
    for bad in ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, [1, 2],
                {"jsonrpc": "1.0", "id": 3, "method": "tools/list"}):
        stdio.send(bad)  # type: ignore[arg-type]
        assert json.loads(stdio.recv() or b"null")["error"]["code"] == -32600


# --- multi round-trip requests and the requestState -----------------------------------------


def _first_round(peer: StdioPeer, name: str) -> tuple[dict[str, Any], str]:
    request_id = next(peer.ids)
    raw = peer.exchange(call(request_id, name, demo_arguments(name)))
    verdict = verdict_of(raw, request_id)
    assert verdict.kind is Kind.INPUT_REQUIRED
    state = verdict.request_state
    assert isinstance(state, str)
    return json.loads(raw)["result"], state


def test_elicitation_round_trip_completes(stdio: StdioPeer) -> None:
    result, state = _first_round(stdio, "confirm_delete")
    request = result["inputRequests"]["confirm_delete"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    retry_id = next(stdio.ids)
    answer = dict(CATALOGUE_BY_NAME["confirm_delete"].input_responses or {})
    raw = stdio.exchange(call(retry_id, "confirm_delete", demo_arguments("confirm_delete"),
                              inputResponses=answer, requestState=state))
    verdict = verdict_of(raw, retry_id)
    assert verdict.kind is Kind.NORMAL_COMPLETE
    assert verdict.structured_content == {"path": "/tmp/report.txt", "deleted": True, "answer": "accept"}
    declined = stdio.exchange(call(next(stdio.ids), "confirm_delete", demo_arguments("confirm_delete"),
                                   inputResponses={"confirm_delete": {"action": "decline"}}, requestState=state))
    assert json.loads(declined)["result"]["structuredContent"]["deleted"] is False


def test_sampling_round_trip_completes(stdio: StdioPeer) -> None:
    result, state = _first_round(stdio, "summarize_text")
    assert result["inputRequests"]["summary"]["method"] == "sampling/createMessage"
    retry_id = next(stdio.ids)
    raw = stdio.exchange(call(retry_id, "summarize_text", demo_arguments("summarize_text"),
                              inputResponses=dict(CATALOGUE_BY_NAME["summarize_text"].input_responses or {}),
                              requestState=state))
    verdict = verdict_of(raw, retry_id)
    assert verdict.kind is Kind.NORMAL_COMPLETE
    assert verdict.structured_content == {"summary": "Results can lie.", "model": "demo-model"}


def test_a_retry_without_the_answer_is_asked_again(stdio: StdioPeer) -> None:
    _, state = _first_round(stdio, "confirm_delete")
    retry_id = next(stdio.ids)
    raw = stdio.exchange(call(retry_id, "confirm_delete", demo_arguments("confirm_delete"),
                              inputResponses={}, requestState=state))
    assert verdict_of(raw, retry_id).kind is Kind.INPUT_REQUIRED


def _tampered(state: str) -> list[str]:
    version, payload, mac = state.split(".")
    raw = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[-2] ^= 1
    forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    return [f"{version}.{forged}.{mac}", f"{version}.{payload}.{mac[:-2]}AA", state[:-1], "v1.e30.AAAA", "",
            "not a state", "v1.é.x"]


def test_a_tampered_request_state_is_32602(stdio: StdioPeer) -> None:
    _, state = _first_round(stdio, "confirm_delete")
    answer = dict(CATALOGUE_BY_NAME["confirm_delete"].input_responses or {})
    for bad in _tampered(state):
        request_id = next(stdio.ids)
        raw = stdio.exchange(call(request_id, "confirm_delete", demo_arguments("confirm_delete"),
                                  inputResponses=answer, requestState=bad))
        verdict = verdict_of(raw, request_id)
        assert (verdict.kind, verdict.error_code) == (Kind.PROTOCOL_ERROR, -32602), bad
        assert "requestState" in (verdict.error_message or "")
    # the genuine state still works afterwards
    assert json.loads(stdio.exchange(call(next(stdio.ids), "confirm_delete", demo_arguments("confirm_delete"),
                                          inputResponses=answer, requestState=state)))["result"]["resultType"] \
        == "complete"


def test_a_request_state_only_fits_its_own_request(stdio: StdioPeer) -> None:
    _, state = _first_round(stdio, "confirm_delete")
    answer = dict(CATALOGUE_BY_NAME["confirm_delete"].input_responses or {})
    other_arguments = call(next(stdio.ids), "confirm_delete", {"path": "/etc/passwd"}, inputResponses=answer,
                           requestState=state)
    other_tool = call(next(stdio.ids), "summarize_text", demo_arguments("summarize_text"),
                      inputResponses=dict(CATALOGUE_BY_NAME["summarize_text"].input_responses or {}),
                      requestState=state)
    for message in (other_arguments, other_tool):
        assert json.loads(stdio.exchange(message))["error"]["code"] == -32602


def test_request_state_is_keyed_per_process_and_expires() -> None:
    now = [1_000_000.0]
    first, second = DemoServer(clock=lambda: now[0]), DemoServer(clock=lambda: now[0])
    asked = first.handle(call(1, "confirm_delete", {"path": "/a"}))
    state = json.loads(asked.body or b"")["result"]["requestState"]
    retry = call(2, "confirm_delete", {"path": "/a"}, requestState=state,
                 inputResponses={"confirm_delete": {"action": "accept", "content": {"confirm": True}}})
    assert json.loads(second.handle(retry).body or b"")["error"]["code"] == -32602  # another key
    assert "result" in json.loads(first.handle(retry).body or b"")
    now[0] += 601
    expired = json.loads(first.handle(retry).body or b"")["error"]
    assert (expired["code"], "expired" in expired["message"]) == (-32602, True)


def test_bad_input_responses_are_32602() -> None:
    server = DemoServer()
    state = json.loads(server.handle(call(1, "summarize_text", {"text": "x"})).body or b"")["result"]["requestState"]
    for responses in ({"summary": "no"}, {"summary": {"role": "user", "content": {"type": "text", "text": "x"}}},
                      {"summary": {"role": "assistant", "content": {"type": "image"}}}):
        reply = server.handle(call(2, "summarize_text", {"text": "x"}, inputResponses=responses, requestState=state))
        assert json.loads(reply.body or b"")["error"]["code"] == -32602
    reply = server.handle(call(3, "summarize_text", {"text": "x"}, inputResponses=[], requestState=state))
    assert json.loads(reply.body or b"")["error"]["code"] == -32602


# --- tasks ----------------------------------------------------------------------------------


def test_task_polling_then_the_inlined_result(http: HttpPeer) -> None:
    request_id = next(http.ids)
    raw = http.post(call(request_id, "generate_report", {"title": "Q3", "polls": 2, "poll_interval_ms": 5})).content
    verdict = verdict_of(raw, request_id)
    assert verdict.kind is Kind.TASK
    created = json.loads(raw)["result"]
    assert {"resultType", "taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= set(created)
    assert (created["resultType"], created["status"], created["pollIntervalMs"]) == ("task", "working", 5)
    assert verdict.task is not None and verdict.task.task_id == created["taskId"]
    statuses = []
    for _ in range(3):
        polled = http.post(request(next(http.ids), "tasks/get", {"taskId": created["taskId"]}))
        assert polled.status_code == 200
        got = json.loads(polled.content)["result"]
        assert got["resultType"] == "complete"
        assert got["taskId"] == created["taskId"]
        statuses.append(got["status"])
    assert statuses == ["working", "working", "completed"]
    inlined = got["result"]
    assert inlined["resultType"] == "complete"
    wrapped = json.dumps({"jsonrpc": "2.0", "id": 1, "result": inlined}).encode()
    report = verdict_of(wrapped, 1)
    assert report.kind is CATALOGUE_BY_NAME["generate_report"].follow_up.kind  # type: ignore[union-attr]
    assert report.structured_content == {"title": "Q3", "pages": 12}


def test_task_cancel(stdio: StdioPeer) -> None:
    request_id = next(stdio.ids)
    created = json.loads(stdio.exchange(call(request_id, "generate_report", {"polls": 5})))["result"]
    ack = json.loads(stdio.exchange(request(next(stdio.ids), "tasks/cancel", {"taskId": created["taskId"]})))
    assert ack["result"]["resultType"] == "complete"
    got = json.loads(stdio.exchange(request(next(stdio.ids), "tasks/get", {"taskId": created["taskId"]})))
    assert (got["result"]["status"], "result" in got["result"]) == ("cancelled", False)
    for method in ("tasks/get", "tasks/cancel"):
        error = json.loads(stdio.exchange(request(next(stdio.ids), method, {"taskId": "task-nope"})))["error"]
        assert error["code"] == -32602


def test_tasks_expire_after_their_ttl() -> None:
    now = [5_000.0]
    server = DemoServer(clock=lambda: now[0])
    created = json.loads(server.handle(call(1, "generate_report", {})).body or b"")["result"]
    now[0] += created["ttlMs"] / 1000 + 1
    reply = server.handle(request(2, "tasks/get", {"taskId": created["taskId"]}))
    assert json.loads(reply.body or b"")["error"]["code"] == -32602


# --- eventual consistency, the slow tool, cancellation --------------------------------------


def test_a_write_is_seen_by_the_read_only_after_lagged_reads(stdio: StdioPeer) -> None:
    created = json.loads(stdio.exchange(call(next(stdio.ids), "create_note", {"text": "buy milk", "lag_reads": 2})))
    note_id = created["result"]["structuredContent"]["id"]
    seen = []
    for _ in range(4):
        request_id = next(stdio.ids)
        verdict = verdict_of(stdio.exchange(call(request_id, "get_note", {"id": note_id})), request_id)
        assert verdict.kind is Kind.NORMAL_COMPLETE
        seen.append(verdict.structured_content["found"])
    assert seen == [False, False, True, True]
    assert verdict.structured_content == {"id": note_id, "found": True, "text": "buy milk"}


def test_a_write_is_seen_by_the_read_only_after_its_lag_time() -> None:
    clock = [0.0]
    server = DemoServer(monotonic=lambda: clock[0])
    created = json.loads(server.handle(call(1, "create_note", {"text": "t", "lag_reads": 0, "lag_ms": 500})).body
                         or b"")
    read = call(2, "get_note", {"id": created["result"]["structuredContent"]["id"]})
    assert json.loads(server.handle(read).body or b"")["result"]["structuredContent"]["found"] is False
    clock[0] += 0.5
    assert json.loads(server.handle(read).body or b"")["result"]["structuredContent"]["found"] is True


def test_the_slow_tool_answers_late_without_holding_up_others(stdio: StdioPeer) -> None:
    slow_id, quick_id = next(stdio.ids), next(stdio.ids)
    started = time.monotonic()
    stdio.send(call(slow_id, "slow_echo", {"text": "late", "seconds": 0.4}))
    stdio.send(request(quick_id, "server/discover"))
    first, second = stdio.recv(), stdio.recv()
    assert first is not None and json.loads(first)["id"] == quick_id
    assert second is not None and json.loads(second)["id"] == slow_id
    assert time.monotonic() - started >= 0.4
    assert verdict_of(second, slow_id).structured_content == {"text": "late", "waited_s": 0.4}


def test_a_cancelled_slow_call_sends_nothing(stdio: StdioPeer) -> None:
    slow_id, quick_id = next(stdio.ids), next(stdio.ids)
    stdio.send(call(slow_id, "slow_echo", {"seconds": 0.2}))
    stdio.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": slow_id}})
    stdio.send(request(quick_id, "server/discover"))
    assert json.loads(stdio.recv() or b"null")["id"] == quick_id
    with pytest.raises(queue.Empty):
        stdio.lines.get(timeout=0.4)


def test_the_slow_tool_times_out_a_client_over_http(http: HttpPeer) -> None:
    with pytest.raises(http.httpx.TimeoutException):
        http.post(call(next(http.ids), "slow_echo", {"seconds": 5.0}), timeout=0.2)  # 25 times the timeout
    assert http.post(request(next(http.ids), "server/discover")).status_code == 200


# --- wire faults that need their own connection or process ----------------------------------


def test_malformed_json_then_the_answer_over_stdio(stdio: StdioPeer) -> None:
    request_id = next(stdio.ids)
    stdio.send(call(request_id, "malformed_json", {"answer_after": True}))
    garbage, answer = stdio.recv(), stdio.recv()
    assert naive(garbage) == "crash"
    assert answer is not None and verdict_of(answer, request_id).kind is Kind.NORMAL_COMPLETE


def test_mismatched_id_styles(http: HttpPeer) -> None:
    for request_id, style, wrong in ((41, "type", "41"), ("42", "type", 42), (43, "other", 1_000_043),
                                     ("x", "type", "x-other")):
        raw = http.post(call(request_id, "mismatched_id", {"id_style": style})).content
        assert json.loads(raw)["id"] == wrong
        assert type(json.loads(raw)["id"]) is type(wrong)
        assert "envelope.id_mismatch" in [f.code for f in verdict_of(raw, request_id).findings]


def test_hang_up_over_http_drops_the_connection(http: HttpPeer) -> None:
    with pytest.raises(http.httpx.TransportError):
        http.post(call(next(http.ids), "hang_up"))
    assert http.post(request(next(http.ids), "server/discover")).status_code == 200


def test_legacy_session_then_hang_up_over_stdio() -> None:
    """One process: the legacy handshake (no resultType), then hang_up exits it unanswered."""
    peer = StdioPeer()
    try:
        init = json.loads(peer.exchange({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
        assert init["result"]["protocolVersion"] == "2025-11-25"
        assert init["result"]["serverInfo"]["name"] == "mcp-verdict-demo"
        assert "resultType" not in init["result"]
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = json.loads(peer.exchange({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))["result"]
        assert "resultType" not in listed and len(listed["tools"]) == len(HAND)
        raw = peer.exchange({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                             "params": {"name": "get_forecast", "arguments": {"city": "Oslo"}}})
        assert "resultType" not in json.loads(raw)["result"]
        assert classify(raw, version="2025-11-25", request_id=3).kind is Kind.NORMAL_COMPLETE
        legacy_mrtr = peer.exchange({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                     "params": {"name": "confirm_delete", "arguments": {"path": "/a"}}})
        assert classify(legacy_mrtr, version="2025-11-25", request_id=4).kind is Kind.TOOL_ERROR
        modern = peer.exchange(request(5, "server/discover"))  # modern _meta is served modern on the same process
        assert json.loads(modern)["result"]["resultType"] == "complete"
        peer.send(call(6, "hang_up"))
        assert peer.recv() is None  # stdout ended without a response
        assert peer.proc.wait(timeout=TIMEOUT) == 0
    finally:
        peer.close()
    assert peer.proc.poll() is not None


def test_stdio_answers_what_is_in_flight_then_exits_at_end_of_input() -> None:
    lines = [json.dumps(call(1, "slow_echo", {"text": "last", "seconds": 0.2})),
             json.dumps(request(2, "server/discover"))]  # the last line lacks its newline
    done = subprocess.run(stdio_command(), input="\n".join(lines).encode(), capture_output=True, timeout=TIMEOUT,
                          check=False)
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [2, 1]
    assert answers[1]["result"]["structuredContent"] == {"text": "last", "waited_s": 0.2}


# --- the HTTP edge's own rules --------------------------------------------------------------


def test_http_header_validation(http: HttpPeer) -> None:
    message = call(51, "get_forecast", {"city": "Oslo"})
    for headers in ({"mcp-method": "tools/list"}, {"mcp-protocol-version": "2025-11-25"},
                    {"mcp-name": "get_note"}):
        response = http.post(message, headers)
        assert response.status_code == 400
        assert json.loads(response.content)["error"]["code"] == -32020
    encoded = "=?base64?" + base64.b64encode(b"get_forecast").decode() + "?="
    assert http.post(message, {"mcp-name": encoded}).status_code == 200
    assert http.post(message, standard=False).status_code == 200  # absent headers are tolerated (loose)
    unsupported = request(52, "tools/list")
    unsupported["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2030-01-01"
    response = http.post(unsupported)
    assert (response.status_code, json.loads(response.content)["error"]["code"]) == (400, -32022)


def test_http_endpoint_rules(http: HttpPeer) -> None:
    client = http.client
    assert client.get(http.url).status_code == 405
    assert client.get(http.url).headers["allow"] == "POST"
    assert client.delete(http.url).status_code == 405
    assert client.post(http.url.removesuffix("/mcp") + "/other", content=b"{}").status_code == 404
    assert http.post(request(53, "server/discover"), {"origin": "https://evil.example"}).status_code == 403
    assert http.post(request(54, "server/discover"), {"origin": "http://localhost:3000"}).status_code == 200
    notified = http.post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    assert (notified.status_code, notified.content) == (202, b"")
    garbage = http.post(b"{not json")
    assert (garbage.status_code, json.loads(garbage.content)["error"]["code"]) == (400, -32700)
    assert http.url.startswith("http://127.0.0.1:")


def test_http_legacy_requests(http: HttpPeer) -> None:
    init = http.post({"jsonrpc": "2.0", "id": 61, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    assert json.loads(init.content)["result"]["protocolVersion"] == "2025-06-18"
    legacy = {"jsonrpc": "2.0", "id": 62, "method": "tools/call", "params": {"name": "charge_card",
                                                                             "arguments": {"amount_cents": 5}}}
    raw = http.post(legacy, {"mcp-protocol-version": "2025-06-18"}).content
    assert "resultType" not in json.loads(raw)["result"]
    assert classify(raw, version="2025-06-18", request_id=62).kind is Kind.TOOL_ERROR
    no_version = http.post(legacy)  # neither _meta nor a legacy header: a malformed 2026 request
    assert (no_version.status_code, json.loads(no_version.content)["error"]["code"]) == (400, -32602)


def test_serve_http_in_the_running_loop() -> None:
    httpx = _http_module()

    async def main() -> str:
        async with serve_http() as url, httpx.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.post(url, content=json.dumps(request(1, "server/discover")).encode())
            assert json.loads(response.content)["result"]["supportedVersions"] == [V]
            return str(url)

    url = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    _assert_stopped(url)


def test_the_http_command_prints_its_url_and_stops() -> None:
    proc = subprocess.Popen(http_command(0), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: lines.put(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    try:
        line = lines.get(timeout=TIMEOUT)
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:(\d+)/mcp)\n", line)
        assert found is not None, line
        assert int(found.group(2)) > 0
        response = _http_module().post(found.group(1), content=json.dumps(request(1, "server/discover")).encode(),
                                       timeout=TIMEOUT)
        assert response.status_code == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=TIMEOUT)
        reader.join(timeout=TIMEOUT)
    assert proc.poll() is not None


def test_the_official_sdk_client_works_against_it() -> None:
    """The well-behaved part interoperates with mcp 2.3.0's Client (modern, and legacy)."""
    mcp = pytest.importorskip("mcp")

    async def main(url: str) -> list[tuple[str, Any, bool | None]]:
        seen = []
        for mode in ("auto", "legacy"):
            async with mcp.Client(url, mode=mode, read_timeout_seconds=TIMEOUT, cache=None) as client:
                await client.list_tools()
                result = await client.call_tool("get_forecast", {"city": "Oslo"})
                seen.append((client.protocol_version, result.structured_content["city"], result.is_error))
        return seen

    with serve_http_in_thread() as url:
        seen = asyncio.run(asyncio.wait_for(main(url), TIMEOUT))
    assert seen == [(V, "Oslo", False), ("2025-11-25", "Oslo", False)]


def test_the_core_alone_is_sans_io() -> None:
    server = DemoServer()
    connection = Connection()
    reply = server.handle_bytes(json.dumps(call(1, "hang_up")).encode(), connection)
    assert (reply.frames, reply.close) == ((), True)
    reply = server.handle(call(2, "slow_echo", {"seconds": 1.5}))
    assert reply.delay == 1.5 and reply.body is not None
    assert server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}).frames == ()
    assert server.handle_bytes(b"\xff").error_code == -32700
    server.handle({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}},
                  connection)
    assert connection.legacy_version == "2025-11-25"

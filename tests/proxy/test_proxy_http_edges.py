"""What a careless or hostile HTTP host sends the proxy's Streamable HTTP side, on real sockets:
bodies that are no message, pretty-printed bodies over a stdio server, Host headers of a DNS
rebinding, GET streams opened and closed out of order, and a host that does not read its stream.
basic/transports/streamable-http (2025-06-18 and later): one JSON-RPC message per POST; a body the
server cannot accept gets an HTTP error status, its body a JSON-RPC error with no id; servers MUST
validate Origin (and, on localhost, the Host a rebound name carries)."""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict.frames import sse_events

from ._in_thread import http_host_in_thread
from ._peers import TIMEOUT, HttpHostPeer, call, demo_http, proxy_http, wait_until

NOTIFY = [sys.executable, str(Path(__file__).with_name("notify_server.py"))]
FORECAST = call(7, "get_forecast", {"city": "Paris"})


def _address(url: str) -> tuple[str, int, str]:
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, _, port = address.rpartition(":")
    return host, int(port), address


def _routing(body: bytes) -> dict[str, str]:
    """The ``Mcp-Method`` and ``Mcp-Name`` headers a 2026-07-28 host sends with ``body``
    (basic/transports/streamable-http, Standard Request Headers; a name that is not plain
    visible ASCII in the Base64 sentinel, Value Encoding); none for a body that is no request
    or notification."""
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return {}
    out = {"Mcp-Method": message["method"]}
    params = message.get("params")
    source = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(message["method"])
    name = params.get(source) if source is not None and isinstance(params, dict) else None
    if isinstance(name, str):
        plain = name == name.strip() and all(0x20 <= ord(c) <= 0x7E for c in name) \
            and not (name.startswith("=?base64?") and name.endswith("?="))
        out["Mcp-Name"] = name if plain else "=?base64?" + base64.b64encode(name.encode()).decode() + "?="
    return out


def _request_bytes(url: str, method: str, body: bytes = b"", headers: dict[str, str] | None = None, *,
                   routing: bool = True) -> bytes:
    """A host's request as it goes on the wire (``Connection: close``): its head, then ``body``.
    A 2026-07-28 POST gets the ``Mcp-Method`` and ``Mcp-Name`` headers a conforming host sends
    (:func:`_routing`), unless ``routing`` is False or ``headers`` gives ``Mcp-Method``."""
    _, _, address = _address(url)
    headers = headers or {}
    derived = _routing(body) if routing and method == "POST" and headers.get("MCP-Protocol-Version", "") >= "2026" \
        and not any(k.lower() == "mcp-method" for k in headers) else {}
    sent = {"Host": address, "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **derived, **headers}
    head = f"{method} /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items())
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode("latin-1") + body


def _request(url: str, method: str, body: bytes = b"", headers: dict[str, str] | None = None, *,
             routing: bool = True) -> bytes:
    """One request on a raw socket (the host's bytes as they are; ``routing``: :func:`_request_bytes`),
    its whole response."""
    host, port, _ = _address(url)
    with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
        sock.sendall(_request_bytes(url, method, body, headers, routing=routing))
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    return response


def _status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


# -- a body that is no JSON-RPC message --------------------------------------------------------
BATCH = json.dumps([call(1, "get_forecast", {"city": "Paris"}), call(2, "get_forecast", {"city": "Oslo"})]).encode()


@pytest.mark.parametrize(("body", "code"), [
    (b"", -32700),  # JSON-RPC 2.0 s5.1: parse error
    (b" \r\n\t ", -32700),
    (b"not json", -32700),
    (json.dumps(FORECAST).encode("utf-16"), -32700),  # a byte order mark, then UTF-16 (RFC 8259 s8.1: UTF-8)
    (json.dumps(FORECAST).encode("utf-16-le"), -32700),  # no mark: NUL bytes between the ASCII ones
    (json.dumps(FORECAST).encode("utf-32"), -32700),
    (b"\xef\xbb\xbf" + json.dumps(FORECAST).encode(), -32700),  # a UTF-8 byte order mark
    (b"[]", -32600),  # JSON-RPC 2.0 s6: an empty batch is an invalid request
    (BATCH, -32600),  # no batches in MCP since 2025-06-18
    (b"42", -32600),
    (b'"tools/call"', -32600),
], ids=["empty", "blanks", "not-json", "utf-16", "utf-16-le", "utf-32", "utf-8-bom", "empty-batch", "batch",
        "number", "string"])
@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_a_body_that_is_no_message_gets_400_and_is_not_forwarded(tmp_path: Path, upstream: str, body: bytes,
                                                                 code: int) -> None:
    log = tmp_path / "f.jsonl"
    with contextlib.ExitStack() as stack:
        target = ["--upstream", stack.enter_context(demo_http())] if upstream == "http" else ["--", *NOTIFY]
        url, _ = stack.enter_context(proxy_http(["--log", str(log), *target]))
        response = _request(url, "POST", body)
        answer = json.loads(response.partition(b"\r\n\r\n")[2])
        # the proxy still relays a request after it
        after = json.loads(_request(url, "POST", json.dumps(FORECAST).encode()).partition(b"\r\n\r\n")[2])
    assert (_status(response), answer["id"], answer["error"]["code"]) == (400, None, code)
    assert after["id"] == 7 and "result" in after
    host_frames = [(r["kind"], r.get("redacted", {}).get("size")) for r in _records(log)
                   if r["dir"] == "c2s" and r["kind"] in ("message", "refused")]
    assert host_frames == [("refused", len(body)), ("message", len(json.dumps(FORECAST)))]


# -- a pretty-printed body, to a server that reads one line per message ----------------------------
PRETTY = json.dumps(FORECAST, indent=2).encode()


@pytest.mark.parametrize("body", [
    PRETTY,
    PRETTY.replace(b"\n", b"\r\n"),
    PRETTY.replace(b"\n", b"\r"),
    json.dumps(FORECAST).encode() + b"\n",  # a body ending with a line break (curl -d @file)
    b"\n\n" + json.dumps(FORECAST).encode(),
], ids=["lf", "crlf", "cr", "trailing-lf", "leading-lf"])
def test_a_body_with_line_breaks_reaches_a_stdio_server_as_one_line(tmp_path: Path, body: bytes) -> None:
    log = tmp_path / "f.jsonl"
    with proxy_http(["--log", str(log), "--", *NOTIFY]) as (url, _):
        answer = json.loads(_request(url, "POST", body).partition(b"\r\n\r\n")[2])
    assert answer == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "ok"}],
                                                            "isError": False}}
    host_frames = [(r["kind"], r.get("note")) for r in _records(log) if r["dir"] == "c2s" and r["kind"] == "message"]
    assert host_frames == [("message", ONE_LINE_UP)]
    server = [r["kind"] for r in _records(log) if r["dir"] == "s2c" and r["kind"] in ("message", "error")]
    assert server == ["message"]  # its one answer: no parse error for a line that was part of the body


ONE_LINE_UP = ("written to the upstream as one line: each CR and LF between tokens a space, one inside a string "
               "(a frame no strict parser reads) a vertical tab")
VERBATIM = [sys.executable, str(Path(__file__).with_name("verbatim_server.py"))]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
UPSTREAM_TIMEOUT = -31002  # README "The proxy", the proxy's codes


# (a body with a raw line break, where it is; what the server reads; what the host gets): a raw
# CR or LF inside a string makes the frame invalid (RFC 8259 s7: control characters are escaped
# inside strings); written as a space there, the server would read a valid, repaired request
@pytest.mark.parametrize(("body", "read", "answer"), [
    (b'{"jsonrpc":"2.0","id":9,\n"method":"tools/call","params":{"name":"echo","arguments":{"t":"a b"}}}',
     b'{"jsonrpc":"2.0","id":9, "method":"tools/call","params":{"name":"echo","arguments":{"t":"a b"}}}', "answered"),
    (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"t":"a\nb"}}}',
     b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"t":"a\x0bb"}}}',
     UPSTREAM_TIMEOUT),  # (the server's strict json refuses it and answers nothing)
    (b'{"jsonrpc":"2.0","id":9,\r\n"method":"tools/call","params":{"name":"echo","arguments":{"t":"a\r\nb"}}}',
     b'{"jsonrpc":"2.0","id":9,  "method":"tools/call","params":{"name":"echo","arguments":{"t":"a\x0b\x0bb"}}}',
     UPSTREAM_TIMEOUT),
], ids=["between tokens", "inside a string", "both, CRLF"])
def test_a_raw_line_break_inside_a_string_is_never_repaired(tmp_path: Path, body: bytes, read: bytes,
                                                             answer: object) -> None:
    received = tmp_path / "received"
    with proxy_http(["--timeout", "1", "--", "env", f"VERBATIM_LOG={received}", *VERBATIM]) as (url, _):
        peer = HttpHostPeer(url)
        try:
            assert b'"2025-06-18"' in (peer.exchange(INIT) or b"")
            peer.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            status, raw, _events = peer.post(body, timeout=8)
        finally:
            peer.close()
    got = json.loads(raw or b"null")
    assert (status, "answered" if "result" in got else got["error"]["code"]) == (200, answer)
    assert [line for line in received.read_bytes().splitlines() if b'"id":9' in line] == [read]


# -- Host and Origin: DNS rebinding ----------------------------------------------------------------
@pytest.mark.parametrize(("method", "headers", "status"), [
    ("POST", {"Host": "127.0.0.1:{port}"}, 200),
    ("POST", {"Host": "localhost:{port}"}, 200),
    ("POST", {"Host": "[::1]:{port}"}, 200),
    ("POST", {"Host": "localhost"}, 200),
    ("POST", {"Host": "mcp.example.com"}, 200),  # named by --allow-origin
    # a page whose name was rebound to 127.0.0.1: its own name in Host, no Origin on a same-origin GET
    ("GET", {"Host": "evil.example:{port}"}, 421),
    ("POST", {"Host": "evil.example:{port}"}, 421),
    ("POST", {"Host": "localhost.evil.example:{port}"}, 421),
    ("POST", {"Host": "127.0.0.1.nip.io:{port}"}, 421),
    ("DELETE", {"Host": "evil.example", "Mcp-Session-Id": "x"}, 421),
    ("POST", {"Origin": "http://evil.example"}, 403),
    ("POST", {"Origin": "null"}, 403),
    ("POST", {"Origin": "http://localhost.evil.example"}, 403),
    ("POST", {"Origin": "http://localhost@evil.example"}, 403),
    ("POST", {"Origin": "http://localhost:{port}"}, 200),
])
def test_a_foreign_host_or_origin_is_refused_on_loopback(method: str, headers: dict[str, str], status: int) -> None:
    with proxy_http(["--allow-origin", "https://mcp.example.com", "--", *NOTIFY]) as (url, _):
        port = _address(url)[1]
        sent = {k: v.format(port=port) for k, v in headers.items()}
        if method == "GET":
            sent["Accept"] = "text/event-stream"
        response = _request(url, method, json.dumps(FORECAST).encode() if method == "POST" else b"", sent)
    assert _status(response) == status


# -- GET streams (stdio upstream: the process's unrelated messages) ----------------------------------
@contextlib.contextmanager
def _stdio_proxy_in_thread(log: str) -> Iterator[tuple[str, Any]]:
    """The HTTP host side over ``notify_server.py``, served in this process (its own thread and
    event loop): its URL and the HttpHost (the test reads which GET streams it holds)."""
    from mcp_verdict.proxy._run import ProxyOptions

    options = ProxyOptions(command=NOTIFY, listen=("127.0.0.1", 0), otel=False, log=log)
    with http_host_in_thread(options, record=True) as served:
        yield served.url, served.host


class _Get:
    """A host's GET stream on a raw socket: the SSE data it receives, read in a thread."""

    def __init__(self, url: str) -> None:
        host, port, address = _address(url)
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        self.sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.raw = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := self.sock.recv(65536):
                self.raw += chunk

    def messages(self) -> list[bytes]:
        return [e.data for e in sse_events(self.raw.partition(b"\r\n\r\n")[2]) if e.data]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join(TIMEOUT)


def _close_all(gets: list[_Get]) -> None:
    for get in gets:
        get.close()


@pytest.mark.parametrize(("opened", "closed", "receives"), [
    (2, [], 1),  # the latest GET takes the server's messages
    (2, [1], 0),  # the latest closed: the one before it, still open
    (2, [0], 1),
    (3, [1, 2], 0),  # the one before it is closed too: the first
    (2, [0, 1], None),  # none open: the message is dropped and the frame log says so
    (3, [0, 2, 1], None),
])
def test_the_server_messages_go_to_the_latest_get_stream_still_open(tmp_path: Path, opened: int, closed: list[int],
                                                                    receives: int | None) -> None:
    log = tmp_path / "f.jsonl"
    with contextlib.ExitStack() as stack:
        url, host = stack.enter_context(_stdio_proxy_in_thread(str(log)))
        gets: list[_Get] = []
        streams: list[Any] = []
        stack.callback(_close_all, gets)  # (before the proxy stops)
        for _ in range(opened):
            gets.append(_Get(url))
            assert wait_until(lambda: host._stdio.standing is not None and host._stdio.standing not in streams,
                              TIMEOUT)
            streams.append(host._stdio.standing)  # the proxy's side of this GET
        for n in closed:
            gets[n].close()
            assert wait_until(lambda n=n: streams[n].closed, TIMEOUT)  # the proxy saw it close
        answer = json.loads(_request(url, "POST", json.dumps(call(1, "notify")).encode()).partition(b"\r\n\r\n")[2])
        assert answer["id"] == 1
        if receives is not None:  # (one stream carries the message: once there, no other gets it)
            assert wait_until(lambda: bool(gets[receives].messages()), TIMEOUT)
        for get in gets:
            get.close()
        got = [[json.loads(m)["method"] for m in get.messages()] for get in gets]
    expected = [["notifications/message"] if n == receives else [] for n in range(opened)]
    assert got == expected
    notes = [r["note"] for r in _records(log) if r["kind"] == "error"]
    assert notes == ([] if receives is not None else ["no host stream to carry a frame: dropped"])


# -- a host that does not read its stream ------------------------------------------------------------
@pytest.mark.parametrize(("n", "max_frame", "some_dropped"), [
    (20, 65536, False),  # within what the stream holds: every one reaches the host
    (20_000, 65536, True),  # 20 MB of progress against a 64 KiB backlog (past what the sockets buffer)
])
def test_a_stream_its_host_does_not_read_holds_a_bounded_backlog(tmp_path: Path, n: int, max_frame: int,
                                                                  some_dropped: bool) -> None:
    log, verdicts = tmp_path / "f.jsonl", tmp_path / "v.jsonl"
    request = call(1, "flood", {"n": n})
    request["params"]["_meta"]["progressToken"] = "t"
    body = json.dumps(request).encode()
    with proxy_http(["--log", str(log), "--verdicts", str(verdicts), "--max-frame-bytes", str(max_frame),
                     "--", *NOTIFY]) as (url, _):
        host, port, address = _address(url)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before connecting: no autotuning)
        sock.settimeout(TIMEOUT)
        sock.connect((host, port))
        with sock:
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
                         f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
                         f"Connection: close\r\n\r\n".encode() + body)
            # the host reads nothing until the proxy has judged the answer (the whole flood is in)
            assert wait_until(lambda: verdicts.exists() and verdicts.read_text().count("\n") == 1, TIMEOUT)
            response = b""
            while chunk := sock.recv(1 << 20):
                response += chunk
    events = [json.loads(e.data) for e in sse_events(response.partition(b"\r\n\r\n")[2]) if e.data]
    progress = [e["params"]["progress"] for e in events if e.get("method") == "notifications/progress"]
    assert events[-1] == {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}],
                                                                "isError": False}}
    assert progress == sorted(progress)  # in order, the dropped ones left out
    dropped = [r for r in _records(log) if r["kind"] == "error"
               and r["note"].startswith("the host does not read its stream (")]
    assert (len(progress) + len(dropped), bool(dropped)) == (n, some_dropped)

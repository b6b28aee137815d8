"""A hostile or broken HTTP host against the proxy's Streamable HTTP side, on raw sockets, with
real upstreams (the demo server over stdio and over HTTP, and the hand-written servers named
where they serve):

- bodies whose answer the proxy could not tell from another host's (a stdio upstream);
- bodies that never come whole, connections with no request under way, GET streams opened
  without end;
- HTTP requests aiohttp refuses, doubled headers, an ``Accept`` in capitals;
- the HTTP status of a stdio server's error to a 2026-07-28 request;
- a host that closes its stateless request's stream;
- an ``initialize`` the proxy gives up on;
- a GET resumed with a ``Last-Event-ID`` that is no UTF-8.

basic/transports/streamable-http (2025-11-25 and 2026-07-28): one JSON-RPC message per POST; a
body the server cannot accept gets an HTTP error status and MAY carry a JSON-RPC error with no
id; servers MUST validate ``Origin`` (403 when present and invalid); a server MAY close an SSE
stream at any time; 2026-07-28: a client sends no JSON-RPC responses, an unsupported version is
400, an unknown method 404 (-32601), closing a request's response stream is its cancellation.
House rules: bad input never crashes, never hangs, never loses data; peer text reaches stderr
neutralised, never as a traceback."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mcp_verdict.demo import stdio_command
from tests.processes import port_server, stop

from ._in_thread import http_host_in_thread
from ._peers import GET_BROKEN, PROXY, TIMEOUT, call, demo_http, proxy_after, wait_until
from ._restarting import frame_records
from .test_proxy_http_edges import _address, _request, _status

V2026 = {"MCP-Protocol-Version": "2026-07-28"}
V2025 = {"MCP-Protocol-Version": "2025-06-18"}
CLOSING = [sys.executable, str(Path(__file__).with_name("closing_http_server.py"))]
LISTEN = [sys.executable, str(Path(__file__).with_name("listen_http_server.py"))]
NOTIFY = [sys.executable, str(Path(__file__).with_name("notify_server.py"))]
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


@contextlib.contextmanager
def _proxy(args: Sequence[str], stderr: Path, command: Sequence[str] = PROXY) -> Iterator[str]:
    """The proxy as its own process (``--listen 127.0.0.1:0``; ``command``: how it is started), its
    stderr written to ``stderr``: its URL."""
    with stderr.open("wb") as err:
        process = subprocess.Popen([*command, "--listen", "127.0.0.1:0", *args], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=err)
    try:
        assert wait_until(lambda: b"listening on " in stderr.read_bytes() or process.poll() is not None, TIMEOUT)
        first = stderr.read_bytes().split(b"\n", 1)[0].decode()
        assert first.startswith("mcp-verdict proxy listening on "), first
        yield first.rsplit(" ", 1)[1]
    finally:
        stop(process)


def _upstream(kind: str, stack: contextlib.ExitStack) -> list[str]:
    """The demo server as the proxy's upstream: its arguments (``stdio`` or ``http``)."""
    return ["--", *stdio_command()] if kind == "stdio" else ["--upstream", stack.enter_context(demo_http())]


def _body(response: bytes) -> Any:
    body = response.partition(b"\r\n\r\n")[2]
    return json.loads(body) if body.strip() else None


def _read_all(sock: socket.socket) -> bytes:
    """What the proxy writes on ``sock`` until it closes the connection (a socket timeout of
    ``TIMEOUT`` as the hang guard: then ``<<open>>`` ends the bytes)."""
    sock.settimeout(TIMEOUT)
    response = b""
    try:
        while chunk := sock.recv(65536):
            response += chunk
    except TimeoutError:
        return response + b"<<open>>"
    return response


def _read_answer(sock: socket.socket) -> bytes:
    """The proxy's one answer on ``sock``: its bytes up to the end of a body its ``Content-Length``
    bounds, or until the proxy closes the connection (a socket timeout of ``TIMEOUT`` as the hang
    guard: then ``<<open>>`` ends the bytes). A kept-alive connection is not waited out."""
    sock.settimeout(TIMEOUT)
    response = b""
    try:
        while chunk := sock.recv(65536):
            response += chunk
            head, sep, body = response.partition(b"\r\n\r\n")
            lengths = [line.split(b":", 1)[1] for line in head.split(b"\r\n")[1:]
                       if line.lower().startswith(b"content-length:")]
            if sep and len(lengths) == 1 and len(body) >= int(lengths[0]):
                return response
    except TimeoutError:
        return response + b"<<open>>"
    return response


# -- a body whose answer could not be told from another host's (stdio upstream) ----------------
# (the body another host POSTs, its headers; the status and JSON-RPC (id, code) it gets). The
# first host's slow_echo (id 1) is in flight meanwhile, over the one connection the stdio server
# has for every host. Before, each was written to the server with a bare 202 to its host; the
# server's error answer to it (a null id, or id 1) was taken for the first host's answer.
UNFOLLOWED = [
    (b"{garbage", V2026, 400, (None, PARSE_ERROR)),
    (b'{"x":NaN}', V2026, 400, (None, PARSE_ERROR)),
    (b'{"jsonrpc":"2.0","method":"notifications/message","params":{"v":NaN}}', V2026, 400, (None, PARSE_ERROR)),
    (b"{}", V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"method":5}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', V2025, 400, (None, INVALID_REQUEST)),
    # 2026-07-28: no JSON-RPC response from a client over HTTP (the demo answers one with -32600, id 1)
    (b'{"jsonrpc":"2.0","id":1,"result":{}}', V2026, 400, (None, INVALID_REQUEST)),
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}', V2026, 400, (None, INVALID_REQUEST)),
    # a valid notification is relayed as before (the server answers none)
    (b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}', V2026, 202, None),
]


@pytest.mark.parametrize(("body", "headers", "status", "answer"), UNFOLLOWED,
                         ids=[f"{row[0][:40].decode()}-{row[1]['MCP-Protocol-Version']}" for row in UNFOLLOWED])
def test_a_body_whose_answer_could_not_be_told_is_refused_over_a_stdio_server(
        tmp_path: Path, body: bytes, headers: dict[str, str], status: int, answer: tuple[Any, int] | None) -> None:
    log = tmp_path / "frames.jsonl"
    first: list[bytes] = []
    with _proxy(["--log", str(log), "--log-payloads", "--", *stdio_command()], tmp_path / "err") as url:
        slow = json.dumps(call(1, "slow_echo", {"text": "first", "seconds": 1.5})).encode()
        thread = threading.Thread(target=lambda: first.append(_request(url, "POST", slow, V2026)))
        thread.start()
        assert wait_until(lambda: any('"slow_echo"' in r.get("data", "") for r in frame_records(log)), TIMEOUT)
        response = _request(url, "POST", body, headers)
        thread.join(TIMEOUT)
    got = _body(response)
    assert (_status(response), (got["id"], got["error"]["code"]) if got else None) == (status, answer)
    mine = _body(first[0])  # the first host's own answer, not the server's error to the other body
    assert (_status(first[0]), mine["id"], mine["result"]["structuredContent"]) == (200, 1, {"text": "first",
                                                                                            "waited_s": 1.5})
    refused = [r for r in frame_records(log) if r["kind"] == "refused" and r["dir"] == "c2s"]
    assert len(refused) == (1 if status == 400 else 0)


# -- a body that never comes whole ------------------------------------------------------------
def _head(url: str, headers: dict[str, str]) -> bytes:
    _, _, address = _address(url)
    sent = {"Host": address, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **V2026, **headers}
    return (b"POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items()).encode() + b"\r\n")


FORECAST = json.dumps(call(7, "get_forecast", {"city": "Paris"})).encode()
CHUNK = b"%x\r\n" % 700 + b"x" * 700 + b"\r\n"
# (what the host sends before it stalls: headers, then the body's bytes; the status, the
# JSON-RPC (id, code) and the frame-log note). --timeout 1, --max-frame-bytes 1024: the body has
# the timeout to come whole, a body past the limit too to tell its size (before, the proxy
# waited for either without end, the connection and its handler held)
STALLED = [
    ({"Content-Length": str(len(FORECAST))}, FORECAST[:40], 408, (None, INVALID_REQUEST),
     "the host's POST: the request's body did not arrive within 1 s (answered HTTP 408; not forwarded)"),
    ({"Content-Length": "100"}, b"", 408, (None, INVALID_REQUEST),
     "the host's POST: the request's body did not arrive within 1 s (answered HTTP 408; not forwarded)"),
    ({"Transfer-Encoding": "chunked"}, b"%x\r\n" % len(FORECAST) + FORECAST + b"\r\n", 408, (None, INVALID_REQUEST),
     "the host's POST: the request's body did not arrive within 1 s (answered HTTP 408; not forwarded)"),
    # past the limit, then no end: its size as far as it came (its id is read from its start)
    ({"Transfer-Encoding": "chunked"}, b"%x\r\n" % (len(FORECAST) - 1) + FORECAST[:-1] + b"\r\n" + CHUNK * 2, 413,
     (7, -31003), f"at least {len(FORECAST) - 1 + 1400} bytes (the rest was not read): past the limit of 1024 bytes"),
]


@pytest.mark.parametrize("upstream", ["stdio", "http"])
@pytest.mark.parametrize(("headers", "sent", "status", "answer", "note"), STALLED,
                         ids=["short-body", "no-body", "chunked-no-end", "chunked-too-large-no-end"])
def test_a_body_slower_than_the_timeout_is_answered_and_its_connection_closed(
        tmp_path: Path, upstream: str, headers: dict[str, str], sent: bytes, status: int, answer: tuple[Any, int],
        note: str) -> None:
    log = tmp_path / "frames.jsonl"
    with contextlib.ExitStack() as stack:
        args = ["--timeout", "1", "--max-frame-bytes", "1024", "--log", str(log), *_upstream(upstream, stack)]
        url = stack.enter_context(_proxy(args, tmp_path / "err"))
        host, port, _ = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(_head(url, headers) + sent)
            response = _read_all(sock)  # (the proxy closes the connection after its answer)
        after = _request(url, "POST", FORECAST, V2026)  # it still serves
    got = _body(response.removesuffix(b"<<open>>"))
    assert (_status(response), (got["id"], got["error"]["code"]), response.endswith(b"<<open>>")) == (
        status, answer, False)
    assert _status(after) == 200
    notes = [r.get("note") for r in frame_records(log) if r["dir"] == "c2s" and r["kind"] in ("error", "refused")]
    assert notes == [note]


# -- what aiohttp refuses before the proxy reads it; doubled headers ------------------------------
# (the request's head as the host writes it (``{address}``: the proxy's); its status, and the
# exception the proxy's one stderr line names (None: no line)). Before, aiohttp's server logger
# printed a traceback for each (and an Origin it could not parse was a 500, with a traceback).
HEADS = [
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n"
     "Content-Length: 2\r\n\r\n{{}}", 400, "BadHttpMessage"),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nX-Big: " + "a" * 9000 + "\r\nContent-Length: 2\r\n\r\n{{}}", 400,
     "LineTooLong"),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nMCP-Protocol-Version: \x1b[31mred\x07\r\nContent-Length: 2\r\n\r\n{{}}",
     400, "BadHttpMessage"),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nTransfer-Encoding: chunked\r\n\r\nzz\x1b\r\n", 400,
     "BadHttpMessage"),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nOrigin: http://[evil\r\nContent-Length: 2\r\n\r\n{{}}", 403, None),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nOrigin: http://localhost\r\nOrigin: http://evil.example\r\n"
     "Content-Length: 2\r\n\r\n{{}}", 403, None),
    ("POST /mcp HTTP/1.1\r\nHost: {address}\r\nOrigin: http://evil.example\r\nOrigin: http://localhost\r\n"
     "Content-Length: 2\r\n\r\n{{}}", 403, None),
]


@pytest.mark.parametrize(("head", "status", "named"), HEADS,
                         ids=["two-content-types", "long-header", "control-characters", "bad-chunk", "bad-origin",
                              "two-origins", "two-origins-evil-first"])
def test_a_request_the_endpoint_refuses_is_one_neutral_stderr_line(tmp_path: Path, head: str, status: int,
                                                                   named: str | None) -> None:
    err = tmp_path / "err"
    with _proxy(["--", *NOTIFY], err) as url:
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(head.format(address=address).encode("latin-1"))
            response = _read_answer(sock)  # (a 403 keeps the connection alive: its answer, not the close)
        after = _request(url, "POST", json.dumps(call(1, "echo")).encode(), V2026)  # (then the line is written)
    lines = err.read_bytes().decode("utf-8", "replace").splitlines()[1:]
    assert (_status(response), _status(after)) == (status, 200)
    assert [line.split(": ", 3)[2] if named else line for line in lines] == ([named] if named else [])
    assert all(line.startswith("mcp-verdict proxy: Error handling request from 127.0.0.1: ") and line.isprintable()
               for line in lines)


# -- GET streams: Accept, and how many one session keeps -------------------------------------------
@pytest.mark.parametrize(("accept", "status"), [
    (["text/event-stream"], 200),
    (["TEXT/Event-Stream"], 200),  # media types are case-insensitive (RFC 9110 s8.3.1)
    (["application/json", "text/event-stream"], 200),  # two Accept fields, one list (RFC 9110 s5.3)
    (["application/json"], 406),
    ([], 406),
])
def test_a_get_stream_is_opened_for_an_accept_listing_an_event_stream(tmp_path: Path, accept: list[str],
                                                                      status: int) -> None:
    with _proxy(["--", *NOTIFY], tmp_path / "err") as url:
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: {address}\r\n".encode()
                         + b"".join(f"Accept: {a}\r\n".encode() for a in accept) + b"\r\n")
            sock.settimeout(TIMEOUT)
            head = sock.recv(65536)
    assert _status(head) == status


class _Stream:
    """A host's GET stream on a raw socket, read in a thread until the proxy ends it."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        host, port, address = _address(url)
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT)
        sent = {"Host": address, "Accept": "text/event-stream", "Connection": "close", **headers}
        self.sock.sendall(b"GET /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items()).encode()
                          + b"\r\n")
        self.raw = b""
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        self.sock.settimeout(None)
        with contextlib.suppress(OSError):
            while chunk := self.sock.recv(65536):
                self.raw += chunk
        self.ended.set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def _close_all(streams: list[_Stream]) -> None:
    for stream in streams:
        stream.close()


@pytest.mark.parametrize("upstream", ["stdio", "http"])
def test_the_get_streams_of_a_session_are_bounded(tmp_path: Path, upstream: str) -> None:
    """Past MAX_GETS (16) streams open for one session, the one opened first is ended (before,
    each was held while its host kept it: as many as the host had file descriptors for, each of
    an HTTP upstream's an upstream connection of the pool every host shares)."""
    extra = 3
    with contextlib.ExitStack() as stack:
        if upstream == "stdio":
            url = stack.enter_context(_proxy(["--", *NOTIFY], tmp_path / "err"))
            response = _request(url, "POST", json.dumps(INIT).encode(), V2025)
            session = response.partition(b"mcp-session-id: ")[2].partition(b"\r\n")[0].decode() or \
                response.partition(b"Mcp-Session-Id: ")[2].partition(b"\r\n")[0].decode()
        else:
            base = stack.enter_context(port_server([*LISTEN, "cut:0"]))
            url = stack.enter_context(_proxy(["--upstream", base + "/mcp"], tmp_path / "err"))
            response = _request(url, "POST", json.dumps(INIT).encode(), V2025)
            session = "s-1"
        assert _status(response) == 200 and session
        streams: list[_Stream] = []
        stack.callback(_close_all, streams)
        for _ in range(MAX_GETS + extra):
            streams.append(_Stream(url, {**V2025, "Mcp-Session-Id": session}))
            assert wait_until(lambda: b"\r\n\r\n" in streams[-1].raw, TIMEOUT)  # (its head: it is open)
        for stream in streams[:extra]:  # the first ones opened are ended, whole (a chunked end)
            assert stream.ended.wait(TIMEOUT)
        ended = [stream.ended.is_set() for stream in streams]
        heads = [_status(stream.raw) for stream in streams]
    assert (ended, heads) == ([True] * extra + [False] * MAX_GETS, [200] * (MAX_GETS + extra))


MAX_GETS = 16  # (_http_host.MAX_GETS)
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


# -- a connection kept with no request, or a head that never ends ----------------------------------
@contextlib.contextmanager
def _proxy_in_thread(keepalive: float) -> Iterator[str]:
    """The HTTP host side over ``notify_server.py`` served in this process with ``keepalive``: its URL."""
    from mcp_verdict.proxy._run import ProxyOptions

    options = ProxyOptions(command=NOTIFY, listen=("127.0.0.1", 0), otel=False)
    with http_host_in_thread(options, keepalive=keepalive) as served:
        yield served.url


@pytest.mark.parametrize("sent", [b"", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"],
                         ids=["idle", "unfinished-head"])
def test_a_connection_with_no_request_under_way_is_closed_past_the_keepalive(sent: bytes) -> None:
    """aiohttp's default holds such a connection an hour; the endpoint's is KEEPALIVE (75 s),
    given here as 0.5 s."""
    with _proxy_in_thread(0.5) as url:
        host, port, _ = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(sent)
            closed = _read_all(sock)
    assert closed == b""


# -- the status of a stdio server's error to a 2026-07-28 request ------------------------------------
def _call_with(method: str, version: str | None = "2026-07-28", meta: bool = True) -> bytes:
    message = call(3, "get_forecast", {"city": "Paris"}, version=version or "2026-07-28")
    message["method"] = method
    if not meta:
        del message["params"]["_meta"]
    return json.dumps(message).encode()


# (the body, its MCP-Protocol-Version; the status and JSON-RPC error code (None: a result)): the
# same through the proxy to the demo over stdio and over HTTP (whose own status passes through).
# 2026-07-28 basic/transports/streamable-http, Protocol Version Header; basic/index (a request
# missing its required _meta fields: -32602, 400). Before, over stdio, every one was 200.
STATUSES = [
    (_call_with("tools/call"), "2026-07-28", 200, None),
    (_call_with("tools/call", "2099-01-01"), "2099-01-01", 400, -32022),  # UnsupportedProtocolVersion
    (_call_with("no/such/method"), "2026-07-28", 404, -32601),
    (_call_with("tools/call", meta=False), "2026-07-28", 400, -32602),
]


@pytest.mark.parametrize("upstream", ["stdio", "http"])
@pytest.mark.parametrize(("body", "version", "status", "code"), STATUSES,
                         ids=["result", "unsupported-version", "unknown-method", "no-meta"])
def test_a_2026_error_answer_has_its_http_status(tmp_path: Path, upstream: str, body: bytes, version: str,
                                                status: int, code: int | None) -> None:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(_proxy(_upstream(upstream, stack), tmp_path / "err"))
        response = _request(url, "POST", body, {"MCP-Protocol-Version": version})
    got = _body(response)
    assert (_status(response), got.get("error", {}).get("code")) == (status, code)


def test_a_2025_error_answer_over_a_stdio_server_stays_200(tmp_path: Path) -> None:
    """2025: a request's JSON-RPC error is its answer (HTTP 200); only a 2026-07-28 request has
    statuses for them. (The demo, not initialised, reads a request without ``_meta`` as a
    2026-07-28 one missing its fields: -32602.)"""
    with _proxy(["--", *stdio_command()], tmp_path / "err") as url:
        body = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}).encode()
        response = _request(url, "POST", body, V2025)
    assert (_status(response), _body(response)["error"]["code"]) == (200, -32602)


# -- a host that closes its stateless request's stream (HTTP upstream) ------------------------------
# (the POST's MCP-Protocol-Version; what the upstream saw: its stream closed, and a
# notifications/cancelled POSTed under 2025). Before, the upstream's stream stayed open (the
# proxy read on until the answer came, refused as late), and no cancellation was sent.
CLOSED = [
    ("2026-07-28", ["got 7", "closed 7"]),
    ("2025-06-18", ["got 7", "closed 7", "cancelled 7"]),
]


@pytest.mark.parametrize(("version", "seen"), CLOSED, ids=[row[0] for row in CLOSED])
def test_a_stateless_request_whose_host_closes_its_stream_is_cancelled_upstream(tmp_path: Path, version: str,
                                                                                 seen: list[str]) -> None:
    log = tmp_path / "frames.jsonl"
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(port_server(CLOSING))
        url = stack.enter_context(_proxy(["--log", str(log), "--upstream", base + "/mcp"], tmp_path / "err"))
        host, port, _ = _address(url)
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                           "params": {"name": "hang", "arguments": {}}}).encode()
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(_request_head(url, body, version) + body)
            assert wait_until(lambda: httpx2.get(base + "/seen", timeout=TIMEOUT).json() == ["got 7"], TIMEOUT)
        assert wait_until(lambda: len(httpx2.get(base + "/seen", timeout=TIMEOUT).json()) >= len(seen), TIMEOUT)
        got = httpx2.get(base + "/seen", timeout=TIMEOUT).json()
    assert sorted(got) == sorted(seen)  # (the close and the notification reach the upstream in either order)


def _request_head(url: str, body: bytes, version: str) -> bytes:
    _, _, address = _address(url)
    return (f"POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {version}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()


# -- an initialize the proxy gives up on is not cancelled --------------------------------------------
SILENT = [sys.executable, "-c", "import os, sys\nwith open(os.environ['RECEIVED'], 'a') as f:\n"
          "    for line in sys.stdin:\n        f.write(line)\n        f.flush()\n"]
"""A stdio server that answers nothing and writes each line it reads to the file $RECEIVED."""
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


# (the host's side, how it is given up: at --timeout, the host closing its POST; the methods the
# server read). basic/utilities/cancellation (2024-11-05 to 2025-11-25): the initialize request
# MUST NOT be cancelled by clients — the proxy, the server's client, sent its own
# notifications/cancelled for it (between the two)
GIVEN_UP = [
    ("http", "timeout", ["initialize", "notifications/initialized"]),
    ("http", "closed", ["initialize", "notifications/initialized"]),
    ("stdio", "timeout", ["initialize", "notifications/initialized"]),
]


@pytest.mark.parametrize(("side", "how", "read"), GIVEN_UP, ids=[f"{s}-{h}" for s, h, _ in GIVEN_UP])
def test_an_initialize_given_up_is_not_cancelled(tmp_path: Path, side: str, how: str, read: list[str]) -> None:
    from ._peers import LinePeer

    received = tmp_path / "received"
    received.touch()
    server = ["env", f"RECEIVED={received}", *SILENT]
    init = json.dumps(INIT).encode()
    if side == "stdio":
        peer = LinePeer([*PROXY, "--timeout", "1", "--", *server])
        try:
            assert json.loads(peer.exchange(INIT) or b"null")["error"]["code"] == -31002
            peer.send_raw(INITIALIZED + b"\n")
            assert wait_until(lambda: received.read_text().count("\n") >= 2, TIMEOUT)
        finally:
            peer.close()
    else:
        with _proxy(["--timeout", "1" if how == "timeout" else "60", "--", *server], tmp_path / "err") as url:
            if how == "timeout":
                assert _body(_request(url, "POST", init, V2025))["error"]["code"] == -31002
            else:
                host, port, _ = _address(url)
                with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
                    sock.sendall(_request_head(url, init, "2025-06-18") + init)
                    assert wait_until(lambda: received.read_text().count("\n") >= 1, TIMEOUT)
            assert _status(_request(url, "POST", INITIALIZED, V2025)) == 202
            assert wait_until(lambda: received.read_text().count("\n") >= 2, TIMEOUT)
    assert [json.loads(line)["method"] for line in received.read_text().splitlines()] == read


# -- a Last-Event-ID that is no UTF-8 ---------------------------------------------------------------
# (the host's Last-Event-ID bytes, on a GET of its session through an HTTP upstream whose stream
# sends "one"). The host's stream carries the upstream's event; before, a Last-Event-ID whose
# bytes are no UTF-8 (aiohttp reads them as lone surrogates) broke the host's stream once open
# (UnicodeEncodeError writing the event's id, a traceback on stderr)
@pytest.mark.parametrize("last", [b"e-1", "\u00e9t\u00e9".encode(), b"\xff\xfe", b"x" * 8000],
                         ids=["ascii", "utf-8", "no-utf-8", "long"])
def test_a_get_resumed_with_any_last_event_id_carries_the_upstreams_events(tmp_path: Path, last: bytes) -> None:
    err = tmp_path / "err"
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(port_server([*LISTEN, "cut:0"]))
        url = stack.enter_context(_proxy(["--upstream", base + "/mcp"], err))
        assert _status(_request(url, "POST", json.dumps(INIT).encode(), V2025)) == 200
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n"
                         f"MCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: s-1\r\n".encode()
                         + b"Last-Event-ID: " + last + b"\r\n\r\n")
            sock.settimeout(TIMEOUT)
            raw = b""
            while b'"one"' not in raw and (chunk := sock.recv(65536)):
                raw += chunk
    assert (_status(raw), b'"data": "one"' in raw, err.read_bytes().count(b"\n")) == (200, True, 1)


# -- an answer before the body came whole: the connection closed, the rest unread ------------------
_MIB = 1 << 20
_MORE = 64 * _MIB
"""Bytes the host sends on after its answer: past every socket buffer on the loopback (the
kernel's ``tcp_rmem`` ceiling is 32 MiB, ``tcp_wmem`` 4 MiB), so all of them go only to a
proxy that reads them."""
_PIECE = b"x" * 65536
_CHUNKED_PIECE = b"%x\r\n" % len(_PIECE) + _PIECE + b"\r\n"
_HUGE = {"Content-Length": str(1 << 40)}
_CHUNKED = {"Transfer-Encoding": "chunked"}
# (the request line, its headers besides Host and the 2026-07-28 ones, what the host sends of the
# body before it stalls (or as it reads the answer); the status it is answered). --timeout 1,
# --max-frame-bytes 1024. After the answer the host sends on, 64 MiB: the proxy closes the
# connection (the host's send fails) — before, aiohttp read (and dropped) the rest for 10 s after
# the answer (its lingering_time), 64 MiB in far less, the connection held that long
EARLY = [
    ("POST /mcp", _HUGE, FORECAST[:40], 408),  # a body slower than --timeout
    ("POST /mcp", _CHUNKED, b"%x\r\n" % len(FORECAST) + FORECAST + b"\r\n", 408),  # chunked without its end
    ("POST /mcp", _CHUNKED, b"%x\r\n" % (len(FORECAST) - 1) + FORECAST[:-1] + b"\r\n" + CHUNK * 2, 413),  # too large
    ("POST /mcp", {**_HUGE, "Origin": "http://evil.example"}, FORECAST[:40], 403),  # an Origin refused
    ("POST /mcp", {**_HUGE, "Host": "evil.example"}, FORECAST[:40], 421),  # a Host refused
    ("POST /elsewhere", _HUGE, FORECAST[:40], 404),  # another path
    ("PUT /mcp", _HUGE, FORECAST[:40], 405),
    ("DELETE /mcp", _HUGE, FORECAST[:40], 400),  # no Mcp-Session-Id (a stdio upstream)
    ("GET /elsewhere", _HUGE, b"", 404),
    ("GET /mcp", {**_HUGE, "Accept": "application/json"}, b"", 406),  # an Accept without text/event-stream
    # what aiohttp refuses itself (a header line past 8190 bytes, a chunk size no hex number): its
    # 400 closed the connection at once before too (it reads no body of a request it cannot parse)
    ("POST /mcp", {**_HUGE, "X-Big": "a" * 9000}, FORECAST[:40], 400),
    ("POST /mcp", _CHUNKED, b"zz\x1b\r\n", 400),
]


def _early_head(address: str, line: str, headers: dict[str, str]) -> bytes:
    sent = {"Host": address, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **V2026, **headers}
    return (line + " HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items()) + "\r\n").encode()


def _sent_on(sock: socket.socket, piece: bytes) -> str:
    """The host sends ``_MORE`` bytes of ``piece`` after its answer: ``closed`` when the proxy
    closed the connection first (a send fails), ``read`` when it took them all, ``held`` when it
    neither reads nor closes (the send blocks past ``TIMEOUT``)."""
    sent = 0
    try:
        while sent < _MORE:
            sock.sendall(piece)
            sent += len(piece)
    except TimeoutError:
        return "held"
    except OSError:  # (EPIPE, ECONNRESET: the proxy's end is closed)
        return "closed"
    return "read"


@contextlib.contextmanager
def _early_proxy(where: str, tmp_path: Path) -> Iterator[str]:
    """The proxy over ``notify_server.py`` with --timeout 1 and --max-frame-bytes 1024: its own
    process (``process``, uvloop when installed), or served in this process on plain asyncio."""
    if where == "process":
        with _proxy(["--timeout", "1", "--max-frame-bytes", "1024", "--", *NOTIFY], tmp_path / "err") as url:
            yield url
        return
    from mcp_verdict.proxy._run import ProxyOptions

    options = ProxyOptions(command=NOTIFY, listen=("127.0.0.1", 0), otel=False, timeout=1.0, max_frame=1024)
    with http_host_in_thread(options) as served:
        yield served.url


@pytest.mark.parametrize("where", ["process", "asyncio"])
@pytest.mark.parametrize(("line", "headers", "sent", "status"), EARLY,
                         ids=["slow-body", "chunked-no-end", "chunked-too-large-no-end", "origin-refused",
                              "host-refused", "other-path", "put", "delete-body", "get-other-path",
                              "get-no-event-stream", "long-header", "bad-chunk"])
def test_an_answer_before_the_body_came_whole_closes_the_connection_unread(
        tmp_path: Path, where: str, line: str, headers: dict[str, str], sent: bytes, status: int) -> None:
    with _early_proxy(where, tmp_path) as url:
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(_early_head(address, line, headers) + sent)
            answer = _read_answer(sock)
            more = _sent_on(sock, _CHUNKED_PIECE if "Transfer-Encoding" in headers else _PIECE)
        after = _request(url, "POST", json.dumps(call(1, "echo")).encode(), V2026)  # it still serves
    assert (_status(answer), more, _status(after)) == (status, "closed", 200)


def test_a_fault_while_forwarding_a_hosts_get_answers_it(tmp_path: Path) -> None:
    """A host's GET in a 2025 session, forwarded to the HTTP upstream's stream: a fault as the
    proxy opens it answers the host's GET 502 with UPSTREAM_UNAVAILABLE (-31004), says it on
    stderr and in the frame log. Was: the forwarding task died and the host's GET waited for an
    answer that never came (held until the host gave up)."""
    err, log = tmp_path / "err", tmp_path / "frames.jsonl"
    with contextlib.ExitStack() as stack:
        base = stack.enter_context(port_server([*LISTEN, "cut:0"]))
        url = stack.enter_context(_proxy(["--log", str(log), "--upstream", base + "/mcp"], err,
                                         proxy_after(GET_BROKEN)))
        assert _status(_request(url, "POST", json.dumps(INIT).encode(), V2025)) == 200
        host, port, address = _address(url)
        with socket.create_connection((host, port), timeout=TIMEOUT) as sock:
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n"
                         "MCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: s-1\r\nConnection: close\r\n\r\n"
                         .encode())
            raw = _read_all(sock)
    reason = "the proxy failed opening the upstream's stream: RuntimeError: get broken"
    assert (_status(raw), _body(raw)["error"]["code"], _body(raw)["error"]["data"]["reason"]) == (502, -31004, reason)
    assert err.read_bytes().split(b"\n")[1:] == [b"mcp-verdict proxy: the host's GET: " + reason.encode(), b""]
    assert [r["note"] for r in frame_records(log) if r["kind"] == "error"] == [
        f"the host's GET: {reason} (answered HTTP 502)"]

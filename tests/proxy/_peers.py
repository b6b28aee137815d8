"""The peers of the proxy tests: the proxy as a process (stdio or HTTP host side), the demo
server as its upstream (stdio or HTTP), and a naive host that reads answers as raw bytes."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx2

from mcp_verdict.demo import DEMO_CLIENT_CAPABILITIES, http_command, stdio_command
from mcp_verdict.frames import sse_events
from tests.processes import stop

V = "2026-07-28"
TIMEOUT = 20.0
DECLARED: dict[str, Any] = json.loads(json.dumps(dict(DEMO_CLIENT_CAPABILITIES)))
PROXY = [sys.executable, "-c", "from mcp_verdict.cli import main; main()", "proxy"]


def proxy_after(prelude: str) -> list[str]:
    """The proxy's command with ``prelude`` run first in its process (a library's fault simulated)."""
    return [sys.executable, "-c", prelude + "from mcp_verdict.cli import main; main()", "proxy"]


GET_BROKEN = ("import aiohttp\n"
              "def _get(*args, **kwargs):\n"
              "    raise RuntimeError('get broken')\n"
              "aiohttp.ClientSession.get = _get\n")
"""A prelude: an aiohttp whose session's GET raises (a fault of the library's, or of the proxy's,
as it opens a stream)."""


def call(request_id: int | str, name: str, arguments: Mapping[str, Any] | None = None,
         capabilities: Mapping[str, Any] | None = None, version: str = V, **extra: Any) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "proxy-tests", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": dict(DECLARED if capabilities is None else capabilities)}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": dict(arguments or {}), "_meta": meta, **extra}}


def naive(raw: bytes | None) -> str:
    """The naive host: json.loads, success when "result" in response."""
    if raw is None:
        return "no_response"
    try:
        return "success" if "result" in json.loads(raw) else "failure"
    except ValueError:
        return "crash"


class LinePeer:
    """A process spoken to in lines on stdin/stdout (a stdio host's view)."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._err, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip(b"\n"))
        self.lines.put(None)

    def _err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def recv(self, timeout: float = TIMEOUT) -> bytes | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def lines_within(self, seconds: float) -> Iterator[bytes]:
        """The lines the process writes, until ``seconds`` have passed or its stdout ends."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                raw = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return
            if raw is None:
                return
            yield raw

    def exchange(self, message: Mapping[str, Any], timeout: float = TIMEOUT) -> bytes | None:
        self.send(message)
        return self.recv(timeout)

    def close(self, timeout: float = 15.0) -> int:
        with contextlib.suppress(BrokenPipeError, OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        for reader in self._readers:  # what the process wrote is all read
            reader.join(5)
        return status


class HttpHostPeer:
    """A naive HTTP host: POSTs a message, takes the JSON body or the SSE stream's last message."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx2.Client(timeout=TIMEOUT)
        self.session: str | None = None

    def post(self, message: Mapping[str, Any] | bytes, headers: Mapping[str, str] | None = None,
             timeout: float = TIMEOUT) -> tuple[int, bytes | None, list[bytes]]:
        """(status, the answer's bytes or None, every SSE message before it)."""
        sent = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        read: Any = message
        if isinstance(message, bytes):  # (bytes a parser reads get the Mcp-Method/Mcp-Name a host sends too)
            try:
                read = json.loads(message)
            except ValueError:
                read = None
        if isinstance(read, Mapping) and (isinstance(message, Mapping) or isinstance(read.get("method"), str)):
            sent["mcp-method"] = str(read.get("method"))
            params = read.get("params")
            params = params if isinstance(params, Mapping) else {}
            meta = params.get("_meta")
            version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, Mapping) else None
            if version and isinstance(message, Mapping):
                sent["mcp-protocol-version"] = version
            name = params.get("name")
            if isinstance(name, str):
                plain = name == name.strip() and all(0x20 <= ord(c) <= 0x7E for c in name) \
                    and not (name.startswith("=?base64?") and name.endswith("?="))
                sent["mcp-name"] = name if plain else "=?base64?" + base64.b64encode(
                    name.encode("utf-8", "surrogatepass")).decode() + "?="
        if self.session:
            sent["mcp-session-id"] = self.session
        sent.update(headers or {})
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        response = self.client.post(self.url, content=body, headers=sent, timeout=timeout)
        if response.headers.get("mcp-session-id"):
            self.session = response.headers["mcp-session-id"]
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            events = [e.data for e in sse_events(response.content)]
            return response.status_code, events[-1] if events else None, events[:-1]
        return response.status_code, response.content or None, []

    def exchange(self, message: Mapping[str, Any], timeout: float = TIMEOUT) -> bytes | None:
        return self.post(message, timeout=timeout)[1]

    def close(self) -> None:
        self.client.close()


def _wait_for(pattern: bytes, stream: Any, timeout: float = 30.0) -> bytes:
    found: queue.Queue[bytes] = queue.Queue()

    def read() -> None:
        for line in stream:
            match = re.search(pattern, line)
            if match:
                found.put(match.group(1))
                break
        for _ in stream:  # keep draining so the process never blocks on a full pipe
            pass

    threading.Thread(target=read, daemon=True).start()
    return found.get(timeout=timeout)


@contextlib.contextmanager
def demo_http() -> Iterator[str]:
    """The demo server over HTTP on 127.0.0.1, as its own process."""
    process = subprocess.Popen(http_command(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        url = _wait_for(rb"listening on (http://\S+)", process.stdout).decode()
        yield url
    finally:
        process.terminate()
        process.wait(10)


@contextlib.contextmanager
def styled_http(style: str) -> Iterator[str]:
    """``styled_server.py`` (a hand-written HTTP upstream answering in ``style``) on 127.0.0.1."""
    with script_http("styled_server.py", style) as url:
        yield url


@contextlib.contextmanager
def script_http(script: str, *args: str) -> Iterator[str]:
    """A hand-written HTTP upstream of this folder that prints ``listening on URL`` (``script``,
    run with ``args``) on 127.0.0.1, as its own process. Its URL."""
    server = os.path.join(os.path.dirname(__file__), script)
    process = subprocess.Popen([sys.executable, server, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        yield _wait_for(rb"listening on (http://\S+)", process.stdout).decode()
    finally:
        process.terminate()
        process.wait(10)


@contextlib.contextmanager
def proxy_http_before(pair: str, args: Sequence[str]) -> Iterator[str]:
    """The proxy serving HTTP to the host in front of the demo server: over HTTP when ``pair`` is
    ``"http-http"``, else over stdio. Its URL."""
    from mcp_verdict.demo import stdio_command

    if pair == "http-http":
        with demo_http() as upstream, proxy_http([*args, "--upstream", upstream]) as (url, _):
            yield url
    else:
        with proxy_http([*args, "--", *stdio_command()]) as (url, _):
            yield url


@contextlib.contextmanager
def proxy_http(args: Sequence[str]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The proxy serving HTTP to the host (--listen 127.0.0.1:0), as its own process."""
    process = subprocess.Popen([*PROXY, "--listen", "127.0.0.1:0", *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = _wait_for(rb"listening on (http://\S+)", process.stderr).decode()
        yield url, process
    finally:
        stop(process)


@contextlib.contextmanager
def host_through(side: str, options: Sequence[str], exit_file: Path
                 ) -> Iterator[tuple[LinePeer | HttpHostPeer, subprocess.Popen[bytes]]]:
    """The proxy as its own process (``options``) and a naive host speaking to it on ``side``
    (``"http"`` or ``"stdio"``), with the proxy's process. On the way out the host is closed; a
    stdio host first touches ``exit_file`` (``restart_server.py`` ends on it), then closes the
    proxy's stdin."""
    if side == "http":
        with proxy_http(options) as (url, process):
            http_peer = HttpHostPeer(url)
            try:
                yield http_peer, process
            finally:
                http_peer.close()
        return
    line_peer = LinePeer([*PROXY, *options])
    try:
        yield line_peer, line_peer.process
    finally:
        exit_file.touch()
        line_peer.close()


@contextlib.contextmanager
def host(pair: str, args: Sequence[str] = (), upstream: Sequence[str] | None = None,
         http_upstream: Callable[[], contextlib.AbstractContextManager[str]] | None = None
         ) -> Iterator[LinePeer | HttpHostPeer]:
    """A naive host speaking to the demo server through the proxy, over ``pair``
    (``stdio-stdio``, ``stdio-http``, ``http-stdio``, ``http-http``); ``upstream``: another
    stdio server's command, ``http_upstream``: another HTTP server (a context giving its URL)."""
    side, _, up = pair.partition("-")
    with contextlib.ExitStack() as stack:
        if up == "http":
            url = stack.enter_context((http_upstream or demo_http)())
            target = ["--upstream", url]
        else:
            target = ["--", *(upstream or stdio_command())]
        if side == "stdio":
            peer = LinePeer([*PROXY, *args, *target])
            stack.callback(peer.close)
            yield peer
        else:
            proxy_url, _ = stack.enter_context(proxy_http([*args, *target]))
            http_peer = HttpHostPeer(proxy_url)
            stack.callback(http_peer.close)
            yield http_peer


PAIRS = ("stdio-stdio", "stdio-http", "http-stdio", "http-http")


def wait_until(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())

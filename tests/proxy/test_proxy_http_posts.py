"""Which upstream POSTs go off aiohttp's ClientSession (``proxy/_http_posts``): a plain http URL
without credentials, on the aiohttp version the module is tested with. Anything else goes
through the session, as every POST did before (README, "The proxy", Design and stack)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest

from mcp_verdict.proxy import UPSTREAM_UNAVAILABLE
from mcp_verdict.proxy._http_posts import Posts, posts_for

from ._peers import LinePeer, call, demo_http, proxy_after

# (URL, aiohttp version; whether the POSTs go off the session)
CASES = [
    ("http://127.0.0.1:8080/mcp", "3.14.5", True),
    ("http://upstream.example/mcp?tenant=a", "3.14.0", True),
    ("https://upstream.example/mcp", "3.14.5", False),  # TLS: the session's connector
    ("http://user:pw@127.0.0.1:8080/mcp", "3.14.5", False),  # credentials: the session's auth
    ("http://127.0.0.1:8080/mcp", "3.13.2", False),  # another version: its internals untested
    ("http://127.0.0.1:8080/mcp", "3.15.0", False),
    ("http://127.0.0.1:8080/mcp", "4.0.0a1", False),
    ("http://127.0.0.1:8080/mcp", "3.14.dev0", True),  # (3.14 all the same)
    ("http://127.0.0.1:8080/mcp", "three", False),
    ("not a url", "3.14.5", False),
]


@pytest.mark.parametrize(("url", "version", "off"), CASES)
def test_which_posts_go_off_the_session(url: str, version: str, off: bool) -> None:
    async def go() -> bool:
        async with aiohttp.ClientSession() as client:
            return posts_for(url, client, limit=4, connect=1.0, version=version) is not None

    assert asyncio.run(go()) is off


# (the connection limit, the POSTs sent at once; the most connections the upstream saw at once,
# how many POSTs went off the session (None from ``post``: the caller's session would send them))
LIMIT_CASES = [
    (2, 2, 2, 2),
    (2, 5, 2, 5),  # was: 2 and 2 (the three past the limit went through the session: 5 connections)
    (1, 4, 1, 4),
]


@pytest.mark.parametrize(("limit", "sent", "most", "off"), LIMIT_CASES)
def test_posts_past_the_connection_limit_wait_for_a_free_connection(limit: int, sent: int, most: int,
                                                                    off: int) -> None:
    """A POST that finds ``limit`` connections carrying POSTs waits for one to be given back, as
    the session's connector waits at its limit; the upstream never sees more than ``limit``
    connections from the proxy's POSTs (README "The proxy", Design and stack: one upstream
    connection pool, kept-alive)."""
    from aiohttp import web

    async def go() -> tuple[int, int, list[bytes]]:
        open_now: set[object] = set()
        peak = 0
        release = asyncio.Event()

        async def handle(request: web.BaseRequest) -> web.Response:
            nonlocal peak
            open_now.add(request.transport)
            peak = max(peak, len(open_now))
            body = await request.read()
            await release.wait()
            return web.Response(body=body, content_type="application/json")

        runner = web.ServerRunner(web.Server(handle, access_log=None))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            async with aiohttp.ClientSession() as client:
                posts = posts_for(f"http://127.0.0.1:{port}/mcp", client, limit=limit, connect=5.0)
                assert posts is not None

                async def one(n: int) -> bytes | None:
                    answer = await posts.post(b'{"n":%d}' % n, {"Content-Type": "application/json"})
                    if answer is None:
                        return None
                    async with answer:
                        return await answer.read()

                tasks = [asyncio.create_task(one(n)) for n in range(sent)]
                for _ in range(200):  # until the first ones reached the upstream (or went elsewhere)
                    await asyncio.sleep(0.01)
                    if len(open_now) >= min(limit, sent) or any(t.done() for t in tasks):
                        break
                release.set()
                bodies = await asyncio.wait_for(asyncio.gather(*tasks), 20)
                posts.close()
        finally:
            await runner.cleanup()
        return peak, sum(body is not None for body in bodies), [body or b"" for body in bodies]

    peak, went, bodies = asyncio.run(go())
    assert (peak, went) == (most, off)
    assert bodies == [b'{"n":%d}' % n for n in range(sent)]


# (the connection limit, the POSTs sent at once, whether the first is cancelled while it connects;
# what each POST came to: "session" (None from ``post``: no connection could be opened, the
# caller's session sends it and fails as it would), "cancelled", or "waiting" (still waiting for a
# connection: the POSTs past the limit waited for a room that a failed connect never gave back)
REFUSED_CASES = [
    (1, 2, False, ["session", "session"]),
    (1, 3, False, ["session", "session", "session"]),
    (2, 5, False, ["session"] * 5),
    (1, 2, True, ["cancelled", "session"]),
    (1, 3, True, ["cancelled", "session", "session"]),
]


@pytest.mark.parametrize(("limit", "sent", "cancel_first", "outcomes"), REFUSED_CASES)
def test_a_connection_that_could_not_be_opened_lets_the_next_waiting_post_try(
        limit: int, sent: int, cancel_first: bool, outcomes: list[str]) -> None:
    """An upstream that refuses connections (nothing listens on its port): each POST that cannot
    open one returns None, as when it is alone (the module's docstring); a POST waiting at the
    limit behind one whose connect failed, or was cancelled, is not left waiting."""
    import socket

    async def go() -> list[str]:
        with socket.socket() as unused:  # a port nothing listens on
            unused.bind(("127.0.0.1", 0))
            port = unused.getsockname()[1]
        async with aiohttp.ClientSession() as client:
            posts = posts_for(f"http://127.0.0.1:{port}/mcp", client, limit=limit, connect=5.0)
            assert posts is not None
            tasks = []
            for _ in range(sent):
                tasks.append(asyncio.create_task(posts.post(b"{}", {"Content-Type": "application/json"})))
                await asyncio.sleep(0)  # (each begins in turn: the first ones connecting, the others waiting)
            if cancel_first:
                tasks[0].cancel()
            await asyncio.wait(tasks, timeout=20)  # (a bound on the test, not a measure)
            got = ["waiting" if not t.done() else "cancelled" if t.cancelled() else
                   "session" if t.result() is None else "sent" for t in tasks]
            posts.close()  # (the ones still waiting go through the session)
            await asyncio.gather(*tasks, return_exceptions=True)
            return got

    assert asyncio.run(go()) == outcomes


# (how the upstream answers A: "kept" (the connection kept alive) or "closed" (``Connection:
# close``: its room freed, not the connection); whether B is cancelled as its turn comes; the
# POSTs in the order the upstream got them)
TURN_CASES = [
    ("kept", False, [b"A", b"B", b"C"]),  # was A, C, B: C took the connection B was woken for
    ("closed", False, [b"A", b"B", b"C"]),  # was A, C, B: C opened one in the room B was woken for
    ("kept", True, [b"A", b"C"]),  # B's turn passes to C
    ("closed", True, [b"A", b"C"]),
]


@pytest.mark.parametrize(("a_answer", "cancel_b", "order"), TURN_CASES)
def test_posts_waiting_at_the_connection_limit_go_in_their_order(a_answer: str, cancel_b: bool,
                                                                 order: list[bytes]) -> None:
    """A limit of one connection: A holds it, B waits for it, and C comes as A gives it back
    (in the same step, before B could run). B goes first — the connection given back, or the room
    to open one when A's was closed, is handed to the POST that waited first, so that under
    sustained load no POST waits for ever behind newer ones (the module's docstring: first come,
    first served). A waiting POST cancelled once its turn came passes it on to the next."""

    async def go() -> tuple[list[bytes], list[bytes | None]]:
        got: list[bytes] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:  # (kept alive: one request after another on the connection)
                    head = await reader.readuntil(b"\r\n\r\n")
                    length = next(int(line.partition(b":")[2]) for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length:"))
                    body = await reader.readexactly(length)
                    got.append(body)
                    close = a_answer == "closed" and body == b"A"
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
                                 % (len(body), b"Connection: close\r\n" if close else b"", body))
                    await writer.drain()
                    if close:
                        break
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        headers = {"Content-Type": "application/json"}
        try:
            async with aiohttp.ClientSession() as client:
                posts = posts_for(f"http://127.0.0.1:{port}/mcp", client, limit=1, connect=5.0)
                assert posts is not None

                async def one(body: bytes) -> bytes | None:
                    answer = await posts.post(body, headers)
                    if answer is None:
                        return None
                    async with answer:
                        return await answer.read()

                a = await posts.post(b"A", headers)  # (A's answer came: A holds the connection)
                assert a is not None
                a_body = await a.read()
                b = asyncio.create_task(one(b"B"))
                await asyncio.sleep(0)  # (B's first step: it waits for the connection)
                a.release()  # the connection, or its room, to B...
                if cancel_b:
                    b.cancel()  # (...as B is cancelled: to C)
                async with asyncio.timeout(20):  # (a bound on the test, not a measure; no task of its own)
                    c = await one(b"C")  # ...as C comes, in this step
                results = await asyncio.gather(b, return_exceptions=True)
                posts.close()
        finally:
            server.close()
            await server.wait_closed()
        b_body = None if isinstance(results[0], BaseException) else results[0]
        return got, [a_body, b_body, c]

    got, answers = asyncio.run(go())
    assert got == order
    assert answers == [b"A", None if cancel_b else b"B", b"C"]


# (what the upstream writes on each connection as it is opened, before any request; the answers
# to the POSTs sent one after the other through the proxy's session)
FIRST_CASES = [
    (b"", [b"1", b"2", b"3"]),  # (the connection kept alive and reused)
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", [b"first"]),  # (a connection just opened is not
    # checked: the server that writes first gets its request, as from aiohttp, never a loop of connects)
]


@pytest.mark.parametrize(("greeting", "answers"), FIRST_CASES)
def test_the_sessions_connector_checks_only_the_connections_it_reuses(greeting: bytes, answers: list[bytes]) -> None:
    """``_http_upstream.CheckedConnector`` closes an idle connection the upstream wrote on instead
    of reusing it (``test_proxy_upstream_hostile``); one just opened it hands out as it is."""
    from mcp_verdict.proxy._http_upstream import client_session

    async def go() -> tuple[list[bytes], int]:
        opened = 0

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal opened
            opened += 1
            writer.write(greeting)
            try:
                while True:
                    head = await reader.readuntil(b"\r\n\r\n")
                    length = next(int(line.partition(b":")[2]) for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length:"))
                    body = await reader.readexactly(length)
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        got = []
        try:
            async with client_session(4, 5.0, cookies=True) as client, asyncio.timeout(20):  # (a bound, not a measure)
                for n in range(1, len(answers) + 1):
                    async with client.post(f"http://127.0.0.1:{port}/mcp", data=b"%d" % n) as response:
                        got.append(await response.read())
        finally:
            server.close()
            await server.wait_closed()
        return got, opened

    got, opened = asyncio.run(go())
    assert (got, opened) == (answers, 1)


# The bytes of each POST as the upstream reads them, POSTs one after the other on one kept-alive
# connection (RFC 9112 s3, s6.2: a request line, its fields, CRLF, a body of Content-Length
# bytes). (the body, the headers given; the request's bytes, ``{port}`` the upstream's port.) The
# fields as aiohttp's ClientRequest writes them: Host first (a Host given replaces it, where
# Host stands), the headers in their order, Content-Length last (a Content-Length given is
# replaced where it stands). Those of a POST with the same headers as the one before are the
# same bytes but for the Content-Length.
_JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
WIRE_CASES = [
    (b'{"n":1}', _JSON_HEADERS,
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
     b"Accept: application/json, text/event-stream\r\nContent-Length: 7\r\n\r\n{\"n\":1}"),
    (b'{"n":10}', _JSON_HEADERS,
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
     b"Accept: application/json, text/event-stream\r\nContent-Length: 8\r\n\r\n{\"n\":10}"),
    (b'{"n":100}', _JSON_HEADERS,
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
     b"Accept: application/json, text/event-stream\r\nContent-Length: 9\r\n\r\n{\"n\":100}"),
    (b'{"n":2}', {"Content-Type": "application/json", "host": "upstream.example", "Mcp-Session-Id": "s-1"},
     b"POST /mcp?t=a HTTP/1.1\r\nhost: upstream.example\r\nContent-Type: application/json\r\n"
     b"Mcp-Session-Id: s-1\r\nContent-Length: 7\r\n\r\n{\"n\":2}"),
    (b'{"n":3}', {"Content-Length": "999", "X-After": "1"},
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 7\r\nX-After: 1\r\n\r\n{\"n\":3}"),
    (b'{"n":44}', {"Content-Length": "999", "X-After": "1"},
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 8\r\nX-After: 1\r\n\r\n{\"n\":44}"),
    (b'{"n":5}', _JSON_HEADERS,
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
     b"Accept: application/json, text/event-stream\r\nContent-Length: 7\r\n\r\n{\"n\":5}"),
    (b"", {"X-Empty": ""},
     b"POST /mcp?t=a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Empty: \r\nContent-Length: 0\r\n\r\n"),
]


@contextlib.asynccontextmanager
async def _posts_to(serve: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
                    path: str) -> AsyncIterator[tuple[Posts, int]]:
    """A raw upstream on 127.0.0.1 answering with ``serve``, and the proxy's POSTs to ``path``
    on it (one connection at most), with the upstream's port."""
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with aiohttp.ClientSession() as client:
            posts = posts_for(f"http://127.0.0.1:{port}{path}", client, limit=1, connect=5.0)
            assert posts is not None
            yield posts, port
    finally:
        server.close()
        await server.wait_closed()


def test_each_post_goes_upstream_as_its_bytes_on_one_connection() -> None:
    """Each POST's request line, fields and body, byte for byte as the upstream read them, on the
    one connection they all went on; each got its own answer."""

    async def go() -> tuple[list[bytes], int, list[bytes], int]:
        seen: list[bytes] = []
        connections = 0
        ended = asyncio.Event()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            connections += 1
            try:
                while True:
                    try:
                        head = await reader.readuntil(b"\r\n\r\n")
                    except asyncio.IncompleteReadError:
                        break
                    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length:"))
                    body = await reader.readexactly(length)
                    seen.append(head + body)
                    answer = b'{"seen":%d}' % len(seen)
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                                 b"\r\n%s" % (len(answer), answer))
                    await writer.drain()
            finally:
                writer.close()
                ended.set()

        answers: list[bytes] = []
        async with _posts_to(serve, "/mcp?t=a") as (posts, port):
            for body, headers, _ in WIRE_CASES:
                answer = await asyncio.wait_for(posts.post(body, headers), 20)
                assert answer is not None
                async with answer:
                    answers.append(await asyncio.wait_for(answer.read(), 20))
            posts.close()  # (the connection closed: the upstream's reading ends)
            await asyncio.wait_for(ended.wait(), 20)
        return seen, port, answers, connections

    seen, port, answers, connections = asyncio.run(go())
    assert seen == [wire.replace(b"{port}", b"%d" % port) for _, _, wire in WIRE_CASES]
    assert answers == [b'{"seen":%d}' % n for n in range(1, len(WIRE_CASES) + 1)]
    assert connections == 1


# (headers holding a CR or LF; the POSTs sent with them, each refused before a byte is written)
REFUSED_HEADER_CASES = [
    ({"X-Bad": "a\r\nX-Injected: 1"}, 2),
    ({"X-Bad\n": "a"}, 2),
]


@pytest.mark.parametrize(("headers", "sent"), REFUSED_HEADER_CASES)
def test_a_header_holding_a_line_break_is_refused_on_every_post(headers: dict[str, str], sent: int) -> None:
    """A field holding CR or LF would end the field early (RFC 9112 s2.2, a header injected):
    aiohttp's serialiser refuses it (ValueError), on each POST, and the upstream reads nothing
    of it; a POST after them with plain headers goes as usual."""

    async def go() -> tuple[list[str], list[bytes], int]:
        seen: list[bytes] = []
        ended = asyncio.Event()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    try:
                        head = await reader.readuntil(b"\r\n\r\n")
                    except asyncio.IncompleteReadError as exc:
                        if exc.partial:
                            seen.append(exc.partial)
                        break
                    seen.append(head + await reader.readexactly(2))
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                    await writer.drain()
            finally:
                writer.close()
                ended.set()

        errors: list[str] = []
        async with _posts_to(serve, "/mcp") as (posts, port):
            for _ in range(sent):
                try:
                    await asyncio.wait_for(posts.post(b"{}", headers), 20)
                except ValueError:
                    errors.append("ValueError")
            answer = await asyncio.wait_for(posts.post(b"{}", {"X-Good": "1"}), 20)
            assert answer is not None
            async with answer:
                assert await asyncio.wait_for(answer.read(), 20) == b"{}"
            posts.close()
            await asyncio.wait_for(ended.wait(), 20)
        return errors, seen, port

    errors, seen, port = asyncio.run(go())
    assert errors == ["ValueError"] * sent
    assert seen == [b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Good: 1\r\nContent-Length: 2\r\n\r\n{}" % port]



_HIDDEN = ("import sys, types, aiohttp.http_writer as w\n"
           "shown = types.ModuleType(w.__name__)\n"
           "shown.__dict__.update((k, v) for k, v in vars(w).items() if k != '_serialize_headers')\n"
           "sys.modules[w.__name__] = shown\n")
"""An aiohttp whose ``http_writer`` does not offer ``_serialize_headers`` to an importer (its own
code still calls its own)."""
_BROKEN = "import aiohttp.http_writer as w; del w._serialize_headers\n"
"""An aiohttp that lacks it for its own code too: its session's every request raises NameError."""


def test_an_aiohttp_without_its_head_serialiser_sends_every_post_through_the_session() -> None:
    """``_serialize_headers`` is aiohttp's private name: an aiohttp that does not offer it still
    imports the proxy, which sends every upstream POST through the session (the module's
    ``_tested``). Was: ``ImportError`` on importing ``proxy._http_posts``, so no HTTP upstream."""
    probe = _HIDDEN + (
        "import asyncio, aiohttp\n"
        "from mcp_verdict.proxy._http_posts import posts_for\n"
        "async def go():\n"
        "    async with aiohttp.ClientSession() as client:\n"
        "        print(posts_for('http://127.0.0.1:8080/mcp', client, limit=4, connect=1.0, version='3.14.5'))\n"
        "asyncio.run(go())\n")
    done = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"None\n", b"")


# (the aiohttp, what the host's call gets: the sum, or the error code and the stderr line)
FAULT_CASES = [
    (_HIDDEN, {"sum": 5}, None),
    # was: no answer until --timeout (UPSTREAM_TIMEOUT, -31002), nothing on stderr
    (_BROKEN, UPSTREAM_UNAVAILABLE,
     b"mcp-verdict proxy: the proxy failed sending the request upstream: NameError: "
     b"name '_serialize_headers' is not defined\n"),
]


@pytest.mark.parametrize(("prelude", "expected", "line"), FAULT_CASES, ids=["hidden", "broken"])
def test_a_call_through_the_proxy_to_an_http_server_on_an_odd_aiohttp(prelude: str, expected: object,
                                                                       line: bytes | None) -> None:
    """A stdio host's call through the proxy to the demo server over HTTP (README, "The proxy"):
    the demo's answer when the serialiser is only hidden from the proxy; when a fault of the
    HTTP library (or the proxy's own) stops the POST, the host's error at once and one stderr
    line saying which, never a wait for --timeout in silence."""
    with demo_http() as url:
        peer = LinePeer([*proxy_after(prelude), "--mode", "enforce", "--timeout", "120", "--upstream", url])
        try:
            raw = peer.exchange(call(7, "add_integers", {"a": 2, "b": 3}), timeout=60)
        finally:
            status = peer.close()
    assert raw is not None
    message = json.loads(raw)
    got = message["result"]["structuredContent"] if "result" in message else message["error"]["code"]
    assert (message["id"], got, status) == (7, expected, 0)
    if line is not None:
        assert b"".join(peer.stderr) == line


def test_a_fault_while_posting_a_hosts_notification_is_said() -> None:
    """A stdio host's 2025-06-18 session through the proxy to the demo server over HTTP on an
    aiohttp whose session cannot send (the ``_BROKEN`` install): each request is answered at once
    with UPSTREAM_UNAVAILABLE, and the host's notification, which no answer can carry to a stdio
    host, is said on stderr. Was: the notification's task died unseen (nothing said anywhere)."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "proxy-tests", "version": "0"}}}
    with demo_http() as url:
        peer = LinePeer([*proxy_after(_BROKEN), "--mode", "enforce", "--timeout", "120", "--upstream", url])
        try:
            first = peer.exchange(initialize, timeout=60)
            peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            second = peer.exchange({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, timeout=60)
        finally:
            status = peer.close()
    codes = [json.loads(raw)["error"]["code"] if raw is not None else None for raw in (first, second)]
    assert (codes, status) == ([UPSTREAM_UNAVAILABLE, UPSTREAM_UNAVAILABLE], 0)
    fault = b"NameError: name '_serialize_headers' is not defined\n"
    assert sorted(peer.stderr) == [
        b"mcp-verdict proxy: the host's frame: the proxy failed sending it upstream: " + fault,
        b"mcp-verdict proxy: the proxy failed sending the request upstream: " + fault,
        b"mcp-verdict proxy: the proxy failed sending the request upstream: " + fault,
    ]


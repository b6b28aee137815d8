"""Which upstream POSTs go off aiohttp's ClientSession (``proxy/_http_posts``): a plain http URL
without credentials, on the aiohttp version the module is tested with. Anything else goes
through the session, as every POST did before (README, "The proxy", Design and stack)."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from mcp_verdict.proxy._http_posts import posts_for

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

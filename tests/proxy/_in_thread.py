"""The proxy's HTTP host side served in the test's own process, on its own thread and event loop
(127.0.0.1, a free port), for the tests that read what it holds (sessions, relays, GET streams)
or give it what its command line does not (``max_sessions``, ``keepalive``)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ._peers import TIMEOUT, wait_until

T = TypeVar("T")


@dataclass
class Served:
    url: str
    host: Any
    """The ``HttpHost`` serving ``url``."""
    loop: asyncio.AbstractEventLoop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """``coroutine`` run on the proxy's loop: its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(TIMEOUT)


@contextlib.contextmanager
def http_host_in_thread(options: Any, *, record: bool = False, **serve_options: Any) -> Iterator[Served]:
    """``proxy._http_host.serve`` with ``options`` (a ``ProxyOptions``; ``record``: with the
    recorder its ``--log`` options make, closed at the end) and ``serve_options``, until the
    ``with`` block ends."""
    from mcp_verdict.proxy._http_host import HttpHost, serve
    from mcp_verdict.proxy._run import make_recorder

    loop = asyncio.new_event_loop()
    bound: list[str] = []
    hosts: list[HttpHost] = []
    tasks: list[asyncio.Task[int]] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        recorder = make_recorder(options) if record else None
        task = loop.create_task(serve(options, recorder, None, bound, hosts=hosts, **serve_options))
        tasks.append(task)
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(task)
        if recorder is not None:
            recorder.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert wait_until(lambda: bool(bound), TIMEOUT)
        yield Served(bound[0], hosts[0], loop)
    finally:
        if tasks:
            loop.call_soon_threadsafe(tasks[0].cancel)
        thread.join(TIMEOUT)
        loop.close()

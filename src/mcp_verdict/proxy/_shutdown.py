"""Stopping on a signal, for both host sides: SIGTERM and SIGINT set an event, and the calls in
flight get a grace before each one still waiting is answered with UPSTREAM_CLOSED."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator, Sequence

from ._bridge import Bridge


@contextlib.contextmanager
def stop_signals(stop: asyncio.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` while inside (without a handler either signal ends the
    process before anything is judged or written); nothing where the loop cannot take handlers
    (not the main thread, not POSIX)."""
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    try:
        yield
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)


async def wind_down(bridges: Callable[[], Sequence[Bridge]], grace: float,
                    ended: Callable[[], bool] = lambda: False) -> None:
    """The calls in flight on ``bridges`` (asked again each turn: a bridge may come or go) get
    ``grace`` seconds to be answered; each one still waiting then gets UPSTREAM_CLOSED and its
    cancellation upstream. Nothing once ``ended`` (the upstream is gone: its own fault answers
    them)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while any(b.relay.in_flight for b in bridges()) and loop.time() < deadline and not ended():
        await asyncio.sleep(0.02)
    if ended():
        return
    for bridge in bridges():
        if bridge.relay.in_flight:
            bridge.stopping(f"the proxy was stopped before the upstream answered (within {grace:g} s)")

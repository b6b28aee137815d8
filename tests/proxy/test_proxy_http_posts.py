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

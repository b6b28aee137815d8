"""The real broken_answers server (tests/servers/broken_answers.py) for the tap's tables, over the
tap's stdio transport and over Streamable HTTP on the tap's recorded client: one place for how
the tables start it and reach it.

A test module serves it over HTTP once with a module fixture of its own::

    @pytest.fixture(scope="module")
    def url() -> Iterator[str]:
        yield from serve_http()
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_verdict import VerdictTap

from ..processes import port_server

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "tests.servers.broken_answers"]


def serve_http() -> Iterator[str]:
    """The server over Streamable HTTP: its URL while the generator is open (it stops when its
    stdin closes)."""
    with port_server([*SERVER, "http"], cwd=ROOT) as base:
        yield f"{base}/mcp"


@asynccontextmanager
async def streams(tap: VerdictTap, transport: str, url: str) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams of a connection the tap records; the write stream the tap's."""
    if transport == "stdio":
        async with tap.stdio_transport(SERVER[0], [*SERVER[1:], "stdio"], cwd=ROOT) as (read, write):
            yield read, write
        return
    async with tap.http_client() as http, streamable_http_client(url, http_client=http) as (read, write):
        yield read, tap.write_stream(write, http.mcp_verdict_conn)


@asynccontextmanager
async def client_of(tap: VerdictTap, transport: str, url: str) -> AsyncIterator[Client]:
    """The SDK's ``Client`` on a connection the tap records."""
    if transport == "stdio":
        async with Client(tap.stdio_transport(SERVER[0], [*SERVER[1:], "stdio"], cwd=ROOT)) as client:
            yield client
        return
    async with tap.http_client() as http, Client(streamable_http_client(url, http_client=http)) as client:
        yield client

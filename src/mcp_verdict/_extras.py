"""The optional parts of mcp-verdict, and the one-line message when one is not installed.

``pip install mcp-verdict`` is the core (the verdict, the judgement, the corpus, the kit and
the CLI's ``classify``, ``conform`` and ``mutants``); every edge that needs a larger stack is
an extra, and imports that stack only when it is used. :func:`require` checks an extra before
its edge imports anything, so a missing or too old stack is one clear message, not a traceback
from deep inside an import.
"""

from __future__ import annotations

import importlib.util
from typing import Final, NamedTuple


class Needs(NamedTuple):
    module: str
    """The top-level module that must be importable."""
    distribution: str = ""
    """Its distribution on PyPI, when a minimum major version applies."""
    min_major: int = 0


EXTRAS: Final[dict[str, tuple[Needs, ...]]] = {
    "client": (Needs("mcp", "mcp", 2), Needs("httpx2"), Needs("anyio")),
    "otel": (Needs("opentelemetry"),),
    "fastmcp": (Needs("fastmcp", "fastmcp", 4), Needs("mcp", "mcp", 2), Needs("httpx2")),
    "pydantic-ai": (Needs("pydantic_ai"), Needs("mcp", "mcp", 2), Needs("httpx2")),
    "openai-agents": (Needs("agents"), Needs("mcp", "mcp", 2), Needs("httpx2")),
    "langchain": (Needs("langchain_mcp_adapters"), Needs("langchain_core"), Needs("mcp", "mcp", 1), Needs("httpx")),
    "proxy": (Needs("aiohttp"),),
    "audit": (Needs("pyarrow", "pyarrow", 16),),
    "spark": (Needs("pyarrow", "pyarrow", 16), Needs("pyspark", "pyspark", 3)),
}
"""Each extra, and what its presence is checked by."""


class MissingExtra(ImportError):
    """An optional part of mcp-verdict was used without its extra installed."""

    def __init__(self, extra: str, what: str, why: str) -> None:
        self.extra = extra
        super().__init__(f"{what} needs the [{extra}] extra ({why}): pip install 'mcp-verdict[{extra}]'")


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtra` naming ``extra`` unless everything it brings is importable."""
    for needs in EXTRAS[extra]:
        if importlib.util.find_spec(needs.module) is None:
            raise MissingExtra(extra, what, f"module {needs.module!r} is not installed")
        if needs.min_major:
            from importlib import metadata  # here: ~20-50 ms (email, zipfile) that other commands need not pay

            try:
                version = metadata.version(needs.distribution)
            except metadata.PackageNotFoundError:
                continue  # importable but not installed as a distribution (a source checkout)
            major = version.split(".")[0]
            if major.isdigit() and int(major) < needs.min_major:
                raise MissingExtra(extra, what, f"{needs.distribution} {needs.min_major}.x or later is needed; "
                                                f"{version} is installed")

"""Real peers for the interop tests: Node 22 and npm packages under tests/interop/node_modules.

`./run test` installs them (npm ci) and sets MCP_VERDICT_REQUIRE_INTEROP=1, so that a missing
peer fails the run instead of skipping silently. Run by hand without them, the tests skip.
"""

from __future__ import annotations

from pathlib import Path

from ..processes import require

HERE = Path(__file__).resolve().parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
CONFORMANCE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EVERYTHING = HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def need(path: Path, what: str) -> Path:
    """An npm peer, or a skip (a failure under ./run test)."""
    return require(path, what, "run `npm ci --prefix tests/interop` (./run test does)")

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SCHEMAS = SHARED / "mcp-schema"


def require_shared() -> Path:
    """The official schemas and examples in ../shared (test oracle data, never copied here)."""
    if not (SCHEMAS / "2026-07-28" / "schema.json").is_file():
        pytest.skip(f"official MCP schemas not found at {SCHEMAS}: the differential tests need "
                    "../shared/mcp-schema beside the project")
    return SCHEMAS

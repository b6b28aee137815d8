from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import Kind, Verdict

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SCHEMAS = SHARED / "mcp-schema"


def require_shared() -> Path:
    """The official schemas and examples in ../shared (test oracle data, never copied here)."""
    if not (SCHEMAS / "2026-07-28" / "schema.json").is_file():
        pytest.skip(f"official MCP schemas not found at {SCHEMAS}: the differential tests need "
                    "../shared/mcp-schema beside the project")
    return SCHEMAS


def official_schema(version: str) -> dict[str, Any]:
    """The version's official ``schema.json`` (../shared) as the tests' oracle: with the errata of
    tests/schema_errata.py applied (where the generated file contradicts its ``schema.ts``, the
    source of truth), as ``schema_oracle.schema_root`` reads it (cached there). Shared, never
    changed by a caller."""
    from .schema_oracle import schema_root

    return schema_root(require_shared(), version)


def input_request_response(key: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 tools/call response asking for one input: inputRequests[key] = method(params)."""
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
        key: {"method": method, "params": params}}}}


def assert_first_finding(verdict: Verdict, code: str | None, path: str, spec: str) -> None:
    """None: the input request stands, with no finding at all; else it is refused and the first
    finding is `code` at `path` (the table row's spec reference says why)."""
    found = [(f.code, f.path) for f in verdict.findings]
    if code is None:
        assert (verdict.kind, found) == (Kind.INPUT_REQUIRED, []), spec
    else:
        assert verdict.kind is Kind.UNCLASSIFIED, spec
        assert found[0] == (code, path), spec


def definition_validator(name: str, version: str = "2026-07-28") -> Any:
    """A jsonschema validator of one definition of the version's official schema (the oracle),
    as ``schema_oracle.definition_validator`` builds it (cached there)."""
    from . import schema_oracle

    return schema_oracle.definition_validator(require_shared(), version, name)

"""Drive the official conformance suite's client scenarios with VerdictClient.

Usage (the suite appends the server URL): python tests/interop/conformance_client.py URL
The scenario comes from MCP_CONFORMANCE_SCENARIO; http-custom-headers reads its tool calls
from MCP_CONFORMANCE_CONTEXT. Every call's verdict is printed as one JSON line on stdout (the
suite saves it with -o). Exits 0 when the scenario's steps ran; the suite's checks decide.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import anyio

from mcp_verdict import ElicitationRequest, Kind
from mcp_verdict.client import ElicitAnswer, Handlers, VerdictClient


async def confirm(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    """Answer a form with each property's default, or a plausible value of its type."""
    schema = request.requested_schema or {}
    content: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if isinstance(prop, dict) and "default" in prop:
            content[name] = prop["default"]
        elif kind == "boolean":
            content[name] = True
        elif kind in ("number", "integer"):
            content[name] = 1
        else:
            content[name] = "yes"
    return ElicitAnswer.accept(content)


def report(label: str, outcome: Any) -> None:
    print(json.dumps({"call": label, **outcome.to_dict()}, default=str), flush=True)


async def call_all(client: VerdictClient, calls: list[tuple[str, dict[str, Any]]]) -> None:
    for name, arguments in calls:
        report(name, await client.call_tool(name, arguments))


def example_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        prop = (schema.get("properties") or {}).get(name) or {}
        kind = prop.get("type")
        arguments[name] = 1 if kind in ("number", "integer") else True if kind == "boolean" else "us-west1"
    return arguments


async def run(scenario: str, url: str) -> None:
    handlers = Handlers(form=confirm)
    # The suite tests the specification's own reading: an absent resultType is "complete".
    async with VerdictClient.http(url, handlers=handlers, timeout=20, absent_result_type="complete") as client:
        print(json.dumps({"negotiated": client.version}), flush=True)
        tools = await client.list_tools()
        names = [tool["name"] for tool in tools]
        if scenario == "tools_call":
            await call_all(client, [("add_numbers", {"a": 5, "b": 3})])
        elif scenario == "request-metadata":
            await call_all(client, [(name, {}) for name in names[:1]])
        elif scenario == "sep-2322-client-request-state":
            await call_all(client, [(name, {}) for name in ("test_mrtr_echo_state", "test_mrtr_no_state",
                                                            "test_mrtr_unrelated", "test_mrtr_no_result_type")])
        elif scenario == "http-custom-headers":
            context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
            await call_all(client, [(c["name"], c.get("arguments") or {}) for c in context.get("toolCalls", [])])
        elif scenario in ("http-standard-headers", "http-invalid-tool-headers"):
            await call_all(client, [(tool["name"], example_arguments(tool)) for tool in tools])
        elif scenario == "json-schema-2020-12-preservation":
            focal = next(tool for tool in tools if tool["name"] == "json_schema_2020_12_tool")
            outcome = await client.call_tool("json_schema_echo", {"schema": focal["inputSchema"]})
            report("json_schema_echo", outcome)
            if outcome.verdict.kind is not Kind.NORMAL_COMPLETE:
                print(f"echo did not complete: {outcome.verdict}", file=sys.stderr)
        elif scenario == "json-schema-ref-no-deref":
            pass  # listing the tools is the scenario: no $ref may be fetched
        else:
            print(f"unknown scenario {scenario!r}", file=sys.stderr)
            raise SystemExit(2)


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    anyio.run(run, os.environ.get("MCP_CONFORMANCE_SCENARIO", ""), sys.argv[-1])


if __name__ == "__main__":
    main()

"""The outputSchema check: compile once, validate many; jsonschema against jsonschema-rs.

Run: python benchmarks/bench_schema.py

Prints, side by side in one process, the cost of the content check with a cold and a warm
compiled-schema cache, and of the two candidate validators on the same schema and instance.
"""

from __future__ import annotations

import statistics
import timeit
from typing import Any

import jsonschema

from mcp_verdict import check_output, classify
from mcp_verdict.judgement._schema import _compile

FLAT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number"},
        "conditions": {"type": "string", "enum": ["Sunny", "Partly cloudy", "Rain"]},
        "humidity": {"type": "number", "minimum": 0, "maximum": 100},
        "readings": {"type": "array", "items": {"type": "object", "properties": {
            "at": {"type": "string"}, "v": {"type": "number"}}}},
    },
    "required": ["temperature", "conditions", "humidity"],
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number"},
        "conditions": {"type": "string", "enum": ["Sunny", "Partly cloudy", "Rain"]},
        "humidity": {"type": "number", "minimum": 0, "maximum": 100},
        "readings": {"type": "array", "items": {"$ref": "#/$defs/reading"}},
    },
    "required": ["temperature", "conditions", "humidity"],
    "$defs": {"reading": {"type": "object", "properties": {"at": {"type": "string"}, "v": {"type": "number"}}}},
}
INSTANCE = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65,
            "readings": [{"at": "10:00", "v": 21.0}, {"at": "11:00", "v": 22.5}]}
TOOL = {"name": "get_weather_data", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}
FLAT_TOOL = {**TOOL, "outputSchema": FLAT}
VERDICT = classify({"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "22.5 C"}], "structuredContent": INSTANCE}})


def us(fn: Any, number: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def cold(tool: dict[str, Any]) -> None:
    _compile.cache_clear()
    check_output(VERDICT, tool)


def main() -> None:
    for label, tool in (("schema without $ref (jsonschema-rs)", FLAT_TOOL),
                        ("schema with $ref (jsonschema, deadline-guarded)", TOOL)):
        assert check_output(VERDICT, tool).passed
        warm = us(lambda t=tool: check_output(VERDICT, t), 2_000)
        cold_cost = us(lambda t=tool: cold(t), 200)
        print(f"{label}:")
        print(f"  content check, cold cache (compile + validate): {cold_cost:9.1f} µs")
        print(f"  content check, warm cache (validate only):      {warm:9.1f} µs   ({cold_cost / warm:.1f}x cheaper)")
    plain = jsonschema.Draft202012Validator(SCHEMA)
    plain_cost = us(lambda: plain.is_valid(INSTANCE), 2_000)
    print("candidates on the same schema and instance:")
    print(f"  jsonschema Draft202012Validator.is_valid:       {plain_cost:9.1f} µs")
    try:
        import jsonschema_rs
    except ImportError:
        print("jsonschema-rs: not installed")
        return
    rs = jsonschema_rs.validator_for(SCHEMA)
    rs_cost = us(lambda: rs.is_valid(INSTANCE), 20_000)
    rs_compile = us(lambda: jsonschema_rs.validator_for(SCHEMA), 2_000)
    print(f"  jsonschema-rs is_valid:                         {rs_cost:9.2f} µs   ({plain_cost / rs_cost:.0f}x faster)")
    print(f"  jsonschema-rs compile:                          {rs_compile:9.1f} µs")


if __name__ == "__main__":
    main()

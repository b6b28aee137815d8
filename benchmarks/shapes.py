"""The benchmark shapes, as wire bytes (built here, not read from anywhere)."""

from __future__ import annotations

import json
from typing import Any


def _wire(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def text_with_structured() -> bytes:
    """~250 B: one text block mirroring a small structuredContent."""
    structured = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    return _wire({"jsonrpc": "2.0", "id": 7, "result": {
        "resultType": "complete",
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured}})


def tool_error() -> bytes:
    return _wire({"jsonrpc": "2.0", "id": 8, "result": {
        "resultType": "complete", "isError": True,
        "content": [{"type": "text", "text": "Invalid departure date: must be in the future."}]}})


def input_required() -> bytes:
    """~350 B: one form elicitation and a request state."""
    return _wire({"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "input_required",
        "inputRequests": {"github_login": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Please provide your GitHub username",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]}}}},
        "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU"}})


def many_blocks(blocks: int = 500, width: int = 100) -> bytes:
    """~60 kB for the defaults: text blocks plus structuredContent."""
    content = [{"type": "text", "text": f"row {i:05d}: " + "x" * (width - 11)} for i in range(blocks)]
    return _wire({"jsonrpc": "2.0", "id": 10, "result": {
        "resultType": "complete", "content": content,
        "structuredContent": {"rows": blocks, "complete": True, "source": "bench"}}})


def one_block(size: int) -> bytes:
    return _wire({"jsonrpc": "2.0", "id": 11, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": "y" * size}]}})


def result_of(wire: bytes) -> bytes:
    """The result object's bytes alone (what the SDK's typed parse takes)."""
    return _wire(json.loads(wire)["result"])


SHAPES = {
    "text+structured": text_with_structured,
    "tool_error": tool_error,
    "input_required": input_required,
    "500 text blocks": many_blocks,
}

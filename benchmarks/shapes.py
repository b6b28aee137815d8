"""The benchmark shapes, as wire bytes (built here, not read from anywhere).

Each shape is written two ways where the difference matters: compact, as the TypeScript and
Python SDKs write (``separators=(",", ":")``, non-ASCII as UTF-8), and as a server writing with
plain ``json.dumps`` would (``", "`` and ``": "`` separators, non-ASCII as ``\\uXXXX`` escapes).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any


def compact(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def dumps(message: Any) -> bytes:
    """What ``json.dumps`` writes by default: spaced separators, ASCII with escapes."""
    return json.dumps(message).encode()


_wire = compact


def text_with_structured_message() -> dict[str, Any]:
    """~250 B: one text block mirroring a small structuredContent."""
    structured = {"temperature": 22.5, "conditions": "Partly cloudy", "humidity": 65}
    return {"jsonrpc": "2.0", "id": 7, "result": {
        "resultType": "complete",
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured}}


def tool_error_message() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 8, "result": {
        "resultType": "complete", "isError": True,
        "content": [{"type": "text", "text": "Invalid departure date: must be in the future."}]}}


def input_required_message() -> dict[str, Any]:
    """~350 B: one form elicitation and a request state."""
    return {"jsonrpc": "2.0", "id": 9, "result": {
        "resultType": "input_required",
        "inputRequests": {"github_login": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Please provide your GitHub username",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]}}}},
        "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU"}}


def resource_links_message(links: int = 32) -> dict[str, Any]:
    """~4 kB: a search tool's answer, one resource_link block per file found."""
    content = [{"type": "resource_link", "uri": f"file:///project/src/module_{i:02d}.py",
                "name": f"module_{i:02d}.py", "mimeType": "text/x-python"} for i in range(links)]
    return {"jsonrpc": "2.0", "id": 12, "result": {"resultType": "complete", "content": content}}


_PROSE = ("Résumé de la réunion — « 東京の会議 » : l'équipe a validé le déploiement. "
          "Prochaine étape : tests de charge (Ω ≈ 3,5 kΩ), puis revue « finale ».\n")


def long_text_message(size: int = 20_000) -> dict[str, Any]:
    """~20 kB of characters (French, Japanese, symbols; newlines and quotes to escape)."""
    text = (_PROSE * (size // len(_PROSE) + 1))[:size]
    return {"jsonrpc": "2.0", "id": 13, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": text}]}}


_CJK = ("会议纪要：团队已确认部署计划，下一步进行负载测试，然后提交最终审查。"
        "東京チームは来週までに結果を共有します。서울 팀도 검토에 참여합니다。\n")
_EMOJI = "Launch checklist ✅ tests 🧪 passed, deploy 🚀 at 10:00, rollback plan 🔁 ready — ping 📣 the team! "


def wide_text_message(size: int, prose: str = _CJK) -> dict[str, Any]:
    """A text block of ``size`` characters past Latin-1 (Chinese, Japanese, Korean; or English
    strewn with emoji), as a model answering in those languages writes (msgspec builds such
    strings more slowly than orjson)."""
    text = (prose * (size // len(prose) + 1))[:size]
    return {"jsonrpc": "2.0", "id": 16, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": text}]}}


def listing_message(files: int = 100) -> dict[str, Any]:
    """~12 kB: a directory listing in structuredContent, mirrored in a text block."""
    entries = [{"name": f"report_{i:03d}.csv", "size": 1024 * i + 17, "modified": f"2026-07-{i % 28 + 1:02d}T10:00:00Z",
                "type": "file", "readonly": i % 3 == 0} for i in range(files)]
    structured = {"path": "/data/reports", "entries": entries, "total": files}
    return {"jsonrpc": "2.0", "id": 14, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured}}


def image_message(size: int = 100_000) -> dict[str, Any]:
    """A ~100 kB image block (base64 of PNG-looking bytes)."""
    data = base64.b64encode(bytes(range(256)) * (size * 3 // 4 // 256)).decode()
    return {"jsonrpc": "2.0", "id": 15, "result": {
        "resultType": "complete", "content": [{"type": "image", "data": data, "mimeType": "image/png"}]}}


def many_blocks_message(blocks: int = 500, width: int = 100) -> dict[str, Any]:
    """~60 kB for the defaults: text blocks plus structuredContent."""
    content = [{"type": "text", "text": f"row {i:05d}: " + "x" * (width - 11)} for i in range(blocks)]
    return {"jsonrpc": "2.0", "id": 10, "result": {
        "resultType": "complete", "content": content,
        "structuredContent": {"rows": blocks, "complete": True, "source": "bench"}}}


def text_with_structured() -> bytes:
    return compact(text_with_structured_message())


def tool_error() -> bytes:
    return compact(tool_error_message())


def input_required() -> bytes:
    return compact(input_required_message())


def many_blocks(blocks: int = 500, width: int = 100) -> bytes:
    return compact(many_blocks_message(blocks, width))


def one_block(size: int) -> bytes:
    return _wire({"jsonrpc": "2.0", "id": 11, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": "y" * size}]}})


def result_of(wire: bytes) -> bytes:
    """The result object's bytes alone (what the SDK's typed parse takes), written as the wire
    is (compact or spaced)."""
    write = compact if b'": ' not in wire else dumps
    return write(json.loads(wire)["result"])


_MESSAGES: dict[str, Callable[[], dict[str, Any]]] = {
    "text+structured": text_with_structured_message,
    "tool_error": tool_error_message,
    "input_required": input_required_message,
    "32 resource_links": resource_links_message,
    "20 kB non-ASCII": long_text_message,
    "1 kB CJK": lambda: wide_text_message(330),
    "4 kB CJK": lambda: wide_text_message(1300),
    "30 kB CJK": lambda: wide_text_message(10_000),
    "2 kB emoji": lambda: wide_text_message(1900, _EMOJI),
    "20 kB emoji": lambda: wide_text_message(19_000, _EMOJI),
    "300 kB CJK": lambda: wide_text_message(100_000),
    "listing": listing_message,
    "100 kB image": image_message,
    "500 text blocks": many_blocks_message,
}

SHAPES: dict[str, Callable[[], bytes]] = {}
for _name, _build in _MESSAGES.items():
    SHAPES[_name] = lambda b=_build: compact(b())  # type: ignore[misc]
    if _name in ("text+structured", "tool_error", "input_required", "20 kB non-ASCII"):
        SHAPES[_name + " (dumps)"] = lambda b=_build: dumps(b())  # type: ignore[misc]

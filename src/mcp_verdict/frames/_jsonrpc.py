"""What a JSON-RPC frame is, read leniently for routing — never for the verdict.

A proxy, a tap or an audit must know which frames are requests, which answer which request,
and what method and id they carry, before (and whatever) the verdict says. :func:`peek` reads
a frame with orjson (fast; the last of duplicated keys wins, which is harmless for routing
because the verdict reads the same bytes strictly). A frame no strict parser can read — NaN, a
lone surrogate, a truncated line, invalid UTF-8 — still gets its id recovered by
:func:`recover_id` where one is visible at the top level, so its call can be answered with an
error rather than left waiting.

Ids are compared with their JSON type (``7`` is not ``"7"``, and ``1`` is not ``1.0``):
:func:`id_key` is the key to use in a map of pending requests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final, Literal

import msgspec
import orjson

FrameKind = Literal["request", "notification", "response", "error", "batch", "invalid", "unreadable"]
"""``response`` holds ``result``; ``error`` holds ``error``; ``invalid`` is JSON but no JSON-RPC
message (no method, no result or error, not an object); ``unreadable`` is not JSON at all."""

Id = str | int | float | None


class Peek(msgspec.Struct, frozen=True, gc=False):
    """A frame, as routing sees it (untracked by the cycle collector, as the tracker's values:
    it holds JSON values only)."""

    kind: FrameKind
    id: Id = None
    has_id: bool = False
    """The id member is present (``id: null`` included)."""
    method: str | None = None
    message: dict[str, Any] | None = None
    """The parsed message (requests and responses), for reading params and result members."""
    problem: str | None = None
    """Why an unreadable frame could not be read."""

    @property
    def params(self) -> dict[str, Any]:
        params = self.message.get("params") if self.message is not None else None
        return params if isinstance(params, dict) else {}

    @property
    def result(self) -> dict[str, Any] | None:
        result = self.message.get("result") if self.message is not None else None
        return result if isinstance(result, dict) else None


def id_key(value: Id) -> tuple[str, Any]:
    """A map key for a request id that keeps its JSON type apart (``7``, ``"7"`` and ``7.0``)."""
    return (type(value).__name__, value)


_ABSENT: Final = object()
_ID_TYPES: Final = (str, int, float)


def peek(data: bytes | bytearray | memoryview | str) -> Peek:
    """Read one frame for routing. Never raises.

    orjson gives plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None``
    only, so exact type tests read it (they are cheaper than ``isinstance``; a peek is made of
    every frame)."""
    try:
        message = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError) as exc:
        found, value = recover_id(data)
        return Peek("unreadable", value, found, problem=str(exc))
    if type(message) is not dict:
        return Peek("batch") if type(message) is list else Peek("invalid")
    value = message.get("id", _ABSENT)
    has_id = value is not _ABSENT
    if not has_id or (value is not None and type(value) not in _ID_TYPES):
        value, has_id = None, False  # absent, or not a valid id (a bool, an object...)
    method = message.get("method")
    if type(method) is str:
        if "result" in message or "error" in message:
            return Peek("invalid", value, has_id, None, message)
        return Peek("request" if has_id else "notification", value, has_id, method, message)
    if "result" in message:
        return Peek("response", value, has_id, None, message)
    if "error" in message:
        return Peek("error", value, has_id, None, message)
    return Peek("invalid", value, has_id, None, message)


# Strings and brackets, matched in C; a Python step per match keeps the nesting depth, so the
# scan is linear in the frame's size with a step per string or bracket.
_TOKENS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"?|[{}\[\]]', re.DOTALL)
_VALUE: Final = re.compile(rb'\s*:\s*(-?(?:0|[1-9][0-9]*)(?![0-9.eE])|"(?:[^"\\]|\\.)*")', re.DOTALL)


def recover_id(data: bytes | bytearray | memoryview | str) -> tuple[bool, Id]:
    """The id of a frame that does not parse, when a top-level ``"id"`` member with an integer or
    a plain string value can be seen. Returns (found, id). Never raises; linear time."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    for value in id_values(raw, _VALUE):
        text = value.group(1)
        if text[:1] == b'"':
            try:
                decoded = orjson.loads(text)
            except orjson.JSONDecodeError:
                return False, None
            return True, decoded if isinstance(decoded, str) else None
        if len(text) > 20:
            return False, None  # no JSON-RPC peer uses such an id; int() of it is not linear
        return True, int(text)
    return False, None


def id_values(data: bytes, value: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """The value of each top-level ``"id"`` member of ``data`` that ``value`` matches (matched at
    the end of the member's name), in order. A Python step per string or bracket: linear in the
    frame's size; never raises."""
    depth = 0
    for match in _TOKENS.finditer(data):
        token = match.group()
        first = token[:1]
        if first in {b"{", b"["}:
            depth += 1
        elif first in {b"}", b"]"}:
            depth -= 1
        elif depth == 1 and token == b'"id"':
            found = value.match(data, match.end())
            if found is not None:
                yield found

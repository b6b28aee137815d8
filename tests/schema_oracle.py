"""What the official JSON schema of a version says of one ``tools/call`` response.

Dispatch first, on the response's own shape (the 2026-07-28 ``CallToolResult |
InputRequiredResult`` union alone takes malformed results): an error response is held to the
error definition; a result response to the envelope and to the result definition its
``resultType`` names ("input_required" → InputRequiredResult on 2026-07-28; a 2025-11-25
task-augmented ``{"task": ...}`` → CreateTaskResult; anything else → CallToolResult). The
expected kind of an accepted response follows from the same dispatch and ``isError``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import validators

from mcp_verdict import Kind

from .schema_errata import corrected

NEW_ENVELOPE = frozenset({"2025-11-25", "2026-07-28"})


@functools.cache
def schema_root(shared: Path, version: str) -> dict[str, Any]:
    """The version's ``schema.json`` in ``shared``, with the errata of tests/schema_errata.py
    (where the generated file contradicts its ``schema.ts``)."""
    root: dict[str, Any] = json.loads((shared / version / "schema.json").read_text("utf-8"))
    return corrected(root, version)


@functools.cache
def definition_validator(shared: Path, version: str, definition: str) -> Any:
    """A jsonschema validator of one definition of the version's schema (``$defs``, or
    ``definitions`` in the older files), errata applied: the tests' one way to ask the oracle."""
    root = schema_root(shared, version)
    defs_key = "$defs" if "$defs" in root else "definitions"
    if definition not in root[defs_key]:
        raise LookupError(f"{version} defines no {definition}")
    schema = {"$schema": root["$schema"], "$ref": f"#/{defs_key}/{definition}", defs_key: root[defs_key]}
    return validators.validator_for(schema)(schema)


def envelope_definitions(version: str) -> tuple[str, str]:
    """(result response, error response) definitions of the version."""
    if version in NEW_ENVELOPE:
        return "JSONRPCResultResponse", "JSONRPCErrorResponse"
    return "JSONRPCResponse", "JSONRPCError"


DEFINED_ERRORS: dict[str, dict[int, str]] = {
    "2025-11-25": {-32042: "URLElicitationRequiredError"},
    "2026-07-28": {-32020: "HeaderMismatchError", -32021: "MissingRequiredClientCapabilityError",
                   -32022: "UnsupportedProtocolVersionError"},
}
"""The error responses a version's schema defines for one code (their ``data`` typed): an error
response with that code is held to that definition as well as to the generic one."""


def error_definitions(version: str, message: dict[str, Any]) -> list[tuple[str, Any]]:
    """(definition, instance) pairs an error response is held to: the generic error response,
    and the one the version defines for its code, if any (dispatched on the code)."""
    pairs: list[tuple[str, Any]] = [(envelope_definitions(version)[1], message)]
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if type(code) in (int, float):
        named = next((name for number, name in DEFINED_ERRORS.get(version, {}).items() if code == number), None)
        if named is not None:
            pairs.append((named, message))
    return pairs


@dataclass(frozen=True)
class SchemaSays:
    valid: bool
    expect: Kind | None
    """The kind an accepted response has (None when rejected)."""
    checked: tuple[tuple[str, Any], ...]
    shared: Path
    version: str

    def why(self) -> str:
        """The first failure, for a message (computed only when asked: it costs)."""
        for definition, instance in self.checked:
            errors = sorted(definition_validator(self.shared, self.version, definition).iter_errors(instance),
                            key=lambda e: list(map(str, e.absolute_path)))
            if errors:
                where = "/" + "/".join(map(str, errors[0].absolute_path))
                return f"{definition} at {where}: {errors[0].message[:200]}"
        return "valid"


def judge(shared: Path, version: str, message: Any, *, task_augmented: bool = False) -> SchemaSays:
    result_def = envelope_definitions(version)[0]
    pairs: list[tuple[str, Any]]
    expect: Kind | None = None
    if isinstance(message, dict) and "error" in message and "result" not in message:
        pairs = error_definitions(version, message)
        expect = Kind.PROTOCOL_ERROR
    else:
        pairs = [(result_def, message)]
        if isinstance(message, dict) and "result" in message:
            result = message["result"]
            definition = "CallToolResult"
            if isinstance(result, dict):
                if version == "2026-07-28" and result.get("resultType") == "input_required":
                    definition = "InputRequiredResult"
                elif (version == "2025-11-25" and task_augmented and "task" in result
                      and "content" not in result):
                    definition = "CreateTaskResult"
            pairs.append((definition, result))
            expect = {"InputRequiredResult": Kind.INPUT_REQUIRED, "CreateTaskResult": Kind.TASK}.get(
                definition, Kind.TOOL_ERROR if isinstance(result, dict) and result.get("isError") is True
                else Kind.NORMAL_COMPLETE)
    valid = all(definition_validator(shared, version, d).is_valid(i) for d, i in pairs)
    return SchemaSays(valid, expect if valid else None, tuple(pairs), shared, version)

"""The JSON-RPC error object of an error response.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-responses):

- ``error`` is an object (``error.not_object``);
- ``code`` is an integer as the schema's ``"type": "integer"`` counts integers (-32603.0 is
  one: JSON Schema takes a number with a zero fractional part), not a fraction, bool or
  string (``error.code``);
- ``message`` is a string (``error.message``);
- ``data`` is optional and may be any JSON value;
- on 2026-07-28, a code in the range reserved for the specification (-32020..-32099) that
  the specification does not define, and the retired -32002 and -32042, draw a warning
  (``error.reserved_code``): implementations MUST NOT emit them.
"""

from __future__ import annotations

from typing import Final

from ._findings import describe
from ._walk import Context, check_extras

_KNOWN: Final = frozenset({"code", "message", "data"})
DEFINED_CODES_2026: Final = {
    -32020: "HeaderMismatch",
    -32021: "MissingRequiredClientCapability",
    -32022: "UnsupportedProtocolVersion",
}
_RETIRED_2026: Final = {-32002: "resource not found (2025-11-25 and earlier)",
                        -32042: "URL elicitation required (2025-11-25 only)"}


def check_error(ctx: Context, error: object) -> None:
    if not isinstance(error, dict):
        ctx.add("/error", "error.not_object", f"error is {describe(error)}, not an object")
        return
    code = error.get("code")
    if isinstance(code, float) and code.is_integer():
        code = int(code)  # for the reserved codes below; the message keeps the value as written
    if isinstance(code, bool) or not isinstance(code, int):
        ctx.add("/error/code" if "code" in error else "/error", "error.code",
                f"error.code is {describe(code)}; it must be an integer" if "code" in error
                else "error.code is missing", code)
    elif ctx.rules.result_type_required:
        if code in _RETIRED_2026:
            ctx.add("/error/code", "error.reserved_code",
                    f"{code} is retired: {_RETIRED_2026[code]}")
        elif -32099 <= code <= -32020 and code not in DEFINED_CODES_2026:
            ctx.add("/error/code", "error.reserved_code",
                    f"{code} is in the range reserved for the specification but not defined by it")
    message = error.get("message")
    if not isinstance(message, str):
        ctx.add("/error/message" if "message" in error else "/error", "error.message",
                f"error.message is {describe(message)}; it must be a string" if "message" in error
                else "error.message is missing")
    if len(error) > ("code" in error) + ("message" in error) or "data" in error:
        check_extras(ctx, error, frozenset({"code", "message"}), "/error", 2)

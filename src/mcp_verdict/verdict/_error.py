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
  (``error.reserved_code``): implementations MUST NOT emit them;
- an error whose code the version defines with a ``data`` shape carries that data, as the
  version's schema defines it (``error.data``): a client acts on it (the next action reads it),
  so one it cannot act on is no protocol error it can act on:

  - 2025-11-25's -32042, ``URLElicitationRequiredError``
    (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error:
    "The error MUST include a list of elicitations that are required to complete before the
    original can be retried. Any elicitations returned in the error MUST be URL mode
    elicitations and have an ``elicitationId`` property"): ``data.elicitations`` a list of
    objects whose ``mode`` is ``"url"``, each then checked as a url-mode elicitation's params
    (``_elicitation.check_elicitation``: a string ``message``, ``url`` an absolute URL,
    ``elicitationId`` a string);
  - 2026-07-28's -32021, ``MissingRequiredClientCapabilityError`` ("the server MUST return a
    MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the
    missing capabilities", basic/index#request-fields): ``data.requiredCapabilities`` a
    ``ClientCapabilities`` object (its ``roots``, ``sampling``, ``elicitation``, ``experimental``
    and ``extensions`` objects, ``sampling.context`` and ``.tools``, ``elicitation.form`` and
    ``.url`` objects, and each member of ``experimental`` and ``extensions`` an object);
  - 2026-07-28's -32022, ``UnsupportedProtocolVersionError`` ("it MUST respond with an
    UnsupportedProtocolVersionError listing the versions it does support",
    basic/versioning): ``data.supported`` a list of strings and ``data.requested`` a string.

  What no rule names (data's other members, an element that is no url-mode elicitation) is held
  to the JSON rules, as any error's data is.
"""

from __future__ import annotations

from typing import Final

from ._elicitation import check_elicitation
from ._findings import describe, pointer
from ._input import request_params
from ._shown import shown
from ._walk import Context, check_extras, check_value

_KNOWN: Final = frozenset({"code", "message", "data"})
_ELICITATIONS: Final = frozenset({"elicitations"})
DEFINED_CODES_2026: Final = {
    -32020: "HeaderMismatch",
    -32021: "MissingRequiredClientCapability",
    -32022: "UnsupportedProtocolVersion",
}
_RETIRED_2026: Final = {-32002: "resource not found (2025-11-25 and earlier)",
                        -32042: "URL elicitation required (2025-11-25 only)"}
URL_ELICITATION_REQUIRED: Final = -32042
"""2025-11-25's ``URLElicitationRequiredError`` code."""
_MISSING_CAPABILITY: Final = -32021
_DEFINED_DATA: Final = {
    URL_ELICITATION_REQUIRED: ("URL elicitation required", "elicitations, the url-mode elicitations to complete"),
    _MISSING_CAPABILITY: ("missing required client capability", "requiredCapabilities, the capabilities required"),
    -32022: ("unsupported protocol version", "supported, the versions the server supports, and requested"),
}
"""The codes some version defines with a data shape (``VersionRules.error_data`` says which
version): (what the code means, what its data holds)."""
_CAPABILITY_MEMBERS: Final[dict[str, frozenset[str] | None]] = {
    "roots": frozenset(), "sampling": frozenset({"context", "tools"}), "elicitation": frozenset({"form", "url"}),
    "experimental": None, "extensions": None}
"""2026-07-28's ``ClientCapabilities``: each member an object, and the members of it that are
objects too (``None``: every one)."""


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
    if type(code) is int and code in ctx.rules.error_data:
        if len(error) > ("code" in error) + ("message" in error) + ("data" in error):
            check_extras(ctx, error, _KNOWN, "/error", 2)
        _data(ctx, error, code)
    elif len(error) > ("code" in error) + ("message" in error) or "data" in error:
        check_extras(ctx, error, frozenset({"code", "message"}), "/error", 2)


def _data(ctx: Context, error: dict[str, object], code: int) -> None:
    """``data`` of an error whose code the version defines with it (module docstring)."""
    name, members = _DEFINED_DATA[code]
    data = error.get("data")
    if not isinstance(data, dict):
        if "data" in error:
            check_value(ctx, data, "/error/data", 3)
            ctx.add("/error/data", "error.data", f"error.data is {describe(data)}; {code} ({name}) MUST carry "
                    f"an object holding {members}")
        else:
            ctx.add("/error", "error.data", f"{code} ({name}) has no data; it MUST carry an object holding {members}")
        return
    if code == URL_ELICITATION_REQUIRED:
        _elicitations(ctx, data)
        return
    check_extras(ctx, data, frozenset(), "/error/data", 3)  # (every member to the JSON rules, then their types)
    if code == _MISSING_CAPABILITY:
        if "requiredCapabilities" not in data:
            ctx.add("/error/data", "error.data", f"error.data has no requiredCapabilities; {code} ({name}) MUST list "
                    "the missing capabilities")
        else:
            _capabilities(ctx, data["requiredCapabilities"], "/error/data/requiredCapabilities")
        return
    supported = data.get("supported")
    if "supported" not in data:
        ctx.add("/error/data", "error.data", f"error.data has no supported; {code} ({name}) MUST list the "
                "versions the server supports")
    elif not isinstance(supported, list) or not all(isinstance(item, str) for item in supported):
        ctx.add("/error/data/supported", "error.data",
                f"error.data.supported is {describe(supported)}; expected a list of version strings")
    if "requested" not in data:
        ctx.add("/error/data", "error.data", f"error.data has no requested; {code} ({name}) MUST name the "
                "version the client requested")
    elif not isinstance(data["requested"], str):
        ctx.add("/error/data/requested", "error.data",
                f"error.data.requested is {describe(data['requested'])}; expected a version string")


def _elicitations(ctx: Context, data: dict[str, object]) -> None:
    """2025-11-25's -32042: ``data.elicitations``, a list of url-mode elicitations."""
    check_extras(ctx, data, _ELICITATIONS, "/error/data", 3)
    elicitations = data.get("elicitations")
    if not isinstance(elicitations, list):
        if "elicitations" in data:
            check_value(ctx, elicitations, "/error/data/elicitations", 4)
        ctx.add("/error/data/elicitations" if "elicitations" in data else "/error/data", "error.data",
                f"error.data.elicitations is {describe(elicitations)}; -32042 MUST include a list of the url-mode "
                "elicitations to complete" if "elicitations" in data else
                "error.data has no elicitations; -32042 MUST include the list of url-mode elicitations to complete")
        return
    for index, params in enumerate(elicitations):
        where = pointer("/error/data/elicitations", index)
        if not isinstance(params, dict):
            check_value(ctx, params, where, 5)
            ctx.add(where, "error.data", f"elicitation {index} is {describe(params)}, not an object")
        elif params.get("mode") != "url" or not isinstance(params.get("mode"), str):
            check_value(ctx, params, where, 5)
            ctx.add(pointer(where, "mode") if "mode" in params else where, "error.data",
                    f"elicitation {index}'s mode is {describe(params.get('mode'))}; the elicitations of -32042 "
                    'MUST be URL mode elicitations (mode "url")' if "mode" in params else
                    f'elicitation {index} has no mode; the elicitations of -32042 MUST be URL mode elicitations '
                    '(mode "url")')
        else:
            request_params(ctx, params, where)  # (2025-11-25's _meta and task, as on its elicitation/create)
            check_elicitation(ctx, params, where)


def _capabilities(ctx: Context, value: object, path: str) -> None:
    """2026-07-28's ``ClientCapabilities`` (already held to the JSON rules): an object whose
    defined members are objects, and so are the members it defines inside them."""
    if not isinstance(value, dict):
        ctx.add(path, "error.data", f"requiredCapabilities is {describe(value)}; expected an object "
                "(ClientCapabilities)")
        return
    for name, inner in _CAPABILITY_MEMBERS.items():
        if name not in value:
            continue
        member, at = value[name], pointer(path, name)
        if not isinstance(member, dict):
            ctx.add(at, "error.data", f"requiredCapabilities.{name} is {describe(member)}; expected an object")
            continue
        for key, setting in member.items():
            if isinstance(key, str) and (inner is None or key in inner) and not isinstance(setting, dict):
                ctx.add(pointer(at, key), "error.data",
                        f"requiredCapabilities.{name}[{shown(key)}] is {describe(setting)}; expected an object")

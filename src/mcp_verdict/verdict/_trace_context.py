"""OpenTelemetry trace context in a ``_meta`` object: the W3C formats of its three keys (2026-07-28).

Rule (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta, "OpenTelemetry
trace context"; no such text before): "the keys ``traceparent``, ``tracestate``, and ``baggage``
are reserved for OpenTelemetry trace context propagation. When present, their values MUST follow
W3C Trace Context and W3C Baggage formats respectively." So each is a string, and:

- ``traceparent`` (https://www.w3.org/TR/trace-context/#traceparent-header-field-values):
  ``version "-" trace-id "-" parent-id "-" trace-flags`` in lowercase hex, 2, 32, 16 and 2
  digits; version ``ff`` forbidden, a trace-id or parent-id of all zeros invalid; version ``00``
  exactly that, a higher version may go on after a ``-`` (the spec's "Versioning of
  traceparent");
- ``tracestate`` (#tracestate-header-field-values): at most 32 comma-separated members, each
  empty or ``key=value`` around optional spaces and tabs; a key a lowercase letter or digit, then
  up to 255 of ``a-z 0-9 _ - * / @`` (Level 2's grammar, which takes every Level 1 key); a value
  up to 256 printable ASCII characters but ``,`` and ``=``, not ending with a space;
- ``baggage`` (https://www.w3.org/TR/baggage/#definition): at most 180 comma-separated members,
  each ``key = value`` then ``;``-separated properties (``key`` or ``key = value``); a key an
  RFC 7230 token (a ``%`` among its characters); a value of printable ASCII but space, ``"``,
  ``,``, ``;`` and ``\\``, where a ``%`` begins a percent-encoding ("The percent code point MUST
  be percent-encoded", said of a value and of a property's value, not of a key).

Like the key name format (``_meta_keys``; ``_meta.check_meta_keys`` calls both on every
``_meta`` object), a value out of format is a warning (``meta.trace_context``): it tells the
client nothing about the call's outcome, and a tracer that reads it ignores what it cannot parse.
The checks are linear in the value's length, and bounded by the member counts before any split.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._findings import describe, pointer
from ._versions import TRACE_CONTEXT_KEYS

if TYPE_CHECKING:
    from ._walk import Context

_TRACESTATE_MEMBERS: Final = 32
_BAGGAGE_MEMBERS: Final = 180
_OWS: Final = r"[ \t]*+"
_TOKEN: Final = r"[!#$%&'*+.^_`|~0-9A-Za-z-]++"  # RFC 7230 s3.2.6 tchar
_OCTETS: Final = r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*+"  # baggage-octet, any '%'
_ENCODED: Final = r"(?:[\x21\x23\x24\x26-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]++|%[0-9A-Fa-f]{2})*+"
"""A baggage value whose every ``%`` begins a percent-encoding (a group a ``%``, not a character)."""


@functools.cache
def _matchers() -> tuple[Callable[[str], re.Match[str] | None], ...]:
    """``fullmatch`` of a traceparent's shape (its four fields, and what a higher version adds:
    the values are judged by :func:`_traceparent_fault`), a tracestate member, a baggage member,
    and one whose values may hold any ``%`` (to tell that fault from the others); compiled by the
    first trace-context key met."""
    traceparent = r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-[\x20-\x7e]*+)?+"
    # (the value's run takes spaces, and backs off at most 255 characters to end on a non-space)
    tracestate = (rf"{_OWS}(?:[a-z0-9][a-z0-9_\-*/@]{{0,255}}="
                  rf"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{{0,255}}[\x21-\x2b\x2d-\x3c\x3e-\x7e])?{_OWS}")
    def baggage(value: str) -> str:
        property_ = rf"{_TOKEN}{_OWS}(?:={_OWS}{value}{_OWS})?+"
        return rf"{_OWS}{_TOKEN}{_OWS}={_OWS}{value}{_OWS}(?:;{_OWS}{property_})*+"

    patterns = (traceparent, tracestate, baggage(_ENCODED), baggage(_OCTETS))
    return tuple(re.compile(pattern).fullmatch for pattern in patterns)


def check_trace_context(ctx: Context, meta: Mapping[Any, Any], path: str) -> None:
    """On 2026-07-28 (``VersionRules.trace_context``), a ``meta.trace_context`` warning for each
    of the three keys of the ``_meta`` object ``meta`` (at ``path``) whose value is out of its
    W3C format."""
    if not ctx.rules.trace_context or TRACE_CONTEXT_KEYS.isdisjoint(meta):
        return
    for key in sorted(TRACE_CONTEXT_KEYS.intersection(meta)):
        value = meta[key]
        fault = _fault(key, value) if isinstance(value, str) else f"it is {describe(value)}, not a string"
        if fault is not None:
            ctx.add(pointer(path, key), "meta.trace_context", f"the _meta {key} is out of its W3C format: {fault}")


def _fault(key: str, value: str) -> str | None:
    _, tracestate, baggage, any_percent = _matchers()
    if key == "traceparent":
        return _traceparent_fault(value)
    if key == "tracestate":
        return _list_fault(value, _TRACESTATE_MEMBERS, tracestate, "key=value (a key of a-z 0-9 _ - * / @ "
                           "beginning with a letter or digit; a value of printable ASCII but ',' and '=', "
                           "not ending with a space; each at most 256 characters)")
    fault = _list_fault(value, _BAGGAGE_MEMBERS, baggage, "key=value, then ;-separated properties (a key a token; "
                        "a value of printable ASCII but space, '\"', ',', ';' and '\\', a '%' only as a "
                        "percent-encoding)")
    if fault is not None and _list_fault(value, _BAGGAGE_MEMBERS, any_percent, "") is None:
        return "a '%' in a value begins no percent-encoding (a '%' itself MUST be written %25)"
    return fault


def _traceparent_fault(value: str) -> str | None:
    shape = _matchers()[0](value)
    if shape is None:
        return (f"{describe(value)} is not version-traceid-parentid-flags in lowercase hex "
                "(2, 32, 16 and 2 digits)")
    version, trace_id, parent_id, more = shape.groups()
    if version == "ff":
        return "version ff is forbidden"
    if trace_id == "0" * 32:
        return "its trace-id is all zeros"
    if parent_id == "0" * 16:
        return "its parent-id is all zeros"
    if version == "00" and more is not None:
        return "version 00 ends at its trace-flags (55 characters)"
    return None


def _list_fault(value: str, most: int, member: Callable[[str], re.Match[str] | None], shape: str) -> str | None:
    """The first fault of a comma-separated list of at most ``most`` members, each ``member``."""
    if value.count(",") >= most:
        return f"it has {value.count(',') + 1} members, more than {most}"
    for number, text in enumerate(value.split(",")):
        if member(text) is None:
            return f"member {number} ({describe(text)}) is not {shape}"
    return None

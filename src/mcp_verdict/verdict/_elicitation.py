"""Elicitation requests (``elicitation/create``) an input_required result carries.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation and the
schema's ``ElicitRequestFormParams``, ``ElicitRequestURLParams`` and
``PrimitiveSchemaDefinition``; input requests exist on 2026-07-28 only):

- ``message`` is a string (``input.params``); ``mode`` is absent or ``"form"`` (form mode),
  or ``"url"``; any other mode is ``input.elicitation_mode``;
- url mode: ``url`` is a string (``input.params``) holding an absolute URL, a scheme and
  what follows it ("The ``url`` parameter MUST contain a valid URL": ``elicitation.url``;
  the schema's ``format: uri`` is an annotation that validators do not assert). 2026-07-28
  defines no ``elicitationId`` (2025-11-25 did, in the sampling-era request, never in a
  tools/call result);
- form mode: ``requestedSchema`` is an object (``input.params``) of a flat object schema:
  ``type`` exactly ``"object"``, ``properties`` an object, ``required`` an array of
  strings, ``$schema`` a string when present (``elicitation.schema``);
- every property is a primitive schema definition, as the schema's ``anyOf`` reads it: it
  matches at least one of string (title, description, default of its own type, minLength
  and maxLength integers, format one of date, date-time, email, uri), number or integer
  (default, minimum, maximum numbers), boolean (default a boolean), untitled single-select
  (``enum`` strings), titled single-select (``oneOf`` of ``{const, title}`` strings),
  untitled multi-select (``type: "array"``, ``items: {type: "string", enum: strings}``),
  titled multi-select (``items: {anyOf: [{const, title}]}``) — both with minItems and
  maxItems integers and a default array of strings — and the legacy titled enum
  (``enum`` with ``enumNames`` strings). Anything else, a nested object or array of
  objects included, is ``elicitation.property``. Integer keywords take what JSON Schema
  calls an integer, 3.0 included (the schema is the reference here; no prose is stricter).

Per version (``_versions``; a 2025 server's own ``elicitation/create`` request,
``_input.check_server_request``): 2025-06-18's ``ElicitRequest`` has form mode alone and no
``mode`` member (an open one there: every elicitation needs a ``requestedSchema``), a
requestedSchema without ``$schema``, and string, number, boolean and enum properties (``enum``
with ``enumNames``), a ``default`` on boolean alone (elsewhere an open member); 2025-11-25's
``ElicitRequestURLParams`` requires ``elicitationId``, a string (``input.params``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import msgspec

from ._findings import describe, pointer
from ._walk import Context, check_extras, check_value, is_strings

_FORM_KEYS: Final = frozenset({"mode", "message", "requestedSchema"})
_FORM_ONLY_KEYS: Final = frozenset({"message", "requestedSchema"})
"""2025-06-18's ElicitRequest params: no mode member (an open one)."""
_URL_KEYS: Final = frozenset({"mode", "message", "url"})
_SCHEMA_KEYS: Final = frozenset({"type", "properties", "required", "$schema"})
FORMATS: Final = frozenset({"date", "date-time", "email", "uri"})
"""The string formats a requested property may name."""
# Depths: params 5, requestedSchema 6, properties 7, a property 8.
_PARAMS_DEPTH: Final = 5
_SCHEMA_DEPTH: Final = 6
_PROPERTY_DEPTH: Final = 8
# An absolute URL (RFC 3986 section 4.3): a scheme, a colon, then no space or control character.
_ABSOLUTE_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\x00-\x20\x7f]+")


def check_elicitation(ctx: Context, params: Mapping[str, Any], where: str) -> Literal["form", "url"] | None:
    """Check an elicitation's params (pointer ``where``); return its mode for the capability
    check, or ``None`` when the mode is not one."""
    if not isinstance(params.get("message"), str):
        ctx.add_member(params, "message", where, "input.params", "; expected a string",
                       "an elicitation needs a message")
    rules = ctx.rules
    one_mode = "url" not in rules.elicitation_modes  # 2025-06-18: form alone, and no mode member
    mode = "form" if one_mode else params.get("mode", "form")
    if mode == "url" and isinstance(mode, str):
        url = params.get("url")
        if not isinstance(url, str):
            ctx.add_member(params, "url", where, "input.params", "; expected a string",
                           "a url-mode elicitation needs a url")
        elif not _ABSOLUTE_URL.fullmatch(url):
            ctx.add(pointer(where, "url"), "elicitation.url",
                    f"url is {describe(url)}; the url MUST contain a valid URL: an absolute one, with "
                    "a scheme and no spaces")
        if rules.elicitation_id and not isinstance(params.get("elicitationId"), str):
            ctx.add_member(params, "elicitationId", where, "input.params", f"; {rules.version} requires a string",
                           f"a url-mode elicitation needs an elicitationId on {rules.version}")
        check_extras(ctx, params, _URL_KEYS, where, _PARAMS_DEPTH)
        return "url"
    if mode != "form" or not isinstance(mode, str):
        ctx.add(pointer(where, "mode"), "input.elicitation_mode",
                f'mode is {describe(mode)}; expected "form" (or absent) or "url"')
        return None
    schema = params.get("requestedSchema")
    schema_at = pointer(where, "requestedSchema")
    if not isinstance(schema, dict):
        ctx.add_member(params, "requestedSchema", where, "input.params", ", not an object",
                       f"an elicitation needs a requestedSchema ({rules.version} defines form mode alone)"
                       if one_mode else "a form-mode elicitation needs a requestedSchema")
    else:
        _requested_schema(ctx, schema, schema_at)
    check_extras(ctx, params, _FORM_ONLY_KEYS if one_mode else _FORM_KEYS, where, _PARAMS_DEPTH)
    return "form"


def _requested_schema(ctx: Context, schema: Mapping[str, Any], path: str) -> None:
    if schema.get("type") != "object" or not isinstance(schema.get("type"), str):
        ctx.add(pointer(path, "type") if "type" in schema else path, "elicitation.schema",
                f'requestedSchema.type is {describe(schema.get("type"))}; expected "object"'
                if "type" in schema else 'requestedSchema needs "type": "object"')
    if "$schema" in schema and not isinstance(schema["$schema"], str) and ctx.rules.requested_schema_defaults:
        ctx.add(pointer(path, "$schema"), "elicitation.schema",
                f"requestedSchema.$schema is {describe(schema['$schema'])}; expected a string")
    if "required" in schema and (not isinstance(schema["required"], list)
                                 or not all(isinstance(n, str) for n in schema["required"])):
        ctx.add(pointer(path, "required"), "elicitation.schema",
                f"requestedSchema.required is {describe(schema['required'])}; expected an array of strings")
    properties = schema.get("properties")
    where = pointer(path, "properties")
    if not isinstance(properties, dict):
        ctx.add(where if "properties" in schema else path, "elicitation.schema",
                f"requestedSchema.properties is {describe(properties)}, not an object"
                if "properties" in schema else "requestedSchema needs properties")
    else:
        for name, definition in properties.items():
            if not isinstance(name, str):
                break  # check_value below names it
            _property(ctx, definition, pointer(where, name))
    check_value(ctx, schema, path, _SCHEMA_DEPTH)


# --- primitive schema definitions ------------------------------------------------------------

Check = Callable[[object], bool]


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def is_integer(value: object) -> bool:
    """A JSON Schema integer: an integer, or a number with a zero fractional part (3.0)."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


_is_int: Final = is_integer


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_format(value: object) -> bool:
    return isinstance(value, str) and value in FORMATS


def _is_options(value: object) -> bool:
    """An array of ``{"const": <string>, "title": <string>}`` (other members open)."""
    return isinstance(value, list) and all(
        isinstance(option, dict) and isinstance(option.get("const"), str) and isinstance(option.get("title"), str)
        for option in value)


def _is_untitled_items(value: object) -> bool:
    return (isinstance(value, dict) and value.get("type") == "string" and isinstance(value.get("type"), str)
            and is_strings(value.get("enum")))


def _is_titled_items(value: object) -> bool:
    return isinstance(value, dict) and _is_options(value.get("anyOf"))


class _Variant(msgspec.Struct, frozen=True):  # a frozen Struct: defined in C, unlike a dataclass (~0.5 ms)
    """One branch of PrimitiveSchemaDefinition: its type values, required and typed keywords."""

    name: str
    types: frozenset[str]
    required: tuple[str, ...]
    keywords: tuple[tuple[str, Check, str], ...]
    """(keyword, check, what it must be)."""

    def first_problem(self, definition: Mapping[str, Any]) -> tuple[str | None, str] | None:
        """The first keyword (``None``: the definition itself) this branch refuses, and why."""
        kind = definition.get("type")
        if not isinstance(kind, str) or kind not in self.types:
            where = "type" if "type" in definition else None
            return where, f"a {self.name} needs type {' or '.join(sorted(self.types))}"
        for name in self.required:
            if name not in definition:
                return None, f"a {self.name} needs {name}"
        for name, check, what in self.keywords:
            if name in definition and not check(definition[name]):
                return name, f"{name} is {describe(definition[name])}; a {self.name} needs {what}"
        return None


_TEXT: Final = (("title", _is_str, "a string"), ("description", _is_str, "a string"))
_SINGLE: Final = (*_TEXT, ("default", _is_str, "a string"))
_MULTI: Final = (*_TEXT, ("default", is_strings, "an array of strings"),
                 ("minItems", _is_int, "an integer"), ("maxItems", _is_int, "an integer"))
_STRING: Final = _Variant("string schema", frozenset({"string"}), (), (
    *_SINGLE, ("minLength", _is_int, "an integer"), ("maxLength", _is_int, "an integer"),
    ("format", _is_format, "one of date, date-time, email, uri")))
_NUMBER: Final = _Variant("number schema", frozenset({"number", "integer"}), (), (
    *_TEXT, ("default", _is_number, "a number"), ("minimum", _is_number, "a number"),
    ("maximum", _is_number, "a number")))
_BOOLEAN: Final = _Variant("boolean schema", frozenset({"boolean"}), (), (*_TEXT, ("default", _is_bool, "a boolean")))
_UNTITLED_SINGLE: Final = _Variant("single-select enum", frozenset({"string"}), ("enum",), (
    *_SINGLE, ("enum", is_strings, "an array of strings")))
_TITLED_SINGLE: Final = _Variant("titled single-select enum", frozenset({"string"}), ("oneOf",), (
    *_SINGLE, ("oneOf", _is_options, 'an array of {"const": string, "title": string}')))
_LEGACY: Final = _Variant("legacy titled enum", frozenset({"string"}), ("enum",), (
    *_SINGLE, ("enum", is_strings, "an array of strings"), ("enumNames", is_strings, "an array of strings")))
_UNTITLED_MULTI: Final = _Variant("multi-select enum", frozenset({"array"}), ("items",), (
    *_MULTI, ("items", _is_untitled_items, 'an object {"type": "string", "enum": [strings]}')))
_TITLED_MULTI: Final = _Variant("titled multi-select enum", frozenset({"array"}), ("items",), (
    *_MULTI, ("items", _is_titled_items, 'an object {"anyOf": [{"const": string, "title": string}]}')))
_VARIANTS: Final = (_STRING, _NUMBER, _BOOLEAN, _UNTITLED_SINGLE, _TITLED_SINGLE, _UNTITLED_MULTI,
                    _TITLED_MULTI, _LEGACY)
_PRIMITIVE_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array"})
# 2025-06-18's PrimitiveSchemaDefinition: StringSchema, NumberSchema, BooleanSchema, EnumSchema
# (a default on BooleanSchema alone; an open member on the others)
_MEASURES: Final = (("minLength", _is_int, "an integer"), ("maxLength", _is_int, "an integer"),
                    ("format", _is_format, "one of date, date-time, email, uri"))
_STRING_2025_06: Final = _Variant("string schema", frozenset({"string"}), (), (*_TEXT, *_MEASURES))
_NUMBER_2025_06: Final = _Variant("number schema", frozenset({"number", "integer"}), (), (
    *_TEXT, ("minimum", _is_number, "a number"), ("maximum", _is_number, "a number")))
_ENUM_2025_06: Final = _Variant("enum schema", frozenset({"string"}), ("enum",), (
    *_TEXT, ("enum", is_strings, "an array of strings"), ("enumNames", is_strings, "an array of strings")))
_VARIANTS_2025_06: Final = (_STRING_2025_06, _NUMBER_2025_06, _BOOLEAN, _ENUM_2025_06)
_PRIMITIVE_TYPES_2025_06: Final = frozenset({"string", "number", "integer", "boolean"})


def _closest_2025_06(definition: Mapping[str, Any]) -> _Variant:
    """:func:`_closest` among 2025-06-18's four branches."""
    kind = definition.get("type")
    if kind in ("number", "integer"):
        return _NUMBER_2025_06
    if kind == "boolean":
        return _BOOLEAN
    return _ENUM_2025_06 if "enum" in definition else _STRING_2025_06


def _closest(definition: Mapping[str, Any]) -> _Variant:
    """The branch a definition was meant to be, to explain why it is none (error path only)."""
    kind = definition.get("type")
    if kind == "array":
        items = definition.get("items")
        return _TITLED_MULTI if isinstance(items, dict) and "anyOf" in items else _UNTITLED_MULTI
    if kind in ("number", "integer"):
        return _NUMBER
    if kind == "boolean":
        return _BOOLEAN
    if "oneOf" in definition:
        return _TITLED_SINGLE
    if "enum" in definition:
        return _LEGACY if "enumNames" in definition else _UNTITLED_SINGLE
    return _STRING


def _property(ctx: Context, definition: object, path: str) -> None:
    if not isinstance(definition, dict):
        ctx.add(path, "elicitation.property",
                f"the property is {describe(definition)}; a requested schema holds only primitive schema "
                "definitions (objects)")
        return
    kind = definition.get("type")
    latest = ctx.rules.requested_schema_defaults  # else 2025-06-18's four branches
    if not isinstance(kind, str) or kind not in (_PRIMITIVE_TYPES if latest else _PRIMITIVE_TYPES_2025_06):
        ctx.add(pointer(path, "type") if "type" in definition else path, "elicitation.property",
                f"the property's type is {describe(kind)}; a requested schema is flat: string, number, "
                "integer, boolean, or an enum " + ("(single- or multi-select)" if latest else
                                                   f"of strings ({ctx.rules.version} has no multi-select)")
                if "type" in definition else "the property has no type")
        return
    variants = _VARIANTS if latest else _VARIANTS_2025_06
    if any(variant.first_problem(definition) is None for variant in variants):
        return
    problem = (_closest if latest else _closest_2025_06)(definition).first_problem(definition)
    assert problem is not None  # no branch matched, the closest included
    keyword, why = problem
    ctx.add(pointer(path, keyword) if keyword is not None else path, "elicitation.property", why,
            definition.get(keyword) if keyword is not None else None)

"""JSON Schema as MCP uses it: dialects, local references only, bounds against hostile schemas.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#json-schema-usage):

- a schema without ``$schema`` is JSON Schema 2020-12; ``$schema`` selects another dialect the
  validator supports (draft-04, -06, -07, 2019-09, 2020-12); any other dialect is refused with
  a finding, never treated as a pass (``output.dialect``);
- ``$ref`` is resolved within the schema only (``#...`` pointers, ``$defs``, and resources the
  schema embeds with ``$id``). A network or file URI is never dereferenced: a schema with a
  reference that does not resolve inside it is rejected, not treated as permissive
  (``output.ref``);
- composition can be expensive, so a schema nesting deeper than ``SchemaLimits.max_depth``,
  holding more than ``SchemaLimits.max_subschemas`` subschemas (objects and booleans), whose
  subschema locations add up to more than ``SchemaLimits.max_location_chars`` characters, or
  whose keywords' values hold more than ``SchemaLimits.max_keyword_values`` JSON values, is
  rejected (``output.bounds``) before any validator is built, and one validation may run for at
  most ``SchemaLimits.time_budget`` seconds (``output.budget``); the annotations (``default``,
  ``examples``, ``title``...), which never change a verdict, are given to neither validator
  (:data:`_ANNOTATIONS`); a schema holding an integer past Python's digit limit for ``str``
  (``sys.get_int_max_str_digits``: a caller's parsed schema alone, the wire's reader refuses
  one) is refused as well, by its place and size (:func:`_unwritable`): its key cannot be
  written, nor jsonschema-rs read it;
- a schema that is not valid in its dialect is rejected (``output.schema_invalid``).

Two validators, chosen per schema (see README and benchmarks/bench_schema.py for the numbers):

- a schema without ``$ref`` (nor ``$dynamicRef``, nor 2019-09's ``$recursiveRef``) whose
  regular expressions all run on a linear-time engine (no lookaround, no backreference) is a
  tree, so validating costs at most its (bounded) number of subschemas times the size of the
  instance: it goes to jsonschema-rs with that engine, about
  two orders of magnitude faster, run offline — unless that product, weighed (:func:`costly`:
  the schema's weights per depth of the instance, computed once at compile, times the
  instance's values and characters at each depth), passes ``time_budget`` times
  :data:`RS_WORK_PER_SECOND`: jsonschema-rs cannot be interrupted (an ``allOf`` of 1,990 type
  checks on a million integers took 13.3 s), so such an instance goes to the guarded engine;
- a schema with ``$ref`` may recurse, and composition through recursion can cost exponential
  time; a pattern that needs backtracking can cost up to the engine's give-up on every string
  it meets: such a schema goes to the ``jsonschema`` package with every keyword wrapped to
  check the deadline, so the time budget is enforced inside the validation (a compiled
  validator cannot be interrupted), and its regular expressions run on jsonschema-rs's
  engine, one bounded match at a time (``_patterns``), never on Python's ``re`` — below a
  subschema naming its own ``$schema`` too (that dialect's guarded class, :func:`_guarded`);
- an instance holding an integer past Python's digit limit for ``str``, which jsonschema-rs
  reads as ``null``, goes to the guarded engine (:func:`_readable_bits`), whose messages
  name such an integer by its size (:func:`_guard_safe`);
- a schema with a subschema naming its own dialect (``$schema``) goes to the guarded engine
  as well: jsonschema-rs reads ``format`` in every subschema as the root's dialect says, the
  guarded engine each in its own (:func:`_check_bounds_and_refs`).

Both decide ``multipleOf``, the bounds, ``enum``, ``const`` and ``uniqueItems`` (exact
decimals), ``format`` (asserted in drafts 04-07, an annotation in 2019-09 and 2020-12), the
keywords some drafts lack (``dependencies``, ``contentEncoding``...), 2019-09's
``unevaluatedItems`` after a boolean ``items`` and a ``false`` subschema's place alike
(``_keywords``, :func:`_descend`), and refuse a draft-04 ``enum`` that is empty or repeats a
value alike (:func:`_draft4_enums`), so the verdict never depends on the engine that ran.

Compiled validators are cached by the schema's content. Both libraries load on first use: a
``$ref``-free schema never imports the ``jsonschema`` package (jsonschema-rs meta-validates it
too), and ``import mcp_verdict`` imports neither.
"""

from __future__ import annotations

import contextvars
import functools
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..verdict._classify import OptionError
from ..verdict._findings import Finding, finding, pointer, pointer_of
from ..verdict._parser import PARSER_MAX_DEPTH
from ..verdict._shown import shown
from ._decide import finite
from ._schema_bounds import (
    _ANNOTATIONS,
    _COMPOSITION,
    _MAPS,
    _SINGLE,
    _check_bounds_and_refs,
    _drop_all_annotations,
    _nodes,
    _subschemas,
)
from ._schema_cost import _levels, _readable_bits, _unreadable_integer, costly

DEFAULT_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
_DIALECTS: Final[dict[str, str]] = {
    "https://json-schema.org/draft/2020-12/schema": "Draft202012Validator",
    "https://json-schema.org/draft/2019-09/schema": "Draft201909Validator",
    "http://json-schema.org/draft-07/schema": "Draft7Validator",
    "http://json-schema.org/draft-06/schema": "Draft6Validator",
    "http://json-schema.org/draft-04/schema": "Draft4Validator",
}
"""Each supported dialect, and its validator class's name (the same in both libraries)."""
SUPPORTED_DIALECTS: Final = tuple(_DIALECTS)
_deadline: contextvars.ContextVar[float] = contextvars.ContextVar("mcp_verdict_schema_deadline")


@dataclass(frozen=True, slots=True)
class SchemaLimits:
    """Bounds against hostile schemas (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#composition-keyword-resource-use).

    ``max_depth`` is a positive integer of at most 200 (the wire parser's bound: no schema read
    from the wire nests deeper), ``max_subschemas`` and ``max_location_chars`` positive integers,
    ``time_budget`` a positive, finite number of seconds (an infinite budget is no bound). A bad
    one is an :class:`~mcp_verdict.OptionError` when the limits are made."""

    max_depth: int = 32
    max_subschemas: int = 2_000
    """Subschemas the schema may hold, the root, objects and booleans alike (jsonschema-rs builds
    a node for each: ``{"allOf": [true, ...]}`` with a million took 490 MB)."""
    time_budget: float = 0.5
    """Seconds one validation may take. jsonschema-rs cannot be interrupted: an instance whose
    estimated work on it (:func:`costly`) passes ``time_budget`` times :data:`RS_WORK_PER_SECOND`
    is validated on the deadline-guarded ``jsonschema`` engine instead."""
    max_location_chars: int = 4 * 1024 * 1024
    """Characters the schema's subschema locations may add up to: each subschema's JSON pointer
    from the schema's root (RFC 6901, escaped), counted once for the subschema and once more
    for each of its members but the annotations dropped before compiling (``title``,
    ``description``..., see ``max_keyword_values``: no validator keeps their locations; they
    count when a ``$ref`` points into one, which keeps them). A compiled jsonschema-rs
    validator keeps each keyword's location whole, so a member name of 100 KB above 500
    subschemas (a schema of 0.1 MB) took it some 140 MB, and a name of some MB above 2,000
    subschemas many GB; what real schemas hold is far below this (the whole MCP schema.json
    of 2025-11-25, ~900 subschemas: 114,229)."""
    max_keyword_values: int = 100_000
    """JSON values the schema's keywords may hold, added up over its subschemas: each value and
    member name in a keyword's value but its subschemas (``enum``, ``const``, ``required``, an
    unknown keyword's...). A compiled jsonschema-rs validator keeps each as a value of its own,
    some 100-500 bytes: an ``enum`` of 300,000 small objects (a schema of 6 MB) took it 710 MB,
    one of 300,000 strings 49 MB. The annotations that never change a verdict (``title``,
    ``description``, ``$comment``, ``default``, ``examples``, ``deprecated``, ``readOnly``,
    ``writeOnly``) are dropped before the schema is compiled, and not counted."""

    def __post_init__(self) -> None:
        for name in ("max_depth", "max_subschemas", "max_location_chars", "max_keyword_values"):
            value = getattr(self, name)
            deep = name == "max_depth"
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 \
                    or (deep and value > PARSER_MAX_DEPTH):
                expected = f"a positive integer of at most {PARSER_MAX_DEPTH}" if deep else "a positive integer"
                raise OptionError(f"SchemaLimits.{name}", expected, value,
                                  f"SchemaLimits.{name} must be {expected}, not {shown(value)}")
        budget = self.time_budget
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0 or not finite(budget):
            raise OptionError("SchemaLimits.time_budget", "a positive, finite number of seconds", budget,
                              f"SchemaLimits.time_budget must be a positive number of seconds, finite, "
                              f"not {shown(budget)}")


DEFAULT_SCHEMA_LIMITS: Final = SchemaLimits()


class _BudgetExceeded(Exception):
    pass


def check_deadline() -> None:
    """Stop the validation under way when it has run past its budget."""
    if time.monotonic() > _deadline.get():
        raise _BudgetExceeded


def _guard(check: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    def guarded(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if time.monotonic() > _deadline.get():
            raise _BudgetExceeded
        return check(validator, value, instance, schema)
    return guarded


def _too_many_digits(exc: ValueError) -> bool:
    """Whether ``exc`` is Python's refusal to write an integer past its digit limit for ``str``
    (``sys.get_int_max_str_digits``, 4,300 by default) as decimal text."""
    return "integer string conversion" in str(exc)


def _guard_safe(keyword: str, check: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """:func:`_guard`, and a message the keyword could not write (an integer past Python's digit
    limit for ``str``, which the ``jsonschema`` package's messages write with ``repr``) written
    bounded instead (:func:`~mcp_verdict.verdict._shown.shown` names such an integer by its
    size). A keyword's check writes its message only for an error, so the error stands."""
    def guarded(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if time.monotonic() > _deadline.get():
            raise _BudgetExceeded
        try:
            yield from check(validator, value, instance, schema) or ()
        except ValueError as exc:
            if not _too_many_digits(exc):
                raise
            from jsonschema.exceptions import ValidationError

            yield ValidationError(f"{shown(instance, 200)} does not conform to {keyword} {shown(value, 200)}")
    return guarded


_GUARDED: Final[dict[tuple[type[Any], bool], Any]] = {}
"""Each dialect's validator class, and each guarded class itself, to its guarded class (and to
its safe one, :func:`_guard_safe`)."""
_DIALECT_OF: Final[dict[type[Any], type[Any]]] = {}
"""Each guarded class to its dialect's validator class."""


def _guarded(cls: type[Any], safe: bool = False) -> Any:
    """The dialect's validator class with every keyword checking the deadline first, and the
    keywords that run a regular expression running it on a bounded engine (``_patterns``).

    Its ``evolve``, which the ``jsonschema`` package calls for each subschema it descends
    into, keeps to guarded classes: the package's own picks the class a subschema's
    ``$schema`` names from its registry, the unguarded one, so below a subschema holding
    ``$schema`` no keyword checked the deadline and ``pattern`` ran on Python's ``re`` (a
    composition through ``$ref`` ran for seconds past a budget of 0.05 s, and ``^(a+)+$`` on
    24 characters held a budget of 0.5 s for 1.1 s, doubling per character).

    ``safe``: each keyword writes a message it could not write bounded (:func:`_guard_safe`):
    the class :func:`validate` runs again with when a message raised (an integer past Python's
    digit limit for ``str``), never on the common path (a generator more per keyword)."""
    if (cls, safe) not in _GUARDED:
        from jsonschema import validators

        from . import _keywords, _patterns

        checks = {**cls.VALIDATORS, **_keywords.keywords(cls), **_patterns.keywords(cls)}
        wrapped = {name: _guard_safe(name, check) if safe else _guard(check) for name, check in checks.items()}
        guarded = validators.extend(cls, wrapped)
        # (its attrs fields, read off the class: the jsonschema package's own dependency, not ours)
        fields = tuple((field.name, field.alias) for field in guarded.__attrs_attrs__ if field.init)
        validator_for = validators.validator_for

        def evolve(self: Any, **changes: Any) -> Any:  # the package's evolve, but for the class it picks
            schema = changes.setdefault("schema", self.schema)
            new = validator_for(schema, default=guarded)
            if new is not guarded:  # the subschema names a dialect: its guarded class
                new = _guarded(new, safe)
            for name, argument in fields:
                if argument not in changes:
                    changes[argument] = getattr(self, name)
            return new(**changes)

        guarded.evolve = evolve
        guarded.descend = _descend(guarded.descend)
        _GUARDED[cls, safe] = _GUARDED[guarded, safe] = guarded
        _DIALECT_OF[guarded] = cls
    return _GUARDED[cls, safe]


def _descend(package: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """The package's ``descend``, but a ``false`` subschema's error placed at the member it was
    given, as any other subschema's is: the package's left out ``path`` (and ``schema_path``)
    for ``false`` alone, so ``{"properties": {"a": false}}`` failed ``{"a": 1}`` at the object on
    the guarded engine and at ``/a`` on jsonschema-rs (``items``' array of schemas,
    ``prefixItems``, ``patternProperties``, ``additionalProperties``... alike)."""
    def descend(self: Any, instance: Any, schema: Any, path: Any = None, schema_path: Any = None,
                resolver: Any = None) -> Iterator[Any]:
        if schema is not False:
            yield from package(self, instance, schema, path, schema_path, resolver)
            return
        for error in package(self, instance, schema, path, schema_path, resolver):
            if path is not None:
                error.path.appendleft(path)
            if schema_path is not None:
                error.schema_path.appendleft(schema_path)
            yield error
    return descend


def _safe_twin(validator: Any) -> Any:
    """``validator`` (of a guarded class) as its safe class's (:func:`_guarded`), the same schema,
    registry and all."""
    twin = _guarded(_DIALECT_OF[type(validator)], True)
    fields = tuple((field.name, field.alias) for field in twin.__attrs_attrs__ if field.init)
    return twin(**{argument: getattr(validator, name) for name, argument in fields})


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A schema ready to validate against, or the reason it cannot be used."""

    validator: Any
    problem: Finding | None
    dialect: str
    engine: str = "jsonschema"
    """"jsonschema-rs" for schemas without $ref, "jsonschema" (deadline-guarded) otherwise."""
    levels: tuple[tuple[int, int, int], ...] = ()
    """jsonschema-rs's: the schema's weights at each depth of the instance (:func:`_levels`), what
    :func:`costly` multiplies the instance's size at that depth by."""
    heaviest: int = 0
    """jsonschema-rs's: the largest weight in ``levels``, per value or per character."""
    key: str | bytes = b""
    """jsonschema-rs's: the schema's key, from which :func:`_fallback` builds the guarded validator."""
    unique: bool = False
    """jsonschema-rs's: the schema's key writes ``"uniqueItems":true``, so an instance that may
    hold an int and a float past 2^53 is validated by its twin (:func:`for_instance`)."""


def _offline(uri: str) -> Any:
    raise ValueError(f"{uri}: references outside the schema are never fetched")


def compile_schema(schema: object, where: str, limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS) -> CompiledSchema:
    """Check and compile a schema; the result is cached by the schema's content (:func:`schema_key`)."""
    try:
        key, parsed = _key_and_copy(schema)
    except RecursionError:  # nested past what the JSON writers follow: far past any max_depth
        return CompiledSchema(None, finding(where, "output.bounds",
                                            f"the schema nests deeper than {limits.max_depth} levels"), "")
    if key is None:
        return CompiledSchema(None, _unwritable(schema, where), "")
    if parsed is _UNPARSED:  # a key under 1 MiB: parsed again by _build, if not cached
        if isinstance(key, bytes) and len(key) >= _LARGE_KEY:
            parsed = _Source(schema)  # a large plain schema: _build may copy it but its annotations
        else:
            return _compile(key, where, limits)
    _parsed[0] = (key, parsed)  # built from this copy if not cached, never parsed again from key
    try:
        return _compile(key, where, limits)
    finally:
        _parsed[0] = None


def _unwritable(schema: object, where: str) -> Finding:
    """The finding for a schema :func:`schema_key` cannot write: one holding an integer past
    Python's digit limit for ``str`` (``sys.get_int_max_str_digits``, 4,300 by default: a
    caller's parsed value only, the wire's reader refuses such a number) names the first (in
    document order) by its place and size, ``output.bounds`` (a JSON number has no such limit,
    https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1: the schema is valid,
    the check cannot read it exactly); anything else is no JSON value (``output.schema_invalid``)."""
    most = _readable_bits()
    seen: set[int] = set()  # (a caller's value may hold itself: each container walked once)
    stack: list[tuple[object, str]] = [(schema, where)]
    while most is not None and stack:
        item, path = stack.pop()
        if type(item) is int or (isinstance(item, int) and not isinstance(item, bool)):
            if item.bit_length() > most:
                try:
                    str(item)
                except ValueError as exc:
                    if _too_many_digits(exc):
                        import sys

                        digits = int(item.bit_length() * 0.30103) + 1
                        return finding(path, "output.bounds",
                                       f"the schema holds an integer of about {digits} digits, past the "
                                       f"{sys.get_int_max_str_digits()} Python reads and writes as text "
                                       "(sys.get_int_max_str_digits): the check cannot read it exactly, so "
                                       "the schema is refused")
            continue
        if id(item) in seen:
            continue
        if isinstance(item, Mapping):
            seen.add(id(item))
            stack.extend((member, pointer(path, name) if isinstance(name, str) else path)
                         for name, member in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            seen.add(id(item))
            stack.extend((member, pointer(path, index)) for index, member in reversed(list(enumerate(item))))
    return finding(where, "output.schema_invalid", "the schema is not a JSON value")


_NO_SOURCE: Final = object()


def compile_key(key: str | bytes, where: str, limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
                source: object = _NO_SOURCE) -> CompiledSchema:
    """Compile the schema whose :func:`schema_key` is ``key`` (cached with ``compile_schema``'s).

    ``source``: the schema the key was written from, as the caller holds it now (the tap's and
    the audit's listed tool's ``outputSchema``). On a cache miss, a large key (:data:`_LARGE_KEY`)
    holding annotations is then copied from it piece by piece, each piece checked against the
    key (:func:`_copy_verified`: the copy is the key's content whatever became of ``source``;
    a piece that does not match means the key is parsed whole), as :func:`compile_schema`
    copies a large schema: without it the key was parsed whole, annotations and all (a
    ``default`` of 300,000 small objects, 18 MB of text, was some 130 MB of Python values,
    dropped once the bounds were checked)."""
    if source is _NO_SOURCE or not isinstance(key, bytes) or len(key) < _LARGE_KEY:
        return _compile(key, where, limits)
    _parsed[0] = (key, _Source(source))  # read by _build on a miss, for this very key object only
    try:
        return _compile(key, where, limits)
    finally:
        _parsed[0] = None


def schema_key(schema: object) -> str | bytes | None:
    """The schema's content as canonical JSON text (sorted keys), or None when it is not a JSON value.

    Compiled validators are cached by it, so a dict mutated since an earlier call never meets
    the validator compiled for its earlier content; a caller that must hold to a schema as it
    was at one moment (the tap, to the outputSchema as the server listed it) keeps the key.
    orjson writes it (a small schema in ~0.6 µs with the check below, where the standard
    library takes ~3 µs). orjson writes some values the standard library refuses (a NaN as
    ``null``, a UUID or a datetime as a string...): a text that does not read back as the same
    value takes the standard library's way, which refuses what is not JSON, as before. A value
    nested too deeply for the JSON writers to follow is None too (never a ``RecursionError``).
    """
    try:
        return _key(schema)
    except RecursionError:
        return None


def _key(schema: object) -> str | bytes | None:
    """:func:`schema_key`, raising ``RecursionError`` for a value nested past what the standard
    library's writer follows."""
    return _key_and_copy(schema)[0]


_LARGE_KEY: Final = 1 << 20
"""A key this long (bytes) is read back by the standard library's reader, and that copy is the
one compiled (:func:`_key_and_copy`)."""
_UNPARSED: Final = object()
_parsed: Final[list[tuple[str | bytes, Any] | None]] = [None]
"""The key :func:`compile_schema` compiles and the schema read back from it (or
:data:`_UNPARSED`, or a large plain schema to copy but its annotations, :class:`_Source`), for
:func:`_build` on a cache miss: the copy that proved the key faithful is the one compiled, not
a second parsed from the key (each a copy of the whole schema). A
plain global, set and cleared around the cached call (a context variable cost 0.3 µs a call,
cache hits included): :func:`_build` takes the copy only for the very key object it builds,
so another thread's compile meanwhile costs at most a parse from the key, never a wrong schema."""


class _Source:
    """A large plain schema (:func:`_plain`), or the schema a caller of :func:`compile_key` wrote
    a large key from, for :func:`_build` to copy on a cache miss when its key holds annotations
    and no reference (:func:`_annotated`, :func:`_copy_verified`)."""

    __slots__ = ("schema",)

    def __init__(self, schema: object) -> None:
        self.schema = schema


_ANNOTATION_NAMES: Final = tuple(f'"{name}":'.encode() for name in ("title", "description", "$comment", "default",
                                                                    "examples", "deprecated", "readOnly",
                                                                    "writeOnly"))
_REFERENCE_NAMES: Final = (b'"$ref":', b'"$dynamicRef":', b'"$recursiveRef":')


def _annotated(key: bytes) -> bool:
    """Whether the key may hold annotations (:data:`_ANNOTATIONS`) and holds no reference (a
    schema without any drops every annotation before compiling, :func:`_check_bounds_and_refs`)."""
    return any(name in key for name in _ANNOTATION_NAMES) and not any(name in key for name in _REFERENCE_NAMES)


class _Mismatch(Exception):
    pass


def _copy_verified(key: bytes, schema: Any, limits: SchemaLimits) -> Any:
    """The schema whose key is ``key`` as :func:`_build` compiles it (``json.loads(key)``, every
    subschema's annotations dropped: :func:`_drop_annotations`), without reading the
    annotations' values into Python: ``schema``, a reference-free schema the key was written
    from, is written again piece by piece (each keyword's value, with orjson) and each piece
    checked against the key at its place, the whole key covered; the copy is read from those
    checked pieces (so it is the key's content whatever the caller did to ``schema``
    meanwhile), and an annotation's piece is only checked, then let go. :data:`_UNPARSED` when a
    piece does not match (``schema`` changed since the key was written, or orjson writes some
    value otherwise than expected), or it holds more subschemas or members than the limits
    allow (the key's walk refuses it): then the key is parsed whole, as before. (A copy read
    from the key held every annotation too: a ``default`` of 300,000 small objects, 18 MB of
    text, was some 130 MB of Python values, dropped once the bounds were checked.)"""
    import orjson  # loaded already: the verdict reads with it

    sort = orjson.OPT_SORT_KEYS
    at = 0
    subschemas = members = 0
    most_members = 2 * limits.max_keyword_values + len(_ANNOTATIONS) * limits.max_subschemas

    def expect(text: bytes) -> None:
        nonlocal at
        if not key.startswith(text, at):
            raise _Mismatch
        at += len(text)

    def value(item: Any) -> Any:
        text = orjson.dumps(item, option=sort)
        expect(text)
        return json.loads(text)

    def name_of(name: Any) -> None:
        nonlocal members
        members += 1
        if members > most_members:
            raise _Mismatch
        expect(orjson.dumps(name))
        expect(b":")

    def node(item: Any) -> Any:  # a subschema
        nonlocal subschemas
        subschemas += 1
        if subschemas > limits.max_subschemas:
            raise _Mismatch
        if type(item) is bool:
            expect(b"true" if item else b"false")
            return item
        if type(item) is not dict:
            raise _Mismatch
        out: dict[str, Any] = {}
        expect(b"{")
        for index, name in enumerate(sorted(item)):
            if index:
                expect(b",")
            name_of(name)
            member = item[name]
            if name in _ANNOTATIONS:
                text = orjson.dumps(member, option=sort)
                expect(text)
                kind = _ANNOTATIONS[name]
                first = text[:1]
                if kind is None or (kind is str and first == b'"') or (kind is list and first == b"[") or (
                        kind is bool and text in (b"true", b"false")):
                    continue  # dropped (:func:`_dropped`, read off the checked text)
                out[name] = json.loads(text)
            else:
                out[name] = keyword(name, member)
        expect(b"}")
        return out

    def keyword(name: str, member: Any) -> Any:  # as _subschemas reads a subschema's member
        kind = type(member)
        if name in _SINGLE:
            if kind is dict or kind is bool:
                return node(member)
            if kind is list:
                return array(member)
        elif name in _COMPOSITION:
            if kind is list:
                return array(member)
        elif name in _MAPS and kind is dict:
            expect(b"{")
            out: dict[str, Any] = {}
            for index, each in enumerate(sorted(member)):
                if index:
                    expect(b",")
                name_of(each)
                inner = member[each]
                out[each] = node(inner) if type(inner) is dict or type(inner) is bool else value(inner)
            expect(b"}")
            return out
        return value(member)

    def array(items: list[Any]) -> list[Any]:
        expect(b"[")
        out = []
        for index, each in enumerate(items):
            if index:
                expect(b",")
            out.append(node(each) if type(each) is dict or type(each) is bool else value(each))
        expect(b"]")
        return out

    try:
        copy = node(schema)
    except (_Mismatch, TypeError, KeyError, RuntimeError):
        # (orjson.JSONEncodeError is a TypeError; a RecursionError a RuntimeError; a KeyError or
        # "changed size during iteration": a caller's schema changed by another thread meanwhile)
        return _UNPARSED
    return copy if at == len(key) else _UNPARSED


def _key_and_copy(schema: object) -> tuple[str | bytes | None, Any]:
    """:func:`_key`, and, for a key of :data:`_LARGE_KEY` or more of a schema that is not plain
    JSON (:func:`_plain`), the schema read back from it to prove it faithful (a private copy,
    equal to ``schema``), else :data:`_UNPARSED` (a small key's copy is let go at once: keeping
    it cost every call, cache hits included; a large plain schema's key is faithful without
    one: a copy some 7 times the key's size, made on every call, cache hits included, cost a
    schema of 18 MB 170 MB and 1.3 s a call)."""
    import orjson  # loaded already: the verdict reads with it

    try:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
        if len(key) < _LARGE_KEY:  # the common case: orjson's reader, fast; its copy let go at once
            if orjson.loads(key) == schema:
                return key, _UNPARSED
        elif _plain(schema):  # (a large schema read from the wire: _build parses the key on a miss)
            return key, _UNPARSED
        else:
            # orjson reads a text into a document of its own first, then into Python values:
            # twice the copy at its peak, where the standard library's reader needs the copy alone
            copy = json.loads(key)
            if copy == schema:
                return key, copy
            del copy
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        pass
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"), allow_nan=False), _UNPARSED
    except (TypeError, ValueError):
        return None, _UNPARSED


def _plain(schema: object) -> bool:
    """Whether ``schema``, which orjson has written (so its member names are strings, and it
    nests within orjson's depth limit), holds nothing but dicts, lists, strings, integers,
    finite floats, booleans and None, each of its exact type: orjson writes such a value as
    the JSON text that reads back as an equal value, so its key is faithful without reading it
    back. Anything else (a NaN, which orjson writes as ``null``, a tuple, a UUID, a subclass...)
    is proven by the copy, as before. (A walk, no copy: a schema some callers mutate from
    another thread meanwhile is theirs to hold still.)"""
    stack = [schema]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            stack.extend(item.values())  # type: ignore[attr-defined]
        elif kind is list:
            stack.extend(item)  # type: ignore[arg-type]
        elif kind is not float or item - item != 0.0:  # type: ignore[operator]  # (a NaN or an infinity)
            return False
    return True


@functools.lru_cache(maxsize=512)
def _compile(key: str | bytes, where: str, limits: SchemaLimits) -> CompiledSchema:
    try:
        return _build(key, where, limits)
    except RecursionError:  # the jsonschema package's meta-validation recurses per level of the schema
        return CompiledSchema(None, finding(where, "output.bounds", "the schema nests too deeply to be checked"), "")


def _build(key: str | bytes, where: str, limits: SchemaLimits) -> CompiledSchema:
    given, parsed = _parsed[0] or (b"", _UNPARSED)
    if given is key and isinstance(parsed, _Source) and isinstance(key, bytes):
        parsed = _copy_verified(key, parsed.schema, limits) if _annotated(key) else _UNPARSED
    schema = parsed if given is key and parsed is not _UNPARSED else json.loads(key)
    del parsed
    if isinstance(schema, bool):
        import jsonschema_rs

        return CompiledSchema(jsonschema_rs.Draft202012Validator(schema, retriever=_offline), None, DEFAULT_DIALECT,
                              "jsonschema-rs", key=key)
    if not isinstance(schema, dict):
        return CompiledSchema(None, finding(where, "output.schema_invalid",
                                            f"a schema is an object or a boolean, not {type(schema).__name__}"), "")
    dialect = schema.get("$schema", DEFAULT_DIALECT)
    name = _DIALECTS.get(dialect.rstrip("#")) if isinstance(dialect, str) else None
    if name is None:
        return CompiledSchema(None, finding(pointer(where, "$schema"), "output.dialect",
                                            f"dialect {shown(dialect, 200)} is not supported; supported: "
                                            + ", ".join(SUPPORTED_DIALECTS)),
                              dialect if isinstance(dialect, str) else shown(dialect, 200))
    problem, guarded, patterns = _check_bounds_and_refs(schema, where, limits)
    if problem is not None:
        return CompiledSchema(None, problem, str(dialect))
    if not guarded and all(_linear(pattern) for _, pattern in patterns):
        import jsonschema_rs

        from ._keywords import big_keywords

        big = big_keywords(key, lambda: _nodes(schema))
        try:  # (the constructor meta-validates the schema, with the same error)
            validator = _rs_validator(schema, name, key, big, False)
        except jsonschema_rs.ValidationError as exc:
            at = pointer_of(where, exc.instance_path)
            return CompiledSchema(None, finding(at, "output.schema_invalid",
                                                f"the schema is invalid: {bounded(exc.message)}"), str(dialect))
        except ValueError:  # jsonschema-rs reads a schema nested past its recursion limit no further
            return CompiledSchema(None, finding(where, "output.bounds", "the schema nests too deeply to be checked"),
                                  str(dialect))
        if name == "Draft4Validator":
            problem = _draft4_enums(schema, where)
            if problem is not None:
                return CompiledSchema(None, problem, str(dialect))
        levels = _levels(schema, big)
        return CompiledSchema(validator, None, str(dialect), "jsonschema-rs", levels,
                              max(max(weight, per_char) for weight, per_char, _ in levels), key, _unique(key))
    return _guarded_schema(schema, where, name, str(dialect), patterns)


def _draft7_write_only(schema: Any, where: str) -> Finding | None:
    """The first draft-07 ``writeOnly`` that is no boolean: "The value of these keywords MUST be
    a boolean" (https://json-schema.org/draft-07/json-schema-validation#section-10.3, ``readOnly``
    and ``writeOnly``; the draft-07 meta-schema json-schema.org serves says so too). The
    ``jsonschema`` package's draft-07 meta-schema lacks ``writeOnly``, jsonschema-rs's has it, so
    ``"writeOnly": "yes"`` was refused without a ``$ref`` and held to with one."""
    for node, path in _nodes_at(schema, where):
        if "writeOnly" in node and not isinstance(node["writeOnly"], bool):
            return finding(pointer(path, "writeOnly"), "output.schema_invalid",
                           f"the schema is invalid: {shown(node['writeOnly'], 200)} is not of type 'boolean'")
    return None


def _nodes_at(schema: Any, where: str) -> Iterator[tuple[dict[str, Any], str]]:
    """The subschemas of ``schema`` (bounded already) that are objects, each with its pointer
    (``where`` the root's), in document order."""
    stack: list[tuple[Any, str]] = [(schema, where)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            yield node, path
            stack.extend((child, at) for child, at, _, _ in reversed(list(_subschemas(node, path, 0))))


def _draft4_enums(schema: Any, where: str) -> Finding | None:
    """The first ``enum`` of a draft-04 schema that is empty or repeats a value (equal as JSON
    Schema reads them, ``_keywords.unique``), as the meta-validation finds it: draft 04's
    ``enum`` "MUST have at least one element. Elements in the array MUST be unique"
    (https://json-schema.org/draft-04/draft-fge-json-schema-validation-00#section-5.5.1.1; its
    meta-schema's ``minItems``: 1 and ``uniqueItems``: true). jsonschema-rs's draft-04
    meta-validation let both pass, the guarded engine's refused them, so such a schema was
    refused or held to by whether it held a ``$ref``; both engines now ask this, after their
    meta-validation (the guarded engine's leaves draft 04's ``enum`` to it, :func:`_meta_schema`,
    whose ``uniqueItems`` compared numbers as Python does)."""
    from ._keywords import unique

    for node, path in _nodes_at(schema, where):
        values = node.get("enum")
        if isinstance(values, list) and not values:
            return finding(pointer(path, "enum"), "output.schema_invalid",
                           "the schema is invalid: [] should be non-empty")
        if isinstance(values, list) and not unique(values):
            return finding(pointer(path, "enum"), "output.schema_invalid",
                           f"the schema is invalid: {shown(values, 200)} has non-unique elements")
    return None


def _unique(key: str | bytes) -> bool:
    """Whether the schema whose key is ``key`` may hold ``uniqueItems``: true (its text writes it)."""
    return b'"uniqueItems":true' in key if isinstance(key, bytes) else '"uniqueItems":true' in key


def _rs_validator(schema: Any, name: str, key: str | bytes, big: frozenset[str], exact_unique: bool) -> Any:
    """jsonschema-rs's validator of ``schema`` (``$ref``-free, its annotations dropped) in the
    dialect whose class is ``name``, with the keywords both engines must decide alike
    (``_keywords.rs_keywords``)."""
    import jsonschema_rs

    from ._keywords import asserts_formats, rs_keywords

    return getattr(jsonschema_rs, name)(schema, retriever=_offline, pattern_options=jsonschema_rs.RegexOptions(),
                                        validate_formats=asserts_formats(name),
                                        keywords=rs_keywords(name, key, big, exact_unique))


def for_instance(compiled: CompiledSchema, instance: object) -> CompiledSchema:
    """The compiled schema to validate ``instance`` with: ``compiled`` itself, but for a
    jsonschema-rs schema holding ``uniqueItems`` and an instance that may hold an int and a
    float past 2^53 (``_keywords.may_mix_big``): its twin, whose ``uniqueItems`` compares the
    decimals the numbers are written as (``_keywords.RsUnique``; jsonschema-rs's own compared
    a float by its binary value: ``[1e30, 10**30]`` passed it), compiled on first need."""
    if not compiled.unique:
        return compiled
    from ._keywords import may_mix_big

    return _exact_unique(compiled.key) if may_mix_big(instance) else compiled


@functools.lru_cache(maxsize=16)
def _exact_unique(key: str | bytes) -> CompiledSchema:
    """:func:`for_instance`'s twin of the jsonschema-rs schema whose key is ``key`` (compiled
    already: meta-validated, bounded), weighed with ``uniqueItems`` decided in Python."""
    from ._keywords import big_keywords

    schema = _drop_all_annotations(json.loads(key))
    dialect = DEFAULT_DIALECT if isinstance(schema, bool) else schema.get("$schema", DEFAULT_DIALECT)
    name = _DIALECTS[dialect.rstrip("#")]
    big = big_keywords(key, lambda: _nodes(schema))
    levels = _levels(schema, big | {"uniqueItems"})
    return CompiledSchema(_rs_validator(schema, name, key, big, True), None, str(dialect), "jsonschema-rs", levels,
                          max(max(weight, per_char) for weight, per_char, _ in levels), key)


@functools.lru_cache(maxsize=64)
def _fallback(key: str | bytes) -> Any:
    """The guarded ``jsonschema`` validator of a schema compiled for jsonschema-rs (its key), for
    an instance too large to validate on jsonschema-rs within the budget (:func:`costly`)."""
    import jsonschema
    import referencing

    schema = _drop_all_annotations(json.loads(key))  # jsonschema-rs took it: meta-validated, patterns compiled
    dialect = DEFAULT_DIALECT if isinstance(schema, bool) else schema.get("$schema", DEFAULT_DIALECT)
    cls = getattr(jsonschema, _DIALECTS[dialect.rstrip("#")])
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
    return _guarded(cls)(schema, registry=registry)


def _guarded_schema(schema: dict[str, Any], where: str, name: str, dialect: str,
                    patterns: list[tuple[str, str]]) -> CompiledSchema:
    """The schema on the deadline-guarded ``jsonschema`` engine (meta-validated, its patterns
    checked as the engine will run them)."""
    import jsonschema
    import referencing

    cls = getattr(jsonschema, name)
    problem = _meta_problem(cls, schema, where)
    if problem is None and name == "Draft7Validator":
        problem = _draft7_write_only(schema, where)
    if problem is not None:
        return CompiledSchema(None, problem, dialect)
    from . import _patterns

    for at, pattern in patterns:  # run as jsonschema-rs runs the patterns of a schema without $ref
        reason = _patterns.compile_error(pattern)
        if reason is not None:
            return CompiledSchema(None, finding(at, "output.schema_invalid",
                                                f"the schema is invalid: {bounded(reason)}"), dialect)
    if name == "Draft4Validator":  # (after the meta-validation and the patterns, as on jsonschema-rs)
        problem = _draft4_enums(schema, where)
        if problem is not None:
            return CompiledSchema(None, problem, dialect)
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg]
    validator = _guarded(cls)(schema, registry=registry)
    return CompiledSchema(validator, None, dialect, "jsonschema")


@functools.lru_cache(maxsize=1024)
def _linear(pattern: str) -> bool:
    """Whether ``pattern`` runs on jsonschema-rs's linear engine (the ``regex`` crate alone: no
    lookaround or backreference), where it cannot backtrack at all."""
    import jsonschema_rs

    try:
        jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=jsonschema_rs.RegexOptions())
    except jsonschema_rs.ValidationError:
        return False
    return True


def _meta_problem(cls: Any, schema: Mapping[str, Any], where: str) -> Finding | None:
    """``cls.check_schema``, with the ``regex`` format read as the validation will run it
    (``_patterns``: ECMA-262, where Python's ``re`` refuses ``\\p{L}`` and named groups
    ``(?<name>...)``), and draft 04's ``enum`` left to :func:`_draft4_enums` (:func:`_meta_schema`)."""
    import jsonschema

    from . import _patterns

    formats = cls.FORMAT_CHECKER
    checker = jsonschema.FormatChecker([name for name in formats.checkers if name != "regex"])
    checker.checks("regex")(lambda pattern: not isinstance(pattern, str) or _patterns.compile_error(pattern) is None)
    meta = cls(_meta_schema(cls), format_checker=checker)
    error = jsonschema.exceptions.best_match(meta.iter_errors(schema))
    if error is None:
        return None
    at = pointer_of(where, error.absolute_path)
    return finding(at, "output.schema_invalid", f"the schema is invalid: {bounded(error.message)}")


@functools.cache
def _meta_schema(cls: Any) -> Any:
    """The meta-schema the ``jsonschema`` dialect class ``cls`` meta-validates a schema with:
    its own, but draft 04's without ``minItems`` and ``uniqueItems`` on ``enum``, which
    :func:`_draft4_enums` checks after it, as on jsonschema-rs. The package's ``uniqueItems``
    compares numbers as Python does, an int with a float by the float's binary value: it took
    ``[1e30, 10**30]`` (the text ``1e30`` is 10^30, so the two are one number and the enum
    invalid) and refused ``[2**64, 1.8446744073709552e19]`` (that float's text is
    18446744073709552000, not 2^64), where :func:`_draft4_enums`, which compares the decimals
    the numbers are written as (``_keywords.unique``), decided the same schema without ``$ref``
    the other way both times. (The ``$ref: "#"`` of the copy's subschemas resolve to the copy,
    the meta-validator's root, so each nested ``enum`` is read by it too.)"""
    if cls.__name__ != "Draft4Validator":
        return cls.META_SCHEMA
    import copy

    meta = copy.deepcopy(cls.META_SCHEMA)
    meta["properties"]["enum"] = {"type": "array"}
    return meta


def _refuse(uri: str) -> Any:
    import referencing.exceptions

    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


def validate(compiled: CompiledSchema, instance: object, where: str,
             limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS, *, fits: bool | None = None) -> list[Finding]:
    """Validate ``instance`` (whose JSON pointer is ``where``): a finding for its first violation
    (jsonschema-rs), or for each of its first 20 (the ``jsonschema`` package), each message cut
    (:func:`bounded`); none when it conforms. An instance :func:`costly` on jsonschema-rs is
    validated on the guarded engine (``fits``: the caller's :func:`costly` already said it is
    not, True, or is, False; None: not asked yet)."""
    if compiled.problem is not None:
        return [compiled.problem]
    compiled = for_instance(compiled, instance)
    validator = compiled.validator
    if compiled.engine == "jsonschema-rs" and (not fits if fits is not None else costly(compiled, instance, limits)):
        validator = _fallback(compiled.key)  # too large to validate within the budget uninterruptibly
    elif compiled.engine == "jsonschema-rs":
        import jsonschema_rs  # already loaded: the validator is its

        try:
            if validator.is_valid(instance):  # the common case, without building error objects
                return []
            if _unreadable_integer(instance) if _long_integers(instance) else False:
                # its message would write an integer it read as null (at a depth no keyword read)
                validator = _fallback(compiled.key)
            else:
                # The first violation alone: jsonschema-rs builds every error at once (iter_errors
                # and evaluate alike), each with a copy of its instance and of its keyword's value,
                # so a 300 KB answer held to an allOf of 1,000 type checks needed more than 3 GB
                # and the allocator aborted the process; validate() stops at the first.
                validator.validate(instance)
                return []  # pragma: no cover - is_valid said no, validate found nothing
        except jsonschema_rs.ValidationError as first:
            return [finding(pointer_of(where, first.instance_path), "output.schema",
                            bounded(first.message))]
        except UnicodeEncodeError:  # a parsed value's lone surrogate, which jsonschema-rs cannot read
            return [unreadable_string(instance, where)]
    import referencing.exceptions  # already loaded: the jsonschema engine uses it

    token = _deadline.set(time.monotonic() + limits.time_budget)
    try:
        try:
            errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        except ValueError as exc:  # a message writing an integer past Python's digit limit for str:
            if not _too_many_digits(exc):  # again (within the same budget), each message bounded
                raise
            errors = sorted(_safe_twin(validator).iter_errors(instance), key=lambda e: list(e.absolute_path))
    except _BudgetExceeded:
        return [finding(where, "output.budget",
                        f"validation ran past its budget of {limits.time_budget} s and was stopped")]
    except referencing.exceptions.Unresolvable as exc:
        return [finding(where, "output.ref", f"a $ref does not resolve inside the schema: {bounded(str(exc))}")]
    except RecursionError:
        return [finding(where, "output.bounds", "the schema recurses too deeply for this instance")]
    except ValueError as exc:  # the root schema false: the one message no keyword writes
        if not _too_many_digits(exc):
            raise
        return [finding(where, "output.schema", f"{shown(instance, 200)} does not conform to the schema")]
    finally:
        _deadline.reset(token)
    out = []
    for error in errors[:20]:
        at = pointer_of(where, error.absolute_path)
        out.append(finding(at, "output.schema", bounded(error.message)))
    return out


def _long_integers(instance: object) -> bool:
    """Whether ``instance`` may hold an integer past 64 bits: orjson, which writes every other
    JSON value at C speed, refuses it (and a lone surrogate, which the caller finds apart)."""
    import orjson  # loaded already: the verdict reads with it

    try:
        orjson.dumps(instance)
    except TypeError:  # orjson.JSONEncodeError
        return True
    return False


MESSAGE_LIMIT: Final = 500
"""The most characters of a validator's message a finding keeps (its head and its tail, around
the count of the whole): the message writes the failing value whole, which may be the whole
structuredContent, megabytes."""


def bounded(message: str) -> str:
    """A validator's message, at most about :data:`MESSAGE_LIMIT` characters: its head, the count,
    and its tail (which says what the value is not: ``... is not of type "string"``)."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    half = MESSAGE_LIMIT // 2
    return f"{message[:half]}… ({len(message)} characters in all) …{message[-half:]}"


def unreadable_string(instance: object, where: str) -> Finding:
    """The finding for an instance holding a string (or member name) with a lone surrogate, as
    a value handed to ``classify`` parsed may (``json.loads`` reads ``"\\ud800"`` so): no JSON
    text carries it and jsonschema-rs cannot read it, so the value is not held to the schema;
    the finding names the first such string (in document order)."""
    stack: list[tuple[object, str]] = [(instance, where)]
    while stack:
        item, path = stack.pop()
        if type(item) is str and not _utf8(item):
            return finding(path, "output.schema", f"the string {shown(item)} holds a lone surrogate, which no JSON "
                                                  "text can carry: it cannot be held to the schema")
        if type(item) is dict:
            for key in item:
                if type(key) is str and not _utf8(key):
                    return finding(pointer(path, key), "output.schema",
                                   f"the member name {shown(key)} holds a lone surrogate, which no JSON text can "
                                   "carry: it cannot be held to the schema")
            stack.extend((member, pointer(path, key)) for key, member in reversed(item.items()))
        elif type(item) is list:
            stack.extend((member, pointer(path, index)) for index, member in reversed(list(enumerate(item))))
    return finding(where, "output.schema", "a string holds a lone surrogate, which no JSON text can carry: the "
                                           "value cannot be held to the schema")


def _utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

"""A small generator of valid instances from the official MCP JSON schemas, and their mutants.

It reads the subset of JSON Schema these schemas use (``type``, ``properties``, ``required``,
``additionalProperties``, ``enum``, ``const``, ``items``, ``maxItems``, ``anyOf``/``oneOf``,
``allOf`` of objects, ``$ref``, ``minimum``/``maximum``, ``format``) and nothing else: a keyword
it does not know raises, so a new schema cannot be generated from silently wrong.

Every choice goes through a :class:`Chooser`, so the same code is driven by hypothesis (which
then shrinks a failure to the first branch, the fewest members) or by a seeded ``random``
(the deterministic sweep). Generation is bounded: at ``max_depth`` optional members are left
out and arrays stay empty. Each generated value is recorded as a :class:`Site` (its path and the
schema it was made from), and :func:`mutations` lists the one-member changes a site admits:
a wrong JSON type, a missing required member, a value out of range, an unknown enum or const
value, a string outside its ``format``, an extra member (on a closed object: one the schema
refuses; on an open one: one it takes), an integer written with a fraction part, a bad array
item, one item too many.

Whether a mutant is valid is never decided here: the test asks the official schema.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

Path = tuple[str | int, ...]

_KNOWN = frozenset({"type", "properties", "required", "additionalProperties", "enum", "const", "items",
                    "maxItems", "anyOf", "oneOf", "allOf", "$ref", "minimum", "maximum", "format",
                    "description", "$comment", "default", "title", "examples", "deprecated",
                    "minItems"})
_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")
_SAMPLE: dict[str, Any] = {"string": "s", "integer": 7, "number": 2.5, "boolean": True, "null": None,
                           "array": [], "object": {}}
_STRINGS = ("", "a", "hello world", "héllo ☃", "line\nbreak", "😀")
_URIS = ("file:///tmp/a.txt", "https://example.com/r?q=1", "test://static/resource/1", "urn:x:y")
_TEMPLATES = ("file:///{path}", "https://example.com/{id}")
_BYTES = (b"", b"hello", b"\x00\x01\xff", bytes(range(32)))
_INTEGERS = (0, 1, -1, 42, 1000, 2**53)
_NUMBERS = (0, 0.5, 1, -3.25, 0.25, 1e300)
_BAD_FORMAT = {"uri": "not a uri", "uri-template": "{unclosed", "byte": "not*base64!"}
"""Strings outside a format (the schemas' formats annotate: JSON Schema does not assert them)."""
OPEN_KEYS = ("x", "note", "example.com/key", "a.b/c-d", "ünï")
_ANY: tuple[Any, ...] = ("s", 1, 0.5, True, None, {"k": "v"}, [1, "two"], {})


class Chooser(Protocol):
    def choose(self, n: int) -> int:
        """An index in range(n) (n ≥ 1); 0 is the simplest choice."""


class RandomChooser:
    """A seeded chooser for the deterministic sweep: ``full`` keeps every optional member,
    ``explore`` takes a branch whose definition was not made yet when there is one."""

    def __init__(self, rng: Any, *, full: bool = False, explore: bool = True) -> None:
        self._rng = rng
        self.full = full
        self.explore = explore

    def choose(self, n: int) -> int:
        return int(self._rng.randrange(n))


@dataclass(frozen=True)
class Site:
    path: Path
    schema: dict[str, Any]
    """The schema the value at ``path`` was made from ($ref resolved, the chosen branch)."""


@dataclass(frozen=True)
class Mutation:
    kind: str
    path: Path
    apply: Callable[[Any], Any]
    """Returns a mutated deep copy of the whole instance."""

    def __repr__(self) -> str:
        return f"Mutation({self.kind}@{'/'.join(map(str, self.path))})"


class SchemaError(LookupError):
    """The schema uses a keyword this generator does not read."""


class Generator:
    def __init__(self, root: dict[str, Any], *, max_depth: int = 8, max_items: int = 2) -> None:
        self.root = root
        self.defs_key = "$defs" if "$defs" in root else "definitions"
        self.defs: dict[str, Any] = root[self.defs_key]
        self.max_depth = max_depth
        self.max_items = max_items
        self.reached: set[str] = set()
        """Every definition a generated value was made from (a $ref followed)."""
        self._reachable: dict[str, set[str]] = {}

    def definition(self, name: str) -> dict[str, Any]:
        return {"$ref": f"#/{self.defs_key}/{name}"}

    def resolve(self, schema: dict[str, Any], *, record: bool = False) -> dict[str, Any]:
        seen = 0
        while "$ref" in schema:
            ref = schema["$ref"]
            prefix = f"#/{self.defs_key}/"
            if not ref.startswith(prefix):
                raise SchemaError(f"unsupported $ref {ref!r}")
            rest = {k: v for k, v in schema.items() if k not in ("$ref", "description")}
            name = ref[len(prefix):]
            if record:
                self.reached.add(name)
            schema = {**self.defs[name], **rest}
            seen += 1
            if seen > 50:
                raise SchemaError(f"$ref loop at {ref}")
        unknown = set(schema) - _KNOWN
        if unknown:
            raise SchemaError(f"unsupported keywords {sorted(unknown)}")
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for raw_part in schema["allOf"]:
                part = self.resolve(raw_part, record=record)
                for key, value in part.items():
                    if key == "properties":
                        merged["properties"] = {**merged.get("properties", {}), **value}
                    elif key == "required":
                        merged["required"] = sorted({*merged.get("required", []), *value})
                    elif key not in merged:
                        merged[key] = value
            schema = self.resolve(merged, record=record)
        return schema

    def reachable(self, name: str) -> set[str]:
        """Every definition reachable from ``name`` through $ref (``name`` included)."""
        if name in self._reachable:
            return self._reachable[name]
        seen: set[str] = set()
        todo = [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo.extend(_refs(self.defs[current], f"#/{self.defs_key}/"))
        self._reachable[name] = seen
        return seen

    def _unmade(self, schema: dict[str, Any]) -> bool:
        """Whether a definition reachable from ``schema`` was not made yet."""
        prefix = f"#/{self.defs_key}/"
        names: set[str] = set()
        for name in _refs(schema, prefix):
            names |= self.reachable(name)
        return not names <= self.reached

    def generate(self, schema: dict[str, Any], chooser: Chooser) -> tuple[Any, list[Site]]:
        sites: list[Site] = []
        value = self._gen(schema, chooser, (), 0, sites)
        return value, sites

    # -- generation -------------------------------------------------------------------------
    def _gen(self, schema: dict[str, Any], ch: Chooser, path: Path, depth: int, sites: list[Site]) -> Any:
        schema = self.resolve(schema, record=True)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = schema[key]
                if depth >= self.max_depth:  # prefer a branch that needs no nesting
                    branches = sorted(branches, key=lambda b: len(str(self.resolve(b))))
                if getattr(ch, "explore", False):  # the sweep: a definition not yet made, if any
                    fresh = [b for b in branches if self._unmade(b)]
                    branches = fresh or branches
                rest = {k: v for k, v in schema.items() if k not in (key,)}
                return self._gen({**rest, **branches[ch.choose(len(branches))]}, ch, path, depth, sites)
        sites.append(Site(path, schema))
        full = getattr(ch, "full", False)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if "enum" in schema:
            return copy.deepcopy(schema["enum"][ch.choose(len(schema["enum"]))])
        types = _types_of(schema)
        if not types:
            return copy.deepcopy(_ANY[ch.choose(len(_ANY))]) if depth < self.max_depth else None
        kind = types[ch.choose(len(types))]
        if kind == "object":
            return self._object(schema, ch, path, depth, sites)
        if kind == "array":
            items = schema.get("items", {})
            limit = min(self.max_items, schema.get("maxItems", self.max_items))
            count = 0 if depth >= self.max_depth else limit if full else ch.choose(limit + 1)
            count = max(count, schema.get("minItems", 0))
            return [self._gen(items, ch, (*path, i), depth + 1, sites) for i in range(count)]
        if kind == "string":
            fmt = schema.get("format")
            if fmt == "uri":
                return _URIS[ch.choose(len(_URIS))]
            if fmt == "uri-template":
                return _TEMPLATES[ch.choose(len(_TEMPLATES))]
            if fmt == "byte":
                return base64.b64encode(_BYTES[ch.choose(len(_BYTES))]).decode("ascii")
            if fmt is not None:
                raise SchemaError(f"unsupported format {fmt!r}")
            return _STRINGS[ch.choose(len(_STRINGS))]
        if kind in ("integer", "number"):
            pool = [n for n in (_INTEGERS if kind == "integer" else _NUMBERS) if _in_range(schema, n)]
            if not pool:
                pool = [schema.get("minimum", schema.get("maximum", 0))]
            return pool[ch.choose(len(pool))]
        if kind == "boolean":
            return ch.choose(2) == 1
        return None

    def _object(self, schema: dict[str, Any], ch: Chooser, path: Path, depth: int,
                sites: list[Site]) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        full = getattr(ch, "full", False)
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or (depth < self.max_depth and (full or ch.choose(2) == 1)):
                out[name] = self._gen(sub, ch, (*path, name), depth + 1, sites)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and depth < self.max_depth:
            count = 1 if full else int(ch.choose(3) == 2)
            if getattr(ch, "explore", False) and self._unmade(extra):
                count = self.max_items + 1
            for _ in range(count):
                key = OPEN_KEYS[ch.choose(len(OPEN_KEYS))]
                if key not in props and key not in out:
                    out[key] = self._gen(extra, ch, (*path, key), depth + 1, sites)
        return out


def _refs(schema: Any, prefix: str) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(prefix):
                yield value[len(prefix):]
            else:
                yield from _refs(value, prefix)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item, prefix)


def _types_of(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return ["object"]
        return []
    types = [declared] if isinstance(declared, str) else list(declared)
    for t in types:
        if t not in _TYPES:
            raise SchemaError(f"unknown type {t!r}")
    return types


def _in_range(schema: dict[str, Any], n: float) -> bool:
    return bool(schema.get("minimum", -float("inf")) <= n <= schema.get("maximum", float("inf")))


# -- mutations ----------------------------------------------------------------------------------

def _setter(path: Path, make: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(instance: Any) -> Any:
        out = copy.deepcopy(instance)
        if not path:
            return make(out)
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = make(parent[path[-1]])
        return out
    return apply


def _deleter(path: Path) -> Callable[[Any], Any]:
    def apply(instance: Any) -> Any:
        out = copy.deepcopy(instance)
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
        return out
    return apply


def _constant(value: Any) -> Callable[[Any], Any]:
    return lambda _old: copy.deepcopy(value)


def _with_extra(value: dict[str, Any]) -> dict[str, Any]:
    return {**value, "extraMember": "x"}


def _with_null_item(value: list[Any]) -> list[Any]:
    return [*value, None]


def _overfill(limit: int) -> Callable[[list[Any]], list[Any]]:
    return lambda items: (items * (limit + 1))[: limit + 1] if items else [None] * (limit + 1)


def _unknown_like(value: Any) -> Any:
    if isinstance(value, str):
        return value + "-unknown" if value else "unknown"
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    return "unknown"


def mutations(instance: Any, sites: list[Site], *, wrong_types: int = len(_TYPES)) -> Iterator[Mutation]:
    """Every one-member change the recorded sites admit, in a fixed order; ``wrong_types`` bounds
    the wrong JSON types tried at one site (rotated from site to site, so all are tried)."""
    for number, site in enumerate(sites):
        schema, path = site.schema, site.path
        try:
            current: Any = instance
            for step in path:
                current = current[step]
        except (KeyError, IndexError, TypeError):
            continue
        types = _types_of(schema) if "const" not in schema and "enum" not in schema else \
            sorted({_json_type(v) for v in schema.get("enum", [schema.get("const")])})
        if path and types:
            allowed = set(types) | ({"integer"} if "number" in types else set())
            wrong = [t for t in _TYPES if t not in allowed]
            wrong = (wrong[number % len(wrong):] + wrong[:number % len(wrong)])[:wrong_types] if wrong else []
            for t in wrong:
                sample = _SAMPLE[t]
                yield Mutation(f"wrong_type:{t}", path, _setter(path, _constant(sample)))
        if "integer" in types and isinstance(current, int) and not isinstance(current, bool):
            yield Mutation("integral_float", path, _setter(path, float))
        if "minimum" in schema:
            below = schema["minimum"] - (1 if "integer" in types else 0.5)
            yield Mutation("below_minimum", path, _setter(path, _constant(below)))
        if "maximum" in schema:
            above = schema["maximum"] + (1 if "integer" in types else 0.5)
            yield Mutation("above_maximum", path, _setter(path, _constant(above)))
        if "const" in schema or "enum" in schema:
            yield Mutation("unknown_enum", path, _setter(path, _unknown_like))
        if schema.get("format") in _BAD_FORMAT and isinstance(current, str):
            bad = _BAD_FORMAT[schema["format"]]
            yield Mutation(f"bad_format:{schema['format']}", path, _setter(path, _constant(bad)))
        if isinstance(current, dict):
            for name in schema.get("required", ()):
                if name in current:
                    yield Mutation(f"missing:{name}", (*path, name), _deleter((*path, name)))
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            kind = "extra_closed" if extra is False else "extra_open"
            if "extraMember" not in props:
                yield Mutation(kind, (*path, "extraMember"),
                               _setter(path, _with_extra))
        if isinstance(current, list):
            yield Mutation("bad_item", path, _setter(path, _with_null_item))
            if "maxItems" in schema:
                limit = schema["maxItems"]
                yield Mutation("too_many_items", path, _setter(path, _overfill(limit)))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"

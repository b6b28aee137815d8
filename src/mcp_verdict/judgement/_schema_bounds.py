"""A schema's bounds and references, checked before any validator is built
(:func:`_check_bounds_and_refs`: depth, subschemas, their locations' characters, the keywords'
values; ``$ref`` resolved within the schema only), and the annotations (``title``,
``default``...) that neither validator is given (:data:`_ANNOTATIONS`). The rules are
``_schema``'s docstring's; this module is where the bounds are counted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urldefrag, urljoin

from ..verdict._findings import Finding, finding, pointer
from ..verdict._shown import shown

if TYPE_CHECKING:
    from ._schema import SchemaLimits

_BASE: Final = "https://mcp-verdict.invalid/schema"  # the root of a schema without $id
_REFERENCES: Final = ("$ref", "$dynamicRef", "$recursiveRef")
"""The keywords that refer to a schema (``$recursiveRef``: 2019-09's ``$dynamicRef``); a schema
holding any may recurse, so it runs on the deadline-guarded ``jsonschema`` engine."""
_COMPOSITION: Final = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS: Final = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_ONE: Final = ("not", "if", "then", "else", "items", "contains", "additionalProperties",
                         "additionalItems", "unevaluatedItems", "unevaluatedProperties", "propertyNames")
_MAPS: Final = frozenset(_SUBSCHEMA_MAPS) | {"dependencies"}
_LISTS: Final = frozenset(_COMPOSITION) | {"items", "additionalItems"}  # (items: draft-04..07's tuple)
_SINGLE: Final = frozenset(_SUBSCHEMA_ONE)


def _check_bounds_and_refs(schema: Mapping[str, Any], where: str, limits: SchemaLimits,
                           ) -> tuple[Finding | None, bool, list[tuple[str, str]]]:
    """Walk the schema once: depth, subschema, location and keyword value bounds, and every $ref
    resolving inside it; the annotations no validator needs are dropped from each subschema at
    the end (:func:`_drop_annotations`: ``schema`` is the compile's private copy), unless a
    ``$ref`` points into one (:func:`_names_annotation`). Also says
    whether the schema must run on the guarded engine — it has a reference, or a subschema
    names a dialect of its own (``$schema``: jsonschema-rs reads every subschema in the root's,
    asserting ``format`` there or not as the root's dialect does, where the guarded engine
    follows each subschema's, :func:`_guarded`) —, and lists its regular expressions
    (``pattern`` values and ``patternProperties`` names, with their paths).

    The walk holds at most ``max_subschemas`` subschemas at once (every one stacked is one
    counted later: an ``allOf`` of ten million is refused at its 2,000th, not stacked whole), and
    each carries the length of its whole location (``path`` is the finding's pointer, which cuts
    a long name), so the bounds hold before anything builds the locations."""
    ids = {_BASE}
    refs: list[tuple[str, str, str]] = []  # (path, base, ref)
    patterns: list[tuple[str, str]] = []
    stack: list[tuple[Any, int, str, str, int]] = [(schema, 1, where, _BASE, 0)]
    count = 0
    locations = 0
    kept = 0  # the locations of the annotations' members, counted only if they are kept
    values = 0  # the JSON values in the keywords' values but their subschemas and annotations
    annotated: list[dict[str, Any]] = []  # the subschemas holding annotations to drop
    dialects = False  # a subschema names its own dialect
    most = limits.max_subschemas
    while stack:
        node, depth, path, base, length = stack.pop()
        count += 1
        if isinstance(node, bool):
            locations += length
        else:
            members = len(node)
            if not _ANNOTATIONS.keys().isdisjoint(node):
                dropped = sum(1 for k, v in node.items() if _dropped(k, v))
                if dropped:
                    annotated.append(node)
                    members -= dropped  # not compiled: no location kept (unless a $ref points into one)
                    kept += length * dropped
            locations += length * (1 + members)
        if locations > limits.max_location_chars:
            return _too_long(where, limits), bool(refs), patterns
        if isinstance(node, bool):
            continue
        if depth > limits.max_depth:
            return finding(path, "output.bounds",
                           f"the schema nests deeper than {limits.max_depth} levels"), bool(refs), patterns
        values += _own_values(node, limits.max_keyword_values - values)
        if values > limits.max_keyword_values:
            return finding(where, "output.bounds",
                           f"the schema's keywords hold more than {limits.max_keyword_values} JSON values (enum, "
                           "const, required, unknown keywords...: each value and member name, which a validator "
                           "keeps, some 100-500 bytes each)"), bool(refs), patterns
        if isinstance(node.get("$id"), str):
            base = urldefrag(urljoin(base, node["$id"])).url
            ids.add(base)
        if depth > 1 and "$schema" in node:
            dialects = True
        refs.extend((pointer(path, keyword), base, node[keyword])
                    for keyword in _REFERENCES if isinstance(node.get(keyword), str))
        if isinstance(node.get("pattern"), str):
            patterns.append((pointer(path, "pattern"), node["pattern"]))
        for child, at, at_length, name in _subschemas(node, path, length):
            stack.append((child, depth + 1, at, base, at_length))
            if count + len(stack) > most:
                return finding(where, "output.bounds",
                               f"the schema holds more than {most} subschemas"), bool(refs), patterns
            if name is not None:
                patterns.append((at, name))
    for path, base, ref in refs:
        target = urldefrag(urljoin(base, ref)).url
        if target not in ids:
            return finding(path, "output.ref",
                           f"$ref {shown(ref, 200)} points outside the schema; it is never fetched, so the schema is "
                           "rejected rather than treated as permissive"), True, patterns
    if any(_names_annotation(ref) for _, _, ref in refs):  # a $ref into one: all kept, and counted
        if locations + kept > limits.max_location_chars:
            return _too_long(where, limits), True, patterns
        for node in annotated:
            values += _own_values(node, limits.max_keyword_values - values, annotations=True)
            if values > limits.max_keyword_values:
                return finding(where, "output.bounds",
                               f"the schema's keywords hold more than {limits.max_keyword_values} JSON values "
                               "(enum, const, required, unknown keywords...: each value and member name, which a "
                               "validator keeps, some 100-500 bytes each)"), True, patterns
    else:
        for node in annotated:
            _drop_annotations(node)
    return None, bool(refs) or dialects, patterns


def _too_long(where: str, limits: SchemaLimits) -> Finding:
    return finding(where, "output.bounds",
                   f"the schema's subschema locations add up to more than {limits.max_location_chars} characters "
                   "(each subschema's JSON pointer, once for it and once per member but the annotations dropped: "
                   "a validator keeps them all)")


def _subschemas(node: Mapping[str, Any], path: str, length: int) -> Iterator[tuple[Any, str, int, str | None]]:
    """The subschemas (objects and booleans) right inside ``node``, whose pointer is ``path``
    and whose location is ``length`` characters long: each with its pointer, the length of its
    location, and its name when it is a ``patternProperties`` member (a regular expression)."""
    for keyword in _SUBSCHEMA_ONE:
        if keyword in node:
            value = node[keyword]
            at = length + 1 + len(keyword)
            if isinstance(value, list):  # draft-04..07 tuple items
                where = pointer(path, keyword)
                for i, v in enumerate(value):
                    if isinstance(v, (dict, bool)):
                        yield v, pointer(where, i), at + 1 + len(str(i)), None
            elif isinstance(value, (dict, bool)):
                yield value, pointer(path, keyword), at, None
    for keyword in _COMPOSITION:
        value = node.get(keyword)
        if isinstance(value, list):
            at = length + 1 + len(keyword)
            where = pointer(path, keyword)
            for i, v in enumerate(value):
                if isinstance(v, (dict, bool)):
                    yield v, pointer(where, i), at + 1 + len(str(i)), None
    for keyword in _SUBSCHEMA_MAPS:
        value = node.get(keyword)
        if isinstance(value, dict):
            at = length + 1 + len(keyword)
            where = pointer(path, keyword)
            regex = keyword == "patternProperties"
            for name, v in value.items():
                if isinstance(v, (dict, bool)):
                    yield v, pointer(where, name), at + _token_length(name), name if regex else None
    value = node.get("dependencies")
    if isinstance(value, dict):
        at = length + 1 + len("dependencies")
        where = pointer(path, "dependencies")
        for name, v in value.items():
            if isinstance(v, (dict, bool)):
                yield v, pointer(where, name), at + _token_length(name), None


_ANNOTATIONS: Final[dict[str, type[Any] | None]] = {
    "title": str, "description": str, "$comment": str, "default": None, "examples": list, "deprecated": bool,
    "readOnly": bool, "writeOnly": bool}
"""The annotation keywords (https://json-schema.org/draft/2020-12/json-schema-validation#section-9,
and ``$comment``: https://json-schema.org/draft/2020-12/json-schema-core#section-8.3), which
never change a verdict, and the kind of value each must have (None: any) for the schema to be
valid: one of another kind is left for the meta-validation to refuse. jsonschema-rs keeps each
value whole, some 100-300 bytes per JSON value (a ``default`` of 300,000 objects, 6.5 MB, took
it 470 MB), so neither engine is given them."""


def _dropped(keyword: str, value: Any) -> bool:
    """Whether ``keyword`` is an annotation (:data:`_ANNOTATIONS`) of a value of its kind."""
    if keyword not in _ANNOTATIONS:
        return False
    kind = _ANNOTATIONS[keyword]
    return kind is None or isinstance(value, kind)


def _names_annotation(ref: str) -> bool:
    """Whether the ``$ref`` ``ref``'s JSON pointer passes through an annotation's name (a
    reference to a schema written as a ``default``...: no validator is given annotations, so
    neither would resolve it; such a schema keeps its annotations)."""
    from urllib.parse import unquote

    return any(token in _ANNOTATIONS for token in unquote(urldefrag(ref).fragment).split("/"))


def _drop_annotations(node: dict[str, Any]) -> None:
    """Drop the annotations (:data:`_ANNOTATIONS`) from the subschema ``node`` (not from its
    subschemas: the walks visit each)."""
    for keyword in [keyword for keyword, value in node.items() if _dropped(keyword, value)]:
        del node[keyword]


def _drop_all_annotations(schema: Any) -> Any:
    """``schema`` (a private copy, bounded already) with :func:`_drop_annotations` done on each
    of its subschemas."""
    for node in _nodes(schema):
        _drop_annotations(node)
    return schema


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """The subschemas of ``schema`` (bounded already) that are objects, itself included."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(child for child, _, _, _ in _subschemas(node, "", 0))


def _own_values(node: Mapping[str, Any], room: int, annotations: bool = False) -> int:
    """The JSON values and member names in the keywords' values of the subschema ``node``, but
    its subschemas (each keyword's value counting one, a map of subschemas its names too) and
    the annotations dropped (:func:`_dropped`) — or in theirs alone (``annotations``) —, or a
    count past ``room`` as soon as it passes it."""
    count = 0
    stack: list[Any] = []
    for keyword, value in node.items():
        if keyword in _ANNOTATIONS:
            if _dropped(keyword, value) is not annotations:
                continue
        elif annotations:
            continue
        count += 1
        kind = type(value)
        if kind is str or kind is bool or kind is int or kind is float or value is None:
            continue  # (the common case: "type", "minimum"..., a boolean subschema)
        if kind is dict and keyword in _SINGLE:
            continue
        if keyword in _LISTS and kind is list:
            stack.extend(v for v in value if not isinstance(v, (dict, bool)))
        elif keyword in _MAPS and kind is dict:
            count += len(value)
            stack.extend(v for v in value.values() if not isinstance(v, (dict, bool)))
        else:
            stack.append(value)
            count -= 1  # (counted as it is read)
        if count > room:
            return count
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        if count > room:
            return count
    return count


def _token_length(name: str) -> int:
    """The length of ``/name`` in a JSON pointer (``~`` and ``/`` escaped in two characters)."""
    return 1 + len(name) + name.count("~") + name.count("/")

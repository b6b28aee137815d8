"""What validating an instance on jsonschema-rs may cost (:func:`costly`): the schema's weights
per depth of the instance (:func:`_levels`, computed once at compile) times the instance's values
and characters at each depth, against ``SchemaLimits.time_budget`` times
:data:`RS_WORK_PER_SECOND` (jsonschema-rs cannot be interrupted: a heavier instance goes to the
deadline-guarded engine); and the integers past Python's digit limit for ``str`` that
jsonschema-rs cannot read (:func:`_unreadable_integer`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from ._schema_bounds import _LISTS, _MAPS, _SINGLE

if TYPE_CHECKING:
    from ._schema import CompiledSchema, SchemaLimits

_INSTANCE_DEEPER: Final = frozenset({
    "items", "prefixItems", "additionalItems", "unevaluatedItems", "contains", "properties", "patternProperties",
    "additionalProperties", "unevaluatedProperties", "propertyNames"})
"""The keywords whose subschemas apply to the instance's members (one level deeper); the others'
(``allOf``, ``not``, ``if``, ``dependentSchemas``...) apply to the instance itself."""

RS_WORK_PER_SECOND: Final = 1_000_000_000
"""The work (:func:`costly`) jsonschema-rs is given per second of ``SchemaLimits.time_budget``:
an instance whose estimate is larger is validated on the deadline-guarded engine instead. The
weights (:data:`_NODE_COST`...) make one unit about a nanosecond or more of jsonschema-rs's
time in every case measured (some 45 pairs of keyword and instance, heavy ``allOf``,
``pattern``, numbers, ``uniqueItems``, ``enum``..., each at most ~1 ns per unit on this
project's machine): the estimate is an upper bound, so a heavy schema's large instance may go to the
guarded engine although jsonschema-rs would have been done within the budget."""
_NODE_COST: Final = 5
"""Per subschema met at an instance's value, and per JSON value of its keywords' (``type``: ~4 ns)."""
_NUMBER_COST: Final = 700
"""Per numeric comparison with a float or an integer past 64 bits (``minimum``...): ~280 ns
against an integer, ~600 ns against a float; per pair of integers past 64 bits compared for
``uniqueItems``, ~650 ns."""
_EQUAL_NUMBER_COST: Final = 1_200
"""Per such number in ``enum`` or ``const``: ~1.1 µs for a float ``const``."""
_WORD_NUMBER_COST: Final = 20
"""Per numeric comparison with an integer of 64 bits: 7-19 ns (against an integer past 64 bits,
~670 ns: such an instance value counts as more values, :func:`_work`)."""
_MULTIPLE_COST: Final = 20_000
"""Per ``multipleOf`` of a float: decided in Python (``_keywords.is_multiple``, exact decimal
arithmetic), called back from jsonschema-rs: ~5 µs for 19.99 and 0.01, ~8-16 µs for 1e308 and
a ``multipleOf`` of 1e-300."""
_WORD_MULTIPLE_COST: Final = 3_000
"""Per ``multipleOf`` of an integer of 64 bits, decided in Python as well: ~0.5-1 µs for an
integer or a float below 2^53, ~2.5 µs for a float past it."""
_CALLBACK_COST: Final = 6_000
"""Per check of a bound, ``enum`` or ``const`` decided in Python (``_keywords``: a schema holding
a number past 2^53 there), called back from jsonschema-rs: ~1-2 µs for a bound, ~3 µs for an
exact comparison of an int and a float both past 2^53, ~2.5-4 µs for an ``enum`` or ``const``
(measured on a loaded machine: an upper bound)."""
_PY_EQUAL_COST: Final = 1_000
"""Per value of such an ``enum`` or ``const`` (compared in Python, ~0.3-0.6 µs each), and per
value below the instance's it compares whole."""
_CHAR_COST: Final = 5
"""Per character of a string met by ``pattern`` or ``format`` (~4 ns); ``minLength``,
``maxLength`` and the others read a string at 1."""
_SUBTREE_COST: Final = 50
"""Per value below one that ``uniqueItems``, ``enum`` or ``const`` compares whole (~33 ns)."""
_NUMERIC: Final = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_MATCHING: Final = frozenset({"pattern", "format"})
_WHOLE: Final = frozenset({"uniqueItems", "enum", "const"})
_LOOKUP_COST: Final = 30
"""Per member of an object looked up in ``properties``, ``patternProperties``... (~28 ns)."""
_LOOKUPS: Final = frozenset({"required", "dependentRequired", "dependencies"})
"""Keywords whose names are each looked up in the object (~40 ns each: :data:`_SUBTREE_COST`)."""


Weights = list[tuple[int, int, int]]
"""Per depth of the instance: per value, per character of a string, per pair of long integers;
the last entry holds for every depth past the others."""


def _levels(schema: Any, big: frozenset[str] = frozenset()) -> tuple[tuple[int, int, int], ...]:
    """A ``$ref``-free schema's weights at each depth of the instance (:data:`Weights`): at depth
    ``d``, the subschemas that apply to the instance's values at that depth and their keywords
    (:data:`_NODE_COST`...), and, for a keyword comparing values whole (``uniqueItems``,
    ``enum``, ``const``), :data:`_SUBTREE_COST` at every depth below. A subschema of ``items``,
    ``properties``... applies one level deeper than its parent, one of ``allOf``, ``not``... at
    its parent's level; ``$defs`` (never applied without ``$ref``) is counted at its parent's.
    A value meets one of ``properties``' subschemas at most (and an item one of
    ``prefixItems``'): the heaviest counts, not their sum. Per pair of integers past 64 bits:
    jsonschema-rs compares such an array's items pairwise for ``uniqueItems``, ~650 ns a pair
    (16,000 of them took 83 s). (Recursive: the schema nests at most ``max_depth`` levels.)"""
    return tuple(_weigh(schema, big))


def _weigh(node: Any, big: frozenset[str]) -> Weights:
    weight, char, subtree, pair = _NODE_COST, 0, 0, 0
    total: Weights = [(0, 0, 0)]
    if isinstance(node, dict):
        for keyword, value in node.items():
            shift = keyword in _INSTANCE_DEEPER
            if keyword in _SINGLE and isinstance(value, (dict, bool)):
                total = _plus(total, _weigh(value, big), shift)
                continue
            own = value  # the keyword's value but its subschemas
            children: list[Any] = []
            if keyword in _LISTS and isinstance(value, list):
                children = [v for v in value if isinstance(v, (dict, bool))]
                own = [v for v in value if not isinstance(v, (dict, bool))]
            elif keyword in _MAPS and isinstance(value, dict):
                children = [v for v in value.values() if isinstance(v, (dict, bool))]
                own = [[name, v] for name, v in value.items() if not isinstance(v, (dict, bool))]
            if children:
                one = keyword in ("properties", "prefixItems", "items")  # a value meets one of them
                group = [_weigh(child, big) for child in children]
                merged = group[0]
                for weights in group[1:]:
                    merged = _most(merged, weights) if one else _plus(merged, weights, False)
                if keyword in _MAPS:  # each member looked up in the map: ~28 ns
                    merged = _plus(merged, [(_LOOKUP_COST, 0, 0), (0, 0, 0)], False)
                total = _plus(total, merged, shift)
            values, numbers = _size(own)
            weight += (_SUBTREE_COST if keyword in _LOOKUPS else _NODE_COST) * values
            if keyword == "multipleOf":
                weight += _WORD_MULTIPLE_COST if _word(value) else _MULTIPLE_COST
            elif keyword in _NUMERIC:
                weight += _WORD_NUMBER_COST if _word(value) else _NUMBER_COST
            elif keyword in _MATCHING:
                char += _CHAR_COST
            elif keyword in _WHOLE:
                weight += _EQUAL_NUMBER_COST * numbers
                subtree += _SUBTREE_COST * values
                if keyword == "uniqueItems" and value is True:
                    subtree += 2 * _SUBTREE_COST  # small arrays are compared pairwise
                    pair += _NUMBER_COST
            if keyword in big:  # decided in Python, called back (_keywords.RsBound, RsEnum, RsConst)
                weight += _CALLBACK_COST
                if keyword in _WHOLE:
                    weight += _PY_EQUAL_COST * values
                    subtree += _PY_EQUAL_COST * values
            char += 1
    return _plus([(weight, char, 0), (subtree, int(subtree > 0), pair)], total, False)


def _plus(a: Weights, b: Weights, shift: bool) -> Weights:
    """``a`` and ``b`` added, ``b`` one depth deeper when ``shift``."""
    if shift:
        b = [(0, 0, 0), *b]
    return [(x + u, y + v, z + w) for (x, y, z), (u, v, w) in zip(*_even(a, b), strict=True)]


def _most(a: Weights, b: Weights) -> Weights:
    """The heavier of ``a`` and ``b`` at each depth."""
    return [(max(x, u), max(y, v), max(z, w)) for (x, y, z), (u, v, w) in zip(*_even(a, b), strict=True)]


def _even(a: Weights, b: Weights) -> tuple[Weights, Weights]:
    """``a`` and ``b`` as long as each other, the shorter's last entry repeated (it holds for
    every depth past the others)."""
    size = max(len(a), len(b))
    return a + [a[-1]] * (size - len(a)), b + [b[-1]] * (size - len(b))


def _size(value: Any) -> tuple[int, int]:
    """The JSON values ``value`` holds, itself included, and the numbers among them that are not
    integers of 64 bits (what jsonschema-rs compares slowly)."""
    count = numbers = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) in (int, float) and not _word(item):  # (a bool is no number)
            numbers += 1
    return count, numbers


def _word(value: Any) -> bool:
    """Whether ``value`` is an integer jsonschema-rs holds in 64 bits (not a float, not a bool)."""
    return type(value) is int and -_WORD <= value < _WORD


def costly(compiled: CompiledSchema, instance: object, limits: SchemaLimits) -> bool:
    """Whether validating ``instance`` on jsonschema-rs, which cannot be interrupted, could run
    past ``limits.time_budget``: the schema's weights at each depth (:func:`_levels`) times the
    instance's values at that depth and the characters of its strings and member names there,
    added up over the depths, is more than ``time_budget`` times :data:`RS_WORK_PER_SECOND`.
    Without ``$ref`` a subschema applies only at its own depth, once per value there, so this
    bounds the work (an integer past 64 bits counts as more values: jsonschema-rs converts it
    at each comparison, in time that grows with its square).

    Read depth by depth, and stopped as soon as the estimate passes the bound: a level's values
    alone are counted (``len``) before the level is read, so a million-item array against a
    heavy ``items`` is refused without reading its items."""
    levels = compiled.levels
    bound = limits.time_budget * RS_WORK_PER_SECOND
    import orjson  # loaded already: the verdict reads with it

    if not levels:  # a boolean schema reads no value
        return False
    try:  # the common case at C speed: every value and every character is a byte or more of JSON text
        if compiled.heaviest * len(orjson.dumps(instance)) <= bound:  # (and no integer past 64 bits)
            return False
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits, a lone surrogate...
        pass
    return _work(levels, instance, bound) > bound


def _readable_bits() -> int | None:
    """The most bits of an integer jsonschema-rs is sure to read, or None for every integer.

    It reads an integer past 64 bits through its decimal text, exactly (``2**64``, ``10**30`` or
    one of 4,000 digits are compared, listed and matched exactly), but one past Python's digit
    limit for ``str`` (``sys.get_int_max_str_digits``, 4,300 by default; a JSON number has no
    such limit: https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1) as
    ``null``: ``{"maximum": 1}`` passed ``10**5000`` and ``{"type": "null"}`` failed it. 3 bits
    per digit of the limit: every integer past the limit has more (a digit is 3.32 bits); the
    few below it with more cost the guarded engine's time alone. (Read, never set: the limit is
    the process's.)"""
    import sys

    limit = sys.get_int_max_str_digits()
    return 3 * limit if limit else None


def _unreadable_integer(instance: object) -> bool:
    """Whether ``instance`` holds an integer jsonschema-rs may read as ``null``
    (:func:`_readable_bits`), however deep; :func:`_work` finds those a keyword reads."""
    most = _readable_bits()
    if most is None:
        return False
    stack: list[Any] = [instance]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is int:
            if item.bit_length() > most:
                return True
        elif kind is str or kind is float or kind is bool or item is None:
            continue
        elif kind is dict or (kind is not list and isinstance(item, Mapping)):
            stack.extend(item.values())
        elif kind is list or isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, int) and item.bit_length() > most:
            return True
    return False


def _work(levels: tuple[tuple[int, int, int], ...], instance: object, bound: float) -> int:
    """:func:`costly`'s estimate, or the part of it that first passed ``bound``; past ``bound``
    too when a value it reads is an integer jsonschema-rs may read as ``null``
    (:func:`_readable_bits`), for the guarded engine to compare exactly (a depth no keyword
    reads is not read: such an integer there changes no verdict, :func:`validate` sees to the
    message)."""
    work = 0
    most = _readable_bits()
    level: list[Any] = [instance]
    names = 0  # the characters of the member names of the level's objects (the next level's)
    last = len(levels) - 1
    depth = 0
    while True:
        weight, per_char, per_pair = levels[min(depth, last)]
        if weight == 0 and depth >= last:
            return work
        work += weight * len(level) + per_char * names
        if work > bound:
            return work
        below: list[Any] = []
        chars = names = heavy = long = 0
        for item in level:
            kind = type(item)
            if kind is str:
                chars += len(item)
            elif kind is dict or (kind is not list and isinstance(item, Mapping)):
                below.extend(item.values())
                try:
                    names += sum(map(len, item))
                except TypeError:  # a caller's dict with a key that is no string
                    names += len(item)
            elif kind is list or isinstance(item, (list, tuple)):
                below.extend(item)
            elif kind is int and not -_WORD <= item < _WORD:
                if most is not None and item.bit_length() > most:  # read as null: the guarded engine
                    return int(bound) + 1
                heavy += 64 * (item.bit_length() // 64 + 1) ** 2  # read at each comparison: ~670 ns
                long += 1
            elif isinstance(item, str):
                chars += len(item)
        work += per_char * chars + weight * heavy + per_pair * long * long
        if work > bound or not below:
            return work
        level = below
        depth += 1


_WORD: Final = 1 << 64

"""The keywords both validators must decide alike: ``multipleOf``, the bounds, ``enum`` and
``const`` on exact decimals, ``format``, and the keywords of some drafts only.

An outputSchema's instance is validated on jsonschema-rs or on the guarded ``jsonschema``
engine, chosen per call (``_schema``: by the schema's references and patterns, and by the
answer's size for a heavy schema), so the verdict must not depend on the engine. The two
libraries disagreed on these:

- ``multipleOf`` (https://json-schema.org/draft/2020-12/json-schema-validation#section-6.2.1,
  the same in drafts 04-07: "A numeric instance is valid only if division by this keyword's
  value results in an integer"). The numbers are the decimal numbers the JSON text writes
  (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.1: "number: An
  arbitrary-precision, base-10 decimal number value"; a float's rounding is no part of them).
  The ``jsonschema`` package divides floats (0.3 is no multiple of 0.1 there, 3.3 none of 1.1,
  10^30 one of 1.1), jsonschema-rs reads most decimals exactly but a float past 2^53 as its
  binary value (1e23 was no multiple of 5). Both now ask :func:`is_multiple`: each number as
  the decimal it is written as (a float as its shortest decimal, ``repr``: what the JSON
  parser read), divided exactly.
  jsonschema-rs is given it as a custom keyword (:class:`RsMultipleOf`) for a schema that
  holds ``multipleOf``, the guarded engine as its keyword (:func:`keywords`).
- ``maximum``, ``minimum``, ``exclusiveMaximum``, ``exclusiveMinimum`` (draft 04's boolean
  ones beside ``maximum``/``minimum`` too), ``enum`` and ``const``: their numbers are those
  decimals as well, two equal when their mathematical values are
  (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.2). Both libraries
  compared an int with a float by the float's binary value (the float read from ``1e30`` is
  10^30 + 19884624838656: ``{"maximum": 1e30}`` passed ``10**30 + 1``, ``{"maximum": 10**30}``
  failed ``1e30``, ``{"enum": [1e30]}`` failed ``10**30``). Only an int and a float both past
  2^53 compare otherwise than Python does (:func:`order`), so jsonschema-rs keeps its own
  keywords unless the schema holds a number past 2^53 in one (:func:`big_keywords`): then that
  keyword is a custom one (:class:`RsBound`, :class:`RsEnum`, :class:`RsConst`) and asks
  :func:`beyond` or :func:`same`, as the guarded engine's always do (:func:`keywords`).
- ``uniqueItems``: two items are equal as ``enum`` reads them (core §4.2.2; arrays item by
  item, objects member by member, however deep), and both libraries compared an int with a
  float by the float's binary value (Python's ``==``): ``[1e30, 10**30]`` passed it, and
  ``[2**64, 1.8446744073709552e19]`` failed it (that float's text is 18446744073709552000).
  The pair is the instance's, known only when it is read, and only an array holding both an
  int and a float past 2^53 (however deep, :func:`mixes_big`) compares otherwise than Python
  does: the guarded engine decides such an array by :func:`unique` and any other with the
  package's own check; jsonschema-rs keeps its own ``uniqueItems`` unless the instance may
  hold such a pair (:func:`may_mix_big`), when a twin validator of the schema whose
  ``uniqueItems`` is :class:`RsUnique` validates it (``_schema``: compiled on first need);
- ``format``: in drafts 04, 06 and 07 an implementation MAY assert it
  (https://json-schema.org/draft-07/json-schema-validation#section-7.2, draft-04's section
  7.2 alike); in 2019-09 and 2020-12 it is an annotation unless the format-assertion
  vocabulary is on (https://json-schema.org/draft/2020-12/json-schema-validation#section-7.2.1),
  and no dialect this check supports turns it on. jsonschema-rs asserted it in drafts 04-07 (its
  default), the ``jsonschema`` package never (it is given no format checker). Both now assert it
  in drafts 04-07 and neither in 2019-09 and 2020-12: jsonschema-rs with ``validate_formats``
  set so (:func:`asserts_formats`), the guarded engine by asking jsonschema-rs's own checker of
  that draft for each string (:func:`conforms`), so the two read each format alike
  (a format the draft does not define passes, as on jsonschema-rs);
- ``contentEncoding`` and ``contentMediaType``: draft 07 leaves asserting them to the
  implementation (its validation §8), 2019-09 and 2020-12 make them annotations, drafts 04 and
  06 have no such keywords. jsonschema-rs asserted them in drafts 06 and 07, the guarded engine
  never: now both in draft 07 alone (the guarded engine asks jsonschema-rs), neither elsewhere
  (jsonschema-rs is given a keyword that checks nothing in draft 06, :class:`RsIgnored`);
- ``dependencies``: 2019-09 split it into ``dependentRequired`` and ``dependentSchemas``, so in
  2019-09 and 2020-12 it is no keyword and asserts nothing; jsonschema-rs still asserted it
  there (now given :class:`RsIgnored`);
- 2019-09's ``unevaluatedItems`` after a boolean ``items`` (a schema, evaluating every item):
  the ``jsonschema`` package raised ``TypeError`` (:func:`unevaluated_items_2019`), and
  2020-12's ``items``: false, which the package failed at the array and jsonschema-rs at each
  item past ``prefixItems`` (now both at each item).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any, Final

from ..verdict._shown import shown


def _shown(value: Any) -> str:
    """A value for a message, at a bounded cost: never raises (an integer past Python's digit
    limit for ``str`` is named by its size), and a long string is cut."""
    return shown(value, 200)


_ASSERTING: Final = frozenset({"Draft4Validator", "Draft6Validator", "Draft7Validator"})
"""The dialects (validator class names) whose ``format`` is asserted."""
_CONTENT: Final = frozenset({"Draft7Validator"})
"""The dialects whose ``contentEncoding`` and ``contentMediaType`` are asserted."""


def asserts_formats(name: str) -> bool:
    """Whether ``format`` is asserted in the dialect whose validator class is ``name``."""
    return name in _ASSERTING


def _ratio(number: Any) -> tuple[int, int] | None:
    """``number`` as the exact decimal it is written as (numerator, denominator), or None for
    what is no finite number."""
    if type(number) is int:
        return number, 1
    if type(number) is float:
        # the shortest decimal that reads back as the float: what the JSON text wrote
        return Decimal(repr(number)).as_integer_ratio() if math.isfinite(number) else None
    if isinstance(number, Decimal):
        return number.as_integer_ratio() if number.is_finite() else None
    if isinstance(number, int) and not isinstance(number, bool):
        return int(number), 1
    if isinstance(number, float):
        return _ratio(float(number))
    return None


_EXACT: Final = float(1 << 53)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (a bool is not)."""
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def is_multiple(instance: Any, divisor: Any) -> bool:
    """Whether the number ``instance`` divided by ``divisor`` is an integer, both read as the
    decimals they are written as (a non-finite number is no multiple of anything)."""
    if type(divisor) is int and divisor != 0:
        if type(instance) is int:  # the common case, exact already
            return instance % divisor == 0
        if type(instance) is float and -_EXACT <= instance <= _EXACT:  # (not a NaN)
            # below 2^53 a float's decimal is an integer exactly when the float is one
            return instance.is_integer() and int(instance) % divisor == 0
    a, b = _ratio(instance), _ratio(divisor)
    if a is None or b is None or b[0] == 0:
        return False
    # a/b = (p/q) / (r/s) = p*s / (q*r): an integer when q*r divides p*s
    return (a[0] * b[1]) % (a[1] * b[0]) == 0


def _big(value: Any) -> bool:
    """Whether ``value`` is a number past 2^53 in magnitude (an int or a float; a bool is none)."""
    kind = type(value)
    if kind is int or kind is float or (isinstance(value, (int, float)) and kind is not bool):
        return not -_EXACT <= value <= _EXACT  # (a NaN is big: order's slow path finds it no number)
    return False  # (a Decimal, which no JSON reader here makes, compares with Python's exactness)


def order(a: Any, b: Any) -> int | None:
    """The order of the numbers ``a`` and ``b`` read as the decimals they are written as (a
    float as its shortest decimal, as :func:`is_multiple` reads it): -1, 0 or 1, or None when
    either is no finite number (a NaN is in no order; an infinity is ordered as Python orders it).

    Python compares an int with a float by the float's binary value: the text ``1e30`` is 10^30,
    but the float read from it is 10^30 + 19884624838656, so ``{"maximum": 10**30}`` failed
    ``1e30`` and ``{"maximum": 1e30}`` passed ``10**30 + 1``, on both engines. Two ints, two
    floats (the shortest decimals of two floats are ordered as the floats), or one of them within
    2^53 (a float there is an integer exactly when its decimal is one) are ordered exactly by
    Python: only an int and a float both past 2^53 take the exact way."""
    if type(a) is type(b) or not (_big(a) and _big(b)):  # (the common case: exact already)
        return -1 if a < b else (1 if a > b else (0 if a == b else None))
    x, y = _ratio(a), _ratio(b)
    if x is None or y is None:
        if a < b:
            return -1
        return 1 if a > b else (0 if a == b else None)
    left, right = x[0] * y[1], y[0] * x[1]  # (denominators are positive)
    return -1 if left < right else (1 if left > right else 0)


def same(a: Any, b: Any) -> bool:
    """Whether the JSON values ``a`` and ``b`` are equal
    (https://json-schema.org/draft/2020-12/json-schema-core#section-4.2.2: numbers by their
    mathematical value, :func:`order`, so 1.0 is 1 and 1e30 is 10^30; a bool is no number;
    arrays item by item; objects member by member)."""
    if a is b:
        return True
    kind, other = type(a), type(b)
    if kind is other and (kind is str or kind is int or kind is float):  # (the common cases, exact)
        return bool(a == b)
    if (kind is int or kind is float) and (other is int or other is float):
        return a == b if not (_big(a) and _big(b)) else order(a, b) == 0
    if is_number(a):
        return is_number(b) and order(a, b) == 0
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
        return type(a) is type(b) and a == b
    if isinstance(a, Mapping):
        return isinstance(b, Mapping) and len(a) == len(b) and all(k in b and same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(same, a, b))
    return bool(a == b)


def one_of(instance: Any, values: Any) -> bool:
    """Whether ``instance`` is equal to one of the ``enum`` ``values`` (:func:`same`; True for
    ``values`` that are no array, which the meta-validation refuses)."""
    if not isinstance(values, list):
        return True
    kind = type(instance)
    if kind is str:  # (the common cases: a string equals a string alone, ...
        return instance in values
    if (kind is int or kind is float) and -_EXACT <= instance <= _EXACT:  # ... a number within 2^53 a number
        return any(each == instance for each in values if type(each) is int or type(each) is float)  # (exactly)
    return any(same(instance, each) for each in values)


class _Kind:
    """A marker beside a value's items in its :func:`_exact` key (no JSON value is one)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


_ARRAY: Final = _Kind("array")
_OBJECT: Final = _Kind("object")
_BOOLEAN: Final = _Kind("boolean")


def _exact(value: Any) -> Any:
    """A hashable key of the JSON value ``value``, equal for two values exactly when they are
    equal as JSON Schema reads them (:func:`same`): a float past 2^53 is the decimal its
    shortest text writes (an int, or a Fraction), so it meets an int exactly as :func:`order`
    orders them; any other number is itself (Python compares those exactly); a bool is no
    number; arrays item by item, objects member by member."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if kind is float or (isinstance(value, (int, float)) and kind is not bool):
        if not _big(value):
            return value
        ratio = _ratio(value)
        if ratio is None:  # (a NaN or an infinity: itself)
            return value
        from fractions import Fraction

        return ratio[0] if ratio[1] == 1 else Fraction(*ratio)
    if isinstance(value, bool):
        return _BOOLEAN, value
    if isinstance(value, Mapping):
        return _OBJECT, frozenset((name, _exact(member)) for name, member in value.items())
    if isinstance(value, (list, tuple)):
        return _ARRAY, tuple(map(_exact, value))
    return value


def unique(items: Iterable[Any]) -> bool:
    """Whether no two of ``items`` are equal as JSON Schema reads them (:func:`same`:
    https://json-schema.org/draft/2020-12/json-schema-validation#section-6.4.3, equality by
    core §4.2.2): 1 and 1.0 are equal, ``1e30`` and ``10**30`` are, ``1.8446744073709552e19``
    and ``2**64`` are not."""
    seen: set[Any] = set()
    for item in items:
        key = _exact(item)
        if key in seen:
            return False
        seen.add(key)
    return True


def mixes_big(value: Any) -> bool:
    """Whether ``value`` holds, however deep, both an int and a float past 2^53 in magnitude:
    only such a pair compares otherwise than Python does (:func:`order`)."""
    ints = floats = False
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is int or kind is float:
            if not -_EXACT <= item <= _EXACT:
                if kind is int:
                    ints = True
                else:
                    floats = True
                if ints and floats:
                    return True
        elif kind is dict or (kind is not list and isinstance(item, Mapping)):
            stack.extend(item.values())
        elif kind is list or isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def may_mix_big(instance: Any) -> bool:
    """Whether the instance may hold an int and a float past 2^53 (:func:`mixes_big`): a JSON
    text writes such a number with 16 digits or more, or a float with an exponent, so a text
    without one (orjson's, at C speed) holds none; else, or when orjson cannot write it (an
    integer past 64 bits...), walked."""
    import orjson  # loaded already: the verdict reads with it

    try:
        text = orjson.dumps(instance)
    except TypeError:  # orjson.JSONEncodeError
        return mixes_big(instance)
    return _LONG.search(text) is not None and mixes_big(instance)


def holds_big(value: Any) -> bool:
    """Whether the keyword value ``value`` holds a number past 2^53 in magnitude (:func:`_big`),
    however deep: only such a number may compare with an instance's otherwise than Python does."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif _big(item):
            return True
    return False


_BOUNDS: Final[dict[str, tuple[int, bool, str]]] = {
    # keyword: (the order of a failing instance to the bound, whether equal fails too, the words)
    "maximum": (1, False, "greater than"),
    "minimum": (-1, False, "less than"),
    "exclusiveMaximum": (1, True, "greater than or equal to"),
    "exclusiveMinimum": (-1, True, "less than or equal to"),
}
_EXCLUSIVE: Final = {"maximum": "exclusiveMaximum", "minimum": "exclusiveMinimum"}


def beyond(keyword: str, instance: Any, bound: Any, schema: Any, draft4: bool) -> str | None:
    """The message for the number ``instance`` breaking the bound ``keyword`` (``maximum``,
    ``minimum``, ``exclusiveMaximum``, ``exclusiveMinimum``) of ``bound``, compared exactly
    (:func:`order`), or None when it keeps to it (or ``bound`` is no number). Draft 04's
    ``maximum`` and ``minimum`` are exclusive when the subschema ``schema`` says
    ``exclusiveMaximum``/``exclusiveMinimum``: true (whose own keyword checks nothing)."""
    if not is_number(bound):
        return None
    side, strict, words = _BOUNDS[keyword]
    if draft4:
        if keyword not in _EXCLUSIVE:
            return None
        if schema.get(_EXCLUSIVE[keyword]) is True:
            strict, words = True, f"{words} or equal to"
    found = order(instance, bound)
    if found == side or (strict and found == 0):
        return f"{_shown(instance)} is {words} the {'maximum' if side > 0 else 'minimum'} of {_shown(bound)}"
    return None


class RsBound:
    """jsonschema-rs's ``maximum``, ``minimum``, ``exclusiveMaximum`` and ``exclusiveMinimum``,
    decided by :func:`beyond` (custom keywords, given for a schema whose bound of that name
    somewhere is a number past 2^53, :func:`rs_keywords`)."""

    __slots__ = ("bound", "draft4", "keyword", "schema")
    keyword_name = ""
    draft4_class = False

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.keyword, self.draft4 = self.keyword_name, self.draft4_class
        self.bound, self.schema = value, parent_schema

    def validate(self, instance: Any) -> None:
        if is_number(instance):
            message = beyond(self.keyword, instance, self.bound, self.schema, self.draft4)
            if message is not None:
                raise ValueError(message)


def _rs_bound(keyword: str, draft4: bool) -> type[RsBound]:
    return type(f"Rs_{keyword}", (RsBound,), {"keyword_name": keyword, "draft4_class": draft4, "__slots__": ()})


_RS_BOUNDS: Final = {(keyword, draft4): _rs_bound(keyword, draft4) for keyword in _BOUNDS for draft4 in (False, True)}


class RsEnum:
    """jsonschema-rs's ``enum``, decided by :func:`same` for an ``enum`` holding a number past
    2^53 (jsonschema-rs's own for any other: equal there exactly)."""

    __slots__ = ("inner", "values")

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        import jsonschema_rs

        self.values = value
        self.inner = None if holds_big(value) else jsonschema_rs.validator_for({"enum": value})

    def validate(self, instance: Any) -> None:
        if self.inner.is_valid(instance) if self.inner is not None else one_of(instance, self.values):
            return
        raise ValueError(f"{_shown(instance)} is not one of {_shown(self.values)}")


class RsConst:
    """jsonschema-rs's ``const``, decided by :func:`same` (given for a schema whose ``const``
    somewhere holds a number past 2^53)."""

    __slots__ = ("value",)

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.value = value

    def validate(self, instance: Any) -> None:
        if not same(instance, self.value):
            raise ValueError(f"{_shown(self.value)} was expected")


class RsUnique:
    """jsonschema-rs's ``uniqueItems``, decided by :func:`unique` (given to the twin validator
    that validates an instance which may hold an int and a float past 2^53, ``_schema``)."""

    __slots__ = ("on",)

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.on = value is True

    def validate(self, instance: Any) -> None:
        if self.on and isinstance(instance, list) and not unique(instance):
            raise ValueError(f"{_shown(instance)} has non-unique elements")


class RsMultipleOf:
    """jsonschema-rs's ``multipleOf``, decided by :func:`is_multiple` (a custom keyword)."""

    __slots__ = ("divisor",)

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        self.divisor = value

    def validate(self, instance: Any) -> None:
        if is_number(instance) and not is_multiple(instance, self.divisor):
            raise ValueError(f"{_shown(instance)} is not a multiple of {_shown(self.divisor)}")


class RsIgnored:
    """A keyword jsonschema-rs reads in a dialect that has no such keyword (a custom keyword
    that checks nothing): 2019-09 and 2020-12 split ``dependencies`` into ``dependentRequired``
    and ``dependentSchemas``, and ``contentEncoding`` and ``contentMediaType`` came with draft 07.
    An unknown keyword is no assertion (https://json-schema.org/draft/2020-12/json-schema-core#section-6.5);
    jsonschema-rs asserted these, the guarded engine not."""

    __slots__ = ()

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        pass


_IGNORED: Final[dict[str, tuple[str, ...]]] = {
    "Draft6Validator": ("contentEncoding", "contentMediaType"),
    "Draft201909Validator": ("dependencies",),
    "Draft202012Validator": ("dependencies",),
}


_COMPARED: Final = (*_BOUNDS, "enum", "const")
"""The keywords whose value is compared with the instance's, exactly (:func:`order`,
:func:`same`) when it holds a number past 2^53."""


def rs_keywords(name: str, key: str | bytes, big: frozenset[str] = frozenset(),
                exact_unique: bool = False) -> dict[str, Any] | None:
    """The custom keywords jsonschema-rs is given for the schema whose key (its canonical JSON
    text) is ``key``, in the dialect whose validator class is ``name``: ``multipleOf`` decided
    by :func:`is_multiple`, the keywords the dialect does not have checking nothing, and the
    keywords of ``big`` (of :data:`_COMPARED`: a value of that name somewhere in the schema
    holds a number past 2^53, :func:`big_keywords`) decided exactly, and ``uniqueItems`` too
    with ``exact_unique`` (:class:`RsUnique`). None when the schema names none of them (the text
    holds no such string): nothing to call back."""
    def names(word: str) -> bool:
        quoted = f'"{word}"'
        return quoted.encode() in key if isinstance(key, bytes) else quoted in key

    out: dict[str, Any] = {word: RsIgnored for word in _IGNORED.get(name, ()) if names(word)}
    if names("multipleOf"):
        out["multipleOf"] = RsMultipleOf
    if exact_unique:
        out["uniqueItems"] = RsUnique
    draft4 = name == "Draft4Validator"
    for word in big:
        if word == "enum":
            out[word] = RsEnum
        elif word == "const":
            if not draft4:  # (no keyword of draft 04)
                out[word] = RsConst
        elif not draft4 or word in _EXCLUSIVE:  # (draft 04's exclusive ones are booleans: never big)
            out[word] = _RS_BOUNDS[word, draft4]  # draft 04: maximum and minimum read their exclusive flag
    return out or None


_LONG: Final = re.compile(rb"\d{16}|\d[eE]")
"""A number past 2^53 is written with 16 digits or more, or with an exponent (a float)."""


def big_keywords(key: str | bytes, nodes: Callable[[], Iterable[Mapping[str, Any]]]) -> frozenset[str]:
    """The keywords of :data:`_COMPARED` whose value in one of the subschemas ``nodes()`` gives
    holds a number past 2^53 (:func:`holds_big`); none, without a walk, when the schema's key
    writes no number that long (draft 04's ``exclusiveMaximum``: true names its ``maximum``)."""
    text = key if isinstance(key, bytes) else key.encode("utf-8", "surrogatepass")
    if _LONG.search(text) is None:
        return frozenset()
    out: set[str] = set()
    for node in nodes():
        for word in _COMPARED:
            if word in node and holds_big(node[word]):
                out.add(word)
    return frozenset(out)


@functools.lru_cache(maxsize=256)
def _rs_validator(name: str, keyword: str, value: str, encoding: str | None = None) -> Any:
    import jsonschema_rs

    schema = {keyword: value} if encoding is None else {keyword: value, "contentEncoding": encoding}
    return getattr(jsonschema_rs, name)(schema, validate_formats=True)


def conforms(name: str, keyword: str, value: str, text: str, encoding: str | None = None) -> bool | None:
    """Whether ``text`` conforms to ``{keyword: value}`` (with ``contentEncoding``: ``encoding``,
    when given) as jsonschema-rs's validator of the dialect whose class is ``name`` reads it,
    formats asserted (True for a format it does not know); None when ``text`` holds a lone
    surrogate, which no JSON text can carry and jsonschema-rs cannot read."""
    try:
        return bool(_rs_validator(name, keyword, value, encoding).is_valid(text))
    except UnicodeEncodeError:
        return None


def _evaluated_items_2019(validator: Any, instance: list[Any], schema: Any) -> list[int]:
    """The indexes of ``instance`` a 2019-09 subschema ``schema`` evaluates, for
    ``unevaluatedItems`` (https://json-schema.org/draft/2019-09/json-schema-core#section-9.3.1.3):
    the ``jsonschema`` package's own (``_legacy_keywords.find_evaluated_item_indexes_by_schema``,
    MIT), but an ``items`` that is a boolean schema is a schema, applied to every item, as an
    object one is: the package took it for an array of schemas and raised ``TypeError``
    (``len(True)``), so ``{"items": true, "unevaluatedItems": false}`` crashed the check on
    the guarded engine where jsonschema-rs passed every array."""
    if isinstance(schema, bool):
        return []
    evaluated: list[int] = []
    ref = schema.get("$ref")
    if ref is not None:
        resolved = validator._resolver.lookup(ref)
        evaluated.extend(_evaluated_items_2019(validator.evolve(schema=resolved.contents,
                                                                _resolver=resolved.resolver),
                                               instance, resolved.contents))
    if "$recursiveRef" in schema:
        from referencing.jsonschema import lookup_recursive_ref

        resolved = lookup_recursive_ref(validator._resolver)
        evaluated.extend(_evaluated_items_2019(validator.evolve(schema=resolved.contents,
                                                                _resolver=resolved.resolver),
                                               instance, resolved.contents))
    if "items" in schema:
        items = schema["items"]
        if "additionalItems" in schema or not isinstance(items, list):  # (a schema: every item)
            return list(range(len(instance)))
        evaluated += list(range(len(items)))
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            evaluated += _evaluated_items_2019(validator, instance, schema["if"])
            if "then" in schema:
                evaluated += _evaluated_items_2019(validator, instance, schema["then"])
        elif "else" in schema:
            evaluated += _evaluated_items_2019(validator, instance, schema["else"])
    for keyword in ("contains", "unevaluatedItems"):
        if keyword in schema:
            for index, item in enumerate(instance):
                if validator.evolve(schema=schema[keyword]).is_valid(item):
                    evaluated.append(index)
    for keyword in ("allOf", "oneOf", "anyOf"):
        if keyword in schema:
            for subschema in schema[keyword]:
                if next(validator.descend(instance, subschema), None) is None:
                    evaluated += _evaluated_items_2019(validator, instance, subschema)
    return evaluated


def unevaluated_items_2019(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """The guarded engine's 2019-09 ``unevaluatedItems`` (:func:`_evaluated_items_2019`),
    its message the package's."""
    if not validator.is_type(instance, "array"):
        return
    from jsonschema import _utils
    from jsonschema.exceptions import ValidationError

    evaluated = set(_evaluated_items_2019(validator, instance, schema))
    left = [item for index, item in enumerate(instance) if index not in evaluated]
    if left:
        extras, verb = _utils.extras_msg(left)
        yield ValidationError(f"Unevaluated items are not allowed ({extras} {verb} unexpected)")


def keywords(cls: Any) -> dict[str, Any]:
    """The guarded engine's ``multipleOf``, bounds, ``enum``, ``const``, ``uniqueItems`` and, in
    a dialect that asserts them, ``format``, ``contentEncoding`` and ``contentMediaType``,
    decided as on jsonschema-rs (for the ``jsonschema`` dialect class ``cls``; each string is
    asked of jsonschema-rs's own check)."""
    from jsonschema.exceptions import ValidationError

    def multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if is_number(instance) and not is_multiple(instance, divisor):
            yield ValidationError(f"{_shown(instance)} is not a multiple of {_shown(divisor)}")

    name = cls.__name__

    def as_rs(keyword: str, value: Any, instance: Any, encoding: str | None = None) -> Iterator[Any]:
        if isinstance(value, str) and isinstance(instance, str):  # (the deadline checked already: _guard)
            verdict = conforms(name, keyword, value, instance, encoding)
            if verdict is None:
                yield ValidationError(f"{_shown(instance)} holds a lone surrogate, which no JSON text can carry: it "
                                      f"cannot be held to {keyword} {_shown(value)}")
            elif not verdict:
                yield ValidationError(f"{_shown(instance)} is not a {_shown(value)}" if keyword == "format"
                                      else f"{_shown(instance)} does not conform to {keyword} {_shown(value)}")

    def format_(validator: Any, form: Any, instance: Any, schema: Any) -> Iterator[Any]:
        return as_rs("format", form, instance)

    def content_encoding(validator: Any, encoding: Any, instance: Any, schema: Any) -> Iterator[Any]:
        return as_rs("contentEncoding", encoding, instance)

    def content_media_type(validator: Any, media: Any, instance: Any, schema: Any) -> Iterator[Any]:
        encoding = schema.get("contentEncoding")
        if not isinstance(encoding, str):
            return as_rs("contentMediaType", media, instance)
        if conforms(name, "contentEncoding", encoding, instance) is False:  # contentEncoding's finding
            return iter(())
        return as_rs("contentMediaType", media, instance, encoding)

    draft4 = name == "Draft4Validator"

    def bound_check(keyword: str) -> Callable[..., Iterator[Any]]:
        def check(validator: Any, bound: Any, instance: Any, schema: Any) -> Iterator[Any]:
            if is_number(instance):
                message = beyond(keyword, instance, bound, schema, draft4)
                if message is not None:
                    yield ValidationError(message)
        return check

    def enum(validator: Any, values: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not one_of(instance, values):
            yield ValidationError(f"{_shown(instance)} is not one of {_shown(values)}")

    def const(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not same(instance, value):
            yield ValidationError(f"{_shown(value)} was expected")

    package_unique = cls.VALIDATORS["uniqueItems"]

    def unique_items(validator: Any, on: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if on is True and isinstance(instance, list) and mixes_big(instance):
            if not unique(instance):
                yield ValidationError(f"{_shown(instance)} has non-unique elements")
            return
        yield from package_unique(validator, on, instance, schema)

    out: dict[str, Any] = {"multipleOf": multiple_of, "enum": enum, "uniqueItems": unique_items}
    if name == "Draft201909Validator":
        out["unevaluatedItems"] = unevaluated_items_2019
    if name == "Draft202012Validator":
        package_items = cls.VALIDATORS["items"]

        def items(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
            """2020-12's ``items``: ``false`` fails each item past ``prefixItems`` at that
            item, as jsonschema-rs and every other subschema do (the package failed the array)."""
            if value is False and validator.is_type(instance, "array"):
                prefix = schema.get("prefixItems")
                for index in range(len(prefix) if isinstance(prefix, list) else 0, len(instance)):
                    yield from validator.descend(instance[index], False, path=index)
                return
            yield from package_items(validator, value, instance, schema)

        out["items"] = items
    for keyword in (_EXCLUSIVE if draft4 else _BOUNDS):
        out[keyword] = bound_check(keyword)
    if not draft4:
        out["const"] = const
    if asserts_formats(name):
        out["format"] = format_
    if name in _CONTENT:
        out["contentEncoding"] = content_encoding
        out["contentMediaType"] = content_media_type
    return out

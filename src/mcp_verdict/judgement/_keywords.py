"""The keywords both validators must decide alike: ``multipleOf``, ``format``, and the keywords
of some drafts only.

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
  there (now given :class:`RsIgnored`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
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


def rs_keywords(name: str, key: str | bytes) -> dict[str, Any] | None:
    """The custom keywords jsonschema-rs is given for the schema whose key (its canonical JSON
    text) is ``key``, in the dialect whose validator class is ``name``: ``multipleOf`` decided
    by :func:`is_multiple`, and the keywords the dialect does not have checking nothing. None
    when the schema names none of them (the text holds no such string): nothing to call back."""
    def names(word: str) -> bool:
        quoted = f'"{word}"'
        return quoted.encode() in key if isinstance(key, bytes) else quoted in key

    out: dict[str, Any] = {word: RsIgnored for word in _IGNORED.get(name, ()) if names(word)}
    if names("multipleOf"):
        out["multipleOf"] = RsMultipleOf
    return out or None


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


def keywords(cls: Any) -> dict[str, Any]:
    """The guarded engine's ``multipleOf`` and, in a dialect that asserts them, ``format``,
    ``contentEncoding`` and ``contentMediaType``, decided as on jsonschema-rs (for the
    ``jsonschema`` dialect class ``cls``; each string is asked of jsonschema-rs's own check)."""
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

    out: dict[str, Any] = {"multipleOf": multiple_of}
    if asserts_formats(name):
        out["format"] = format_
    if name in _CONTENT:
        out["contentEncoding"] = content_encoding
        out["contentMediaType"] = content_media_type
    return out

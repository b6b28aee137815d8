"""The regular expressions of an output schema with ``$ref``, run by a bounded engine.

Rule (https://json-schema.org/draft/2020-12/json-schema-core#name-regular-expressions): a
schema's regular expressions (``pattern``, the names of ``patternProperties``) are ECMA-262
regular expressions. A schema without ``$ref`` is validated by jsonschema-rs, whose engine
(the Rust ``regex`` crate, with ``fancy-regex`` for lookaround and backreferences) runs in
linear time or gives up after a bounded number of backtracking steps. A schema with ``$ref``
is validated by the ``jsonschema`` package (``_schema`` says why), which runs every regular
expression with Python's ``re``: a backtracking engine that no deadline can interrupt, so that
a server listing ``"pattern": "^(a+)+$"`` and answering a 30-character string held the caller
for minutes. (A schema without ``$ref`` whose patterns need lookaround or backreferences is
validated there too: jsonschema-rs's own give-up, a million steps, cost ~0.3 s a match here,
once per property name under ``patternProperties``, and it cannot be interrupted either.)
Here the keywords that run a regular expression (``pattern``,
``patternProperties``, ``additionalProperties`` and ``unevaluatedProperties``, which look for
the properties the patterns name) are given to that validator in versions that ask
jsonschema-rs's engine instead, so both validators read a pattern alike (ECMA-262, not
Python's dialect), each match within :data:`BACKTRACK_LIMIT` steps and the schema's time budget
checked before each. A pattern the engine gives up on is an error that says so, never a pass;
so is one it cannot run (Python-only syntax such as ``(?#...)`` or ``(?>...)``).

(The ``jsonschema`` package cannot swap its regular expression engine yet:
python-jsonschema/jsonschema#1142. The two functions that find evaluated properties follow
that package's own, 4.23-4.26, with the engine swapped.)

Loaded only for a schema validated by the ``jsonschema`` package; that package and
jsonschema-rs are loaded already then (and imported here where they are used, as everywhere
in the judgement).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, Final

from ._schema import check_deadline

BACKTRACK_LIMIT: Final = 100_000
"""Backtracking steps the engine may take for one match (a tenth of fancy-regex's default:
~30 ms here, where a pattern that needs them is one built to backtrack); the schema's time
budget is checked before each match."""
@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    """The engine's matcher for ``pattern``; None when the engine cannot run it."""
    import jsonschema_rs

    options = jsonschema_rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT)
    try:
        return jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=options)
    except jsonschema_rs.ValidationError:
        return None


def compile_error(pattern: str) -> str | None:
    """Why the engine cannot run ``pattern``, or None when it can."""
    if _compiled(pattern) is None:
        return f"{pattern!r} is not a regular expression this validator can run (ECMA-262)"
    return None


def search(pattern: str, text: str) -> Any:
    """Whether ``pattern`` matches somewhere in ``text`` (a bool), or the ValidationError that
    says why it cannot be told (the pattern cannot be run, or the engine gave up)."""
    import jsonschema_rs
    from jsonschema.exceptions import ValidationError

    check_deadline()
    validator = _compiled(pattern)
    if validator is None:
        return ValidationError(f"{pattern!r} is not a regular expression this validator can run (ECMA-262)")
    try:
        if validator.is_valid(text):
            return True
    except UnicodeEncodeError:  # a parsed value's lone surrogate: the engine reads UTF-8 only
        return ValidationError(f"{text!r} holds a lone surrogate, which no JSON text can carry: it cannot be matched "
                               f"against {pattern!r}")
    for error in validator.iter_errors(text):
        if isinstance(error.kind, jsonschema_rs.ValidationErrorKind.BacktrackLimitExceeded):
            return ValidationError(f"{text!r} could not be matched against {pattern!r}: the regular expression "
                                   f"engine gave up after {BACKTRACK_LIMIT:,} backtracking steps")
    return False


# --- the keywords ---------------------------------------------------------------------------
# Each has the signature of a jsonschema keyword function and the messages of the one it
# replaces.

def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string"):
        found = search(patrn, instance)
        if isinstance(found, ValidationError):
            yield found
        elif not found:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")


def patternProperties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    for patrn, subschema in patterns.items():
        for name, value in instance.items():
            found = search(patrn, name)
            if isinstance(found, ValidationError):
                yield found
            elif found:
                yield from validator.descend(value, subschema, path=name, schema_path=patrn)


def _named_by_patterns(names: Any, schema: Any, gave_up: list[Any]) -> set[str]:
    """The names that a pattern of ``schema``'s patternProperties matches; a name a pattern
    could not be matched against is not one, and ``gave_up`` gets the error that says why."""
    from jsonschema.exceptions import ValidationError

    named = set()
    for patrn in schema.get("patternProperties", ()):
        for name in names:
            found = search(patrn, name)
            if isinstance(found, ValidationError):
                gave_up.append(found)
            elif found:
                named.add(name)
    return named


def additionalProperties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    gave_up: list[Any] = []
    properties = schema.get("properties", {})
    named = _named_by_patterns([name for name in instance if name not in properties], schema, gave_up)
    yield from gave_up
    extras = {name for name in instance if name not in properties and name not in named}
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        ordered = sorted(extras, key=str)
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{', '.join(repr(each) for each in ordered)} {verb} not match any of the "
                                  f"regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({', '.join(repr(each) for each in ordered)} "
                                  f"{verb} unexpected)")


def _descend_valid(validator: Any, instance: Any, subschema: Any) -> bool:
    return next(validator.descend(instance, subschema), None) is None


def _evaluated(validator: Any, instance: Any, schema: Any, draft2019: bool,
               gave_up: list[Any]) -> list[str]:
    """The names of ``instance`` that ``schema`` evaluates (the properties
    ``unevaluatedProperties`` leaves alone), as the ``jsonschema`` package finds them."""
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[str] = []
    refs: list[Any] = []
    if schema.get("$ref") is not None:
        refs.append(validator._resolver.lookup(schema["$ref"]))
    if draft2019 and "$recursiveRef" in schema:
        from referencing.jsonschema import lookup_recursive_ref

        refs.append(lookup_recursive_ref(validator._resolver))
    if not draft2019 and schema.get("$dynamicRef") is not None:
        refs.append(validator._resolver.lookup(schema["$dynamicRef"]))
    for resolved in refs:
        keys.extend(_evaluated(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                               instance, resolved.contents, draft2019, gave_up))
    if draft2019:
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            if keyword in schema:
                value = schema[keyword]
                if validator.is_type(value, "boolean") and value:
                    keys.extend(instance)
                elif validator.is_type(value, "object"):
                    keys.extend(name for name in value if name in instance)
    else:
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys.extend(properties.keys() & instance.keys())
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            subschema = schema.get(keyword)
            if subschema is not None:
                keys.extend(name for name, value in instance.items() if _descend_valid(validator, value, subschema))
    if "patternProperties" in schema:
        keys.extend(_named_by_patterns(list(instance), schema, gave_up))
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys.extend(_evaluated(validator, instance, subschema, draft2019, gave_up))
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _descend_valid(validator, instance, subschema):
                keys.extend(_evaluated(validator, instance, subschema, draft2019, gave_up))
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys.extend(_evaluated(validator, instance, schema["if"], draft2019, gave_up))
            if "then" in schema:
                keys.extend(_evaluated(validator, instance, schema["then"], draft2019, gave_up))
        elif "else" in schema:
            keys.extend(_evaluated(validator, instance, schema["else"], draft2019, gave_up))
    return keys


def _unevaluated_properties(draft2019: bool) -> Callable[..., Iterator[Any]]:
    def unevaluatedProperties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema.exceptions import ValidationError

        if not validator.is_type(instance, "object"):
            return
        gave_up: list[Any] = []
        evaluated = set(_evaluated(validator, instance, schema, draft2019, gave_up))
        yield from gave_up
        left = [name for name in instance if name not in evaluated
                and not _descend_valid(validator, instance[name], unevaluated)]
        if left:
            verb = "was" if len(left) == 1 else "were"
            if unevaluated is False:
                names = ", ".join(repr(each) for each in sorted(left, key=str))
                yield ValidationError(f"Unevaluated properties are not allowed ({names} {verb} unexpected)")
            else:
                names = ", ".join(repr(each) for each in left)
                yield ValidationError("Unevaluated properties are not valid under the given schema "
                                      f"({names} {verb} unevaluated and invalid)")
    return unevaluatedProperties


def keywords(validator_class: Any) -> dict[str, Callable[..., Iterator[Any]]]:
    """The keywords of ``validator_class`` that run a regular expression, in their bounded
    versions (only those the dialect has)."""
    bounded: dict[str, Callable[..., Iterator[Any]]] = {
        "pattern": pattern, "patternProperties": patternProperties,
        "additionalProperties": additionalProperties,
        "unevaluatedProperties": _unevaluated_properties(
            validator_class.META_SCHEMA.get("$schema", "").startswith("https://json-schema.org/draft/2019-09")),
    }
    return {name: check for name, check in bounded.items() if name in validator_class.VALIDATORS}

"""The content check: is a normal_complete result the data the caller needs?

``complete`` is also how tool errors and error-shaped results arrive, and a well-formed result
can still carry the wrong data. A ``normal_complete`` verdict is not business success until:

1. its structuredContent conforms to the tool's ``outputSchema`` (a tool that declares one must
   send structuredContent; a result with ``isError: true`` is not held to it, and is never
   success) — https://modelcontextprotocol.io/specification/2026-07-28/server/tools#output-schema;
2. none of the error-shaped-success heuristics (``_suspect``) fires, unless a caller expectation
   explicitly passes the result;
3. every caller expectation passes: a JSON Schema dict, a pydantic model or ``TypeAdapter``
   (validated in strict mode: no coercion), or a callable returning True, False or a reason.

Schema and model expectations read the structuredContent, or, when the result has none, the
text content parsed as strict JSON.

Two kinds of mistake are kept apart, as ``classify`` keeps them: a wrong option (a verdict that
is no Verdict, a tool that is no mapping, schema limits that are no ``SchemaLimits``, suspects
that are no ``Suspect`` values, an expectation that is none of the kinds above or a JSON Schema
that cannot be used) is the caller's own and an :class:`~mcp_verdict.OptionError` (a
``ValueError``) naming it and the value, before any work, whatever the verdict; what the
server's data reveals (a result the expectation refuses, or that makes it raise or answer
something else than True, False or a reason) is a finding.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..verdict._classify import OptionError
from ..verdict._findings import Finding, finding
from ..verdict._kind import Kind
from ..verdict._shown import described, shown, unreadable
from ..verdict._verdict import Verdict
from ._schema import DEFAULT_SCHEMA_LIMITS, CompiledSchema, SchemaLimits, compile_schema, for_instance, validate
from ._schema_cost import costly
from ._suspect import (
    DEFAULT_SUSPECTS,
    Suspect,
    call_problem,
    default_matches,
    is_async,
    readable_tool,
)

Expectation = Mapping[str, Any] | type | Callable[[Verdict], "bool | str"] | Any
"""A JSON Schema dict, a pydantic model class, a pydantic TypeAdapter, or a callable."""

_STRUCTURED: Final = "/result/structuredContent"


@dataclass(frozen=True, slots=True)
class SuspectMatch:
    """A heuristic that fired, with the evidence it saw."""

    id: str
    path: str
    evidence: str


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    name: str
    passed: bool
    reason: str
    error: bool = False
    """The expectation itself misbehaved (raised, or answered something else than True, False
    or a reason string)."""


@dataclass(frozen=True, slots=True)
class ContentCheck:
    """Whether a verdict's content is the data the caller needs, and why not."""

    passed: bool
    findings: tuple[Finding, ...]
    suspects: tuple[SuspectMatch, ...] = ()
    expectations: tuple[ExpectationResult, ...] = ()
    schema_checked: bool = False
    suspect_overridden: bool = False
    """Heuristics fired but every caller expectation explicitly passed the result."""

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(f.code for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "findings": [f.to_dict() for f in self.findings],
            "suspects": [{"id": s.id, "path": s.path, "evidence": s.evidence} for s in self.suspects],
            "expectations": [{"name": e.name, "passed": e.passed, "reason": e.reason, "error": e.error}
                             for e in self.expectations],
            "schema_checked": self.schema_checked,
            "suspect_overridden": self.suspect_overridden,
        }


def check_output(
    verdict: Verdict,
    tool: Mapping[str, Any] | None = None,
    *,
    expect: Expectation | Sequence[Expectation] | None = None,
    suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
    schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
) -> ContentCheck:
    """Check a verdict's content against the tool's outputSchema, the error-shaped-success
    heuristics and the caller's expectations. ``tool`` is a tool as returned by tools/list."""
    prepared, suspects = judging_options(verdict, tool, expect, suspects, schema_limits)
    return checked(verdict, tool, None, prepared, suspects, schema_limits)


def check_listed(
    verdict: Verdict,
    tool: Mapping[str, Any] | None,
    output_schema: CompiledSchema | None,
    *,
    expect: Expectation | Sequence[Expectation] | None = None,
    suspects: Iterable[Suspect] = DEFAULT_SUSPECTS,
    schema_limits: SchemaLimits = DEFAULT_SCHEMA_LIMITS,
) -> ContentCheck:
    """:func:`check_output`, holding the result to ``output_schema`` when it is given: the tool's
    outputSchema compiled as it was listed (the tap keeps it from the tools/list answer, so a
    later change to the tool's dict does not change what its calls are held to)."""
    prepared, suspects = judging_options(verdict, tool, expect, suspects, schema_limits)
    return checked(verdict, tool, output_schema, prepared, suspects, schema_limits)


Prepared = tuple[str, Any, CompiledSchema | None, Callable[[Any], Any] | None]
"""An expectation checked as an option: (the option naming it, the expectation, its compiled
JSON Schema, its pydantic validation); a callable has neither."""

_EXPECTATION: Final = ("a JSON Schema (a dict or a bool), a pydantic model class, a pydantic TypeAdapter or a plain "
                       "(not async) callable taking the verdict")
_EXPECT: Final = f"an expectation ({_EXPECTATION}), a list or tuple of them, or None"


def judging_options(verdict: object, tool: object, expect: object, suspects: object, schema_limits: object,
                    ) -> tuple[tuple[Prepared, ...] | None, Iterable[Suspect]]:
    """The content check's options, checked before any work and whatever the verdict's kind:
    an :class:`OptionError` naming the first wrong one and its value. Gives the expectations
    prepared (each JSON Schema compiled once) and the suspects as a tuple (read once)."""
    if not isinstance(verdict, Verdict):
        raise OptionError("verdict", "a Verdict (what classify returns)", verdict,
                          f"verdict must be a Verdict (what classify returns), not {shown(verdict)}")
    if tool is not None and not isinstance(tool, Mapping):
        hint = ("; an SDK Tool: tool.model_dump(by_alias=True, exclude_none=True)"
                if _has(tool, "model_dump") else "")
        raise OptionError("tool", "the tool as listed (a mapping) or None", tool,
                          f"tool must be the tool as listed (a mapping) or None, not {shown(tool)}{hint}")
    if tool is not None and type(tool) is not dict:
        readable_tool("tool", tool)
    if type(schema_limits) is not SchemaLimits:
        raise OptionError("schema_limits", "a SchemaLimits", schema_limits,
                          f"schema_limits must be a SchemaLimits, not {shown(schema_limits)}")
    held: Iterable[Suspect] = DEFAULT_SUSPECTS if suspects is DEFAULT_SUSPECTS else _suspects(suspects)
    return (None if expect is None else prepared_expectations(expect, schema_limits)), held


def prepared_expectations(expect: object, limits: SchemaLimits) -> tuple[Prepared, ...]:
    if isinstance(expect, (list, tuple)):
        items = expect if type(expect) is list or type(expect) is tuple else _members(expect)
        return tuple(_prepare(f"expect[{index}]", item, limits, _EXPECTATION) for index, item in enumerate(items))
    return (_prepare("expect", expect, limits, _EXPECT),)


def _members(expect: list[Any] | tuple[Any, ...]) -> tuple[Any, ...]:
    """The members of a list or tuple subclass given as ``expect``, read once: one whose
    iteration raises (its own ``__iter__``: caller code) is an OptionError."""
    try:
        return tuple(expect)
    except Exception as exc:
        raise unreadable("expect", _EXPECT, expect, exc) from None


def _prepare(option: str, item: Any, limits: SchemaLimits, expected: str) -> Prepared:
    """One expectation, checked: a JSON Schema that cannot be used (invalid, of a dialect not
    supported, past the schema limits, with a reference outside it, no JSON value) or a value
    of no kind an expectation has is the caller's mistake (``OptionError``)."""
    if isinstance(item, (Mapping, bool)):
        compiled = compile_schema(item, "/expect", limits)
        problem = compiled.problem
        if problem is not None:
            at = problem.path[len("/expect"):] or "/"
            raise OptionError(option, "a JSON Schema that can be used", item,
                              f"{option} is a JSON Schema that cannot be used: at {at}: {problem.message}")
        return option, item, compiled, None
    try:
        validate_python = _pydantic(item)
    except Exception:  # an attribute that raises when looked up: no pydantic model
        validate_python = None
    if validate_python is not None:
        return option, item, None, validate_python
    if isinstance(item, type):
        raise OptionError(option, expected, item,
                          f"{option} must be {expected}, not the class {shown(item)}, which is no pydantic model "
                          "(pydantic.TypeAdapter(it) validates against it)")
    if callable(item) and not is_async(item):
        _takes_the_verdict(option, item, expected)
        return option, item, None, None
    raise OptionError(option, expected, item, f"{option} must be {expected}, not {shown(item)}")


def _takes_the_verdict(option: str, item: Any, expected: str) -> None:
    """A predicate that cannot take the verdict alone, as its signature says (``lambda: True``,
    ``def check(verdict, tool)``), is no expectation: an OptionError when it is given, not an
    ``expect.error`` on each call. One whose signature cannot be read is taken."""
    problem = call_problem(item)  # (a plain function's read from its code: expectations come on every call)
    if problem is not None:
        raise OptionError(option, expected, item, f"{option} must be a callable taking the verdict (one argument); "
                                                  f"{shown(item)} cannot take it: {problem}")


def _has(value: object, name: str) -> bool:
    try:
        return hasattr(value, name)
    except Exception:
        return False


_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE


def checked(verdict: Verdict, tool: Mapping[str, Any] | None, output_schema: CompiledSchema | None,
            expect: tuple[Prepared, ...] | None, suspects: Iterable[Suspect],
            schema_limits: SchemaLimits) -> ContentCheck:
    """:func:`check_listed` with every argument in place and checked (:func:`judging_options`:
    what ``evaluate_listed`` calls, once per judged call)."""
    if verdict.kind is not _NORMAL_COMPLETE:
        why = ("a tool error is never success and is not held to the outputSchema"
               if verdict.kind is Kind.TOOL_ERROR else f"a {verdict.kind.value} verdict has no content to check")
        return ContentCheck(False, (finding("", "output.not_complete", why),))
    findings: list[Finding] = []
    schema_checked = False
    if output_schema is not None or (tool is not None and "outputSchema" in tool):
        schema_checked = True
        compiled = output_schema or compile_schema(tool["outputSchema"], "/outputSchema",  # type: ignore[index]
                                                   schema_limits)
        result: Any = verdict.message["result"] if compiled.problem is None else None  # normal_complete's
        if compiled.problem is not None:
            findings.append(compiled.problem)
        elif "structuredContent" not in result:
            findings.append(finding("/result", "output.structured_missing",
                                    f"tool {(tool or {}).get('name', '?')!r} declares an outputSchema; the result "
                                    "has no structuredContent"))
        else:
            instance = result["structuredContent"]
            compiled = for_instance(compiled, instance)  # (uniqueItems and numbers past 2^53: its twin)
            # jsonschema-rs cannot be interrupted: an instance too large for the budget goes to validate()
            fits = None if compiled.engine != "jsonschema-rs" else not costly(compiled, instance, schema_limits)
            try:
                valid = bool(fits) and compiled.validator.is_valid(instance)
            except UnicodeEncodeError:  # a parsed value's lone surrogate: validate() names it
                valid = False
            if not valid:  # (validate() takes the estimate as made here: never made twice)
                findings.extend(validate(compiled, instance, _STRUCTURED, schema_limits, fits=fits))
    if suspects is DEFAULT_SUSPECTS:  # the table's rows in one pass (the same matches, in order)
        hits = default_matches(verdict)
        if not hits and expect is None and not findings:  # the common case: nothing to report
            return _PASSED[schema_checked]
        matches = [SuspectMatch(*hit) for hit in hits]
    else:
        matches = _matches(suspects, verdict)
    if expect is None and not matches and not findings:  # nothing to report
        return _PASSED[schema_checked]
    results = _results(expect, verdict, schema_limits) if expect is not None else ()
    for outcome in results:
        if not outcome.passed:
            code = "expect.error" if outcome.error else "expect.failed"
            findings.append(finding("", code, f"{outcome.name}: {outcome.reason}"))
    overridden = bool(matches) and bool(results) and all(r.passed for r in results)
    if matches and not overridden:
        findings.extend(finding(m.path, "content.suspect_error", f"{m.id}: {m.evidence}") for m in matches)
    return ContentCheck(not findings, tuple(findings), tuple(matches), results, schema_checked, overridden)


# The two comprehensions of ``checked``, apart: in it they would make ``verdict`` and
# ``schema_limits`` cells, built on every call (most calls run neither).
def _matches(suspects: Iterable[Suspect], verdict: Verdict) -> list[SuspectMatch]:
    """What the caller's heuristics find (:func:`_match`), in their order."""
    return [match for match in (_match(suspect, verdict) for suspect in suspects) if match is not None]


def _results(expect: tuple[Prepared, ...], verdict: Verdict, schema_limits: SchemaLimits
             ) -> tuple[ExpectationResult, ...]:
    """The expectations run (:func:`_run`), in their order."""
    return tuple(_run(item, verdict, schema_limits) for item in expect)


MAX_SUSPECTS: Final = 10_000
"""The most heuristics one check reads (the defaults are a handful): an iterator past it (an
endless generator) is the caller's mistake, not a hang."""


def _suspects(suspects: object) -> tuple[Suspect, ...]:
    """The caller's heuristics, read once and checked member by member (a mistake here is the
    caller's: ``OptionError``; an endless iterator stops at its first non-Suspect, or past
    :data:`MAX_SUSPECTS`)."""
    if suspects is None or isinstance(suspects, (str, bytes, Mapping)) or not isinstance(suspects, Iterable):
        raise OptionError("suspects", "an iterable of Suspect values", suspects,
                          f"suspects must be an iterable of Suspect values, not {shown(suspects)}")
    held: list[Suspect] = []
    for index, suspect in enumerate(_read(suspects)):
        if index == MAX_SUSPECTS:
            raise OptionError("suspects", f"at most {MAX_SUSPECTS} Suspect values", suspects,
                              f"suspects must hold at most {MAX_SUSPECTS} Suspect values; {shown(suspects)} "
                              "holds more (an endless iterator?)")
        if not isinstance(suspect, Suspect):
            raise OptionError(f"suspects[{index}]", "a Suspect", suspect,
                              f"suspects must hold Suspect values, not {shown(suspect)} (suspects[{index}])")
        held.append(suspect)
    return tuple(held)


def _read(suspects: Iterable[Any]) -> Iterator[Any]:
    """The members of the caller's ``suspects``, one by one: an iteration that raises (caller
    code: its ``__iter__`` or ``__next__``) is an OptionError, not its exception."""
    try:
        iterator = iter(suspects)
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                return
            yield item
    except Exception as exc:
        raise unreadable("suspects", "an iterable of Suspect values", suspects, exc) from None


def _match(suspect: Suspect, verdict: Verdict) -> SuspectMatch | None:
    """What one of the caller's heuristics says of the result. One that raises, or answers
    something other than ``None`` or a (path, evidence) pair of strings, cannot clear it: that
    is a match saying so (the check fails unless an expectation passes the result), never an
    exception out of the check."""
    try:
        hit: object = suspect.test(verdict)
    except Exception as exc:
        return SuspectMatch(suspect.id, "", f"the heuristic raised {described(exc)}")
    if hit is None or hit is False:  # False: what ``looks_failed and (path, evidence)`` answers
        return None
    if type(hit) is tuple and len(hit) == 2 and type(hit[0]) is str and type(hit[1]) is str:
        return SuspectMatch(suspect.id, hit[0], hit[1])
    return SuspectMatch(suspect.id, "", f"the heuristic answered {shown(hit)}, not None or a (path, evidence) pair")


_PASSED: Final = (ContentCheck(True, (), (), (), False, False), ContentCheck(True, (), (), (), True, False))
"""The check of a result with nothing to report (indexed by ``schema_checked``): immutable, so
every such call shares one value rather than building an equal one."""


def _instance(verdict: Verdict) -> tuple[bool, Any]:
    """What schema and model expectations read: structuredContent, else the text as strict JSON,
    read as the wire is (no NaN or Infinity, no duplicate member names, nesting bounded, no
    number past a double's range such as 1e400): a text the wire would refuse is no JSON here."""
    if verdict.has_structured_content:
        return True, verdict.structured_content
    from ..verdict._parser import NOT_PARSED, PARSER_MAX_DEPTH, parse

    text = verdict.text
    value, _ = parse(text, len(text) * 4, PARSER_MAX_DEPTH, explain=False)  # 4: UTF-8 bytes per character
    if value is NOT_PARSED:
        return False, None
    stack = [value]
    while stack:  # every number finite (the parser reads 1e400 as inf)
        item = stack.pop()
        if type(item) is float and item - item != 0.0:
            return False, None
        if type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return True, value


def _run(prepared: Prepared, verdict: Verdict, limits: SchemaLimits) -> ExpectationResult:
    option, item, compiled, validate_python = prepared
    name = _name(item)
    answer: object = None
    try:
        if compiled is not None:
            found, instance = _instance(verdict)
            if not found:
                return ExpectationResult(name, False, "no structuredContent, and the text is not JSON")
            problems = validate(compiled, instance, _STRUCTURED if verdict.has_structured_content else "/text",
                                limits)
            if problems:
                return ExpectationResult(name, False, "; ".join(f"{p.path or '/'}: {p.message}" for p in problems[:5]))
            return ExpectationResult(name, True, "")
        if validate_python is not None:
            found, instance = _instance(verdict)
            if not found:
                return ExpectationResult(name, False, "no structuredContent, and the text is not JSON")
            return _pydantic_result(name, validate_python, instance)
        answer = item(verdict)
        if answer is True:
            return ExpectationResult(name, True, "")
        if answer is False:
            return ExpectationResult(name, False, "returned False")
        if isinstance(answer, str):  # as a plain str: a subclass may redefine its truth or formatting
            return ExpectationResult(name, False, str.__str__(answer) or "returned an empty reason")
        if not inspect.isawaitable(answer):
            return ExpectationResult(name, False, f"returned {shown(answer)}; expected True, False or a reason "
                                                  "string", error=True)
    except Exception as exc:  # an expectation is caller code: its failure is reported, not raised
        return ExpectationResult(name, False, f"raised {described(exc)}", error=True)
    if inspect.iscoroutine(answer):  # the caller's mistake, the same on every call
        answer.close()  # never awaited: closed here rather than warned about at collection
    raise OptionError(option, _EXPECTATION, item,
                      f"{option} must be a plain (not async) callable returning True, False or a reason string; "
                      "it returned an awaitable")


def _pydantic(item: Any) -> Callable[[Any], Any] | None:
    if isinstance(item, type) and hasattr(item, "model_validate"):
        model: Any = item
        return lambda value: model.model_validate(value, strict=True)
    if hasattr(item, "validate_python") and hasattr(item, "json_schema"):
        adapter: Any = item
        return lambda value: adapter.validate_python(value, strict=True)
    return None


def _pydantic_result(name: str, validate_python: Callable[[Any], Any], instance: Any) -> ExpectationResult:
    try:
        validate_python(instance)
    except Exception as exc:
        if type(exc).__name__ == "ValidationError":
            errors: list[dict[str, Any]] = getattr(exc, "errors", list)()
            text = "; ".join(f"/{'/'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in errors[:5])
            return ExpectationResult(name, False, text or str(exc))
        raise
    return ExpectationResult(name, True, "")


def _name(item: Any) -> str:
    """The expectation's title or name; its type's name when reading that raises (caller code)."""
    try:
        if isinstance(item, Mapping):
            value = item.get("title") or "schema"
        elif isinstance(item, type):
            value = item.__name__
        else:
            value = getattr(item, "__name__", None) or type(item).__name__
        return str.__str__(value) if isinstance(value, str) else shown(value)
    except Exception:
        return type(item).__name__

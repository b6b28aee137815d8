"""Caller expectations under faults: whatever an expectation raises or answers, it is reported
(never raised, never a pass), and the text read as JSON is strict JSON. (What an expectation
is, when it is of no kind an expectation has, is an OptionError: test_judgement_option_errors.)"""

from __future__ import annotations

from typing import Any

import numpy
import pydantic
import pytest

from mcp_verdict import Verdict, check_output, classify


def complete(structured: Any = None, text: str = "ok") -> Verdict:
    result: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return classify({"jsonrpc": "2.0", "id": 1, "result": result})


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for this exception")


class Weird(str):
    def __bool__(self) -> bool:
        raise RuntimeError("no truth")

    def __format__(self, spec: str) -> str:
        raise RuntimeError("no format")


class Opaque:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __bool__(self) -> bool:
        raise RuntimeError("no bool")


class BadName:
    @property
    def __name__(self) -> str:
        raise RuntimeError("no name")

    def __call__(self, verdict: Verdict) -> bool:
        return True


def raise_unprintable(verdict: Verdict) -> bool:
    raise UnprintableError


def raise_huge(verdict: Verdict) -> bool:
    raise ValueError("x" * 10_000_000)


@pytest.mark.parametrize(("expect", "passed", "code", "reason_start"), [
    (BadName(), True, None, ""),
    (raise_unprintable, False, "expect.error", "raised UnprintableError"),
    (raise_huge, False, "expect.error", "raised ValueError: xxx"),
    (lambda v: Weird("not what I need"), False, "expect.failed", "not what I need"),
    (lambda v: Opaque(), False, "expect.error", "returned <Opaque object"),
    (lambda v: numpy.True_, False, "expect.error", "returned np.True_"),
], ids=["bad_name", "unprintable", "huge", "str_subclass", "opaque", "numpy_bool"])
# (a schema that cannot be used, BadTitle's or {"type": 12}, is the caller's mistake, an OptionError:
# tests/test_judgement_option_errors.py)
def test_what_an_expectation_is_raises_or_answers_is_reported(expect: Any, passed: bool, code: str | None,
                                                               reason_start: str) -> None:
    check = check_output(complete({"a": 1}), expect=expect)
    assert check.passed is passed
    assert check.codes == ((code,) if code else ())
    reason = check.expectations[0].reason
    assert type(reason) is str and reason.startswith(reason_start) and len(reason) < 1000
    assert check.to_dict()["passed"] is passed  # serialises, whatever the expectation answered


class Number(pydantic.BaseModel):
    value: float


@pytest.mark.parametrize("text", [
    "NaN", "Infinity", "-Infinity", '{"value": NaN}', '{"value": 1, "value": "x"}', "[" * 100_000 + "]" * 100_000,
    '{"value": 1} trailing', "\ufeff{}", "1e400", '{"value": [1, -1e400]}',
])
@pytest.mark.parametrize("expect", [{}, {"type": ["number", "object", "array"]}, pydantic.TypeAdapter(Any), Number])
def test_text_that_is_not_strict_json_is_not_json(text: str, expect: Any) -> None:
    check = check_output(complete(text=text), expect=expect)
    assert (check.passed, check.codes) == (False, ("expect.failed",))
    assert check.expectations[0].reason == "no structuredContent, and the text is not JSON"


@pytest.mark.parametrize(("text", "expect"), [
    ('{"value": 1.5}', Number),
    ("[1, 2]", {"type": "array"}),
    ('{"value": 1e300, "more": [{"a": null}]}', {"type": "object"}),
])
def test_strict_json_text_is_read(text: str, expect: Any) -> None:
    assert check_output(complete(text=text), expect=expect).passed is True

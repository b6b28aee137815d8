"""Error-shaped success: one test per row of the heuristics table, plus off and extend."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import DEFAULT_SUSPECTS, Kind, Suspect, Verdict, check_output, classify
from mcp_verdict.judgement._suspect import default_matches


def complete(structured: Any = ..., text: str = "ok") -> Verdict:
    result: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": text}]}
    if structured is not ...:
        result["structuredContent"] = structured
    verdict = classify({"jsonrpc": "2.0", "id": 1, "result": result})
    assert verdict.kind is Kind.NORMAL_COMPLETE
    return verdict


# (heuristic id, a result it must flag, its evidence path, a near miss it must not flag)
ROWS = [
    ("structured.status_error", complete({"status": "error", "message": "quota"}),
     "/result/structuredContent/status", complete({"status": "ok"})),
    ("structured.status_error", complete({"state": "FAILED"}), "/result/structuredContent/state",
     complete({"state": "failing-over"})),
    ("structured.success_false", complete({"success": False, "detail": "x"}), "/result/structuredContent/success",
     complete({"success": True})),
    ("structured.success_false", complete({"ok": False}), "/result/structuredContent/ok", complete({"ok": 0})),
    ("structured.error_key", complete({"error": "not found"}), "/result/structuredContent/error",
     complete({"error": None})),
    ("structured.error_key", complete({"error_code": 404}), "/result/structuredContent/error_code",
     complete({"errors": []})),
    ("text.error_prefix", complete(text="Error: file not found"), "/result/content/0/text",
     complete(text="No errors: all files found")),
    ("text.error_prefix", complete(text="  error : permission denied"), "/result/content/0/text",
     complete(text="errors were corrected")),
    ("text.exception", complete(text="Exception in handler: boom"), "/result/content/0/text",
     complete(text="An exception was avoided")),
    ("text.exception", complete(text="ValueError: invalid literal"), "/result/content/0/text",
     complete(text="ValueErrors are rare here")),
    ("text.traceback", complete(text='Traceback (most recent call last):\n  File "x.py", line 1'),
     "/result/content/0/text", complete(text="a trace of the run")),
]


@pytest.mark.parametrize(("rule", "flagged", "path", "near_miss"), ROWS,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_heuristic_row(rule: str, flagged: Verdict, path: str, near_miss: Verdict) -> None:
    check = check_output(flagged)
    assert not check.passed
    assert [(m.id, m.path) for m in check.suspects] == [(rule, path)]
    assert check.codes == ("content.suspect_error",)
    assert check_output(near_miss).passed, check_output(near_miss).suspects


def test_every_row_of_the_table_has_a_test() -> None:
    assert {s.id for s in DEFAULT_SUSPECTS} == {row[0] for row in ROWS}


def test_heuristics_can_be_turned_off_and_extended() -> None:
    flagged = complete({"status": "error"})
    assert check_output(flagged, suspects=()).passed
    custom = Suspect("text.nope", "text is NOPE",
                     lambda v: ("/result/content/0/text", "NOPE") if v.text == "NOPE" else None)
    check = check_output(complete(text="NOPE"), suspects=(*DEFAULT_SUSPECTS, custom))
    assert [m.id for m in check.suspects] == ["text.nope"]


def test_a_caller_expectation_can_explicitly_pass_a_flagged_result() -> None:
    flagged = complete({"status": "error", "expected": True})
    check = check_output(flagged, expect=lambda v: v.structured_content.get("expected") is True)
    assert check.passed and check.suspect_overridden
    assert [m.id for m in check.suspects] == ["structured.status_error"]
    failing = check_output(flagged, expect=lambda v: "no")
    assert not failing.passed and set(failing.codes) == {"expect.failed", "content.suspect_error"}


class _Dict(dict):  # type: ignore[type-arg]
    """A dict subclass as structuredContent (a verdict of an already parsed value)."""


def several(blocks: list[dict[str, Any]], structured: Any = ...) -> Verdict:
    result: dict[str, Any] = {"resultType": "complete", "content": blocks}
    if structured is not ...:
        result["structuredContent"] = structured
    return classify({"jsonrpc": "2.0", "id": 1, "result": result})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


IMAGE = {"type": "image", "data": "aGk=", "mimeType": "image/png"}

# (case, verdict, the heuristics that fire as (id, path, evidence), in the table's order)
PASSES = [
    ("nothing", complete({"city": "Lisbon"}, text='{"city": "Lisbon"}'), []),
    ("no structuredContent", complete(text="fine"), []),
    ("structuredContent not an object", complete([1, 2], text="[1, 2]"), []),
    ("every structured row", complete({"status": " Failed ", "ok": False, "errors": ["x"], "error": 0}), [
        ("structured.status_error", "/result/structuredContent/status", "status: ' Failed '"),
        ("structured.success_false", "/result/structuredContent/ok", "ok: false"),
        ("structured.error_key", "/result/structuredContent/errors", "errors: ['x']")]),
    ("a dict subclass", complete(_Dict(state="error")), [
        ("structured.status_error", "/result/structuredContent/state", "state: 'error'")]),
    ("first firing block of each text row", several(
        [IMAGE, text("all good"), text("Traceback (most recent call last):\n  x"), text("KeyError: 'a'"),
         text("\n fatal! disk\nmore"), text("Error: second")]), [
        ("text.error_prefix", "/result/content/4/text", "fatal! disk"),
        ("text.exception", "/result/content/3/text", "KeyError: 'a'"),
        ("text.traceback", "/result/content/2/text", "Traceback (most recent call last):")]),
    ("structured and text", several([text("Exception: boom")], {"result": "FAIL"}), [
        ("structured.status_error", "/result/structuredContent/result", "result: 'FAIL'"),
        ("text.exception", "/result/content/0/text", "Exception: boom")]),
    ("a tool error is read too", classify({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "isError": True, "content": [text("Error: x")]}}),
     [("text.error_prefix", "/result/content/0/text", "Error: x")]),
    ("no content to read", classify({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "Error: x"}}), []),
    # the first character decides whether the prefixes are read: whitespace (any \s), an ASCII letter or _
    ("first characters", several([text("{\"error\": 1}"), text("1Error: x"), text("\u00c9Error: x"), text(""),
                                  text("\u00a0Fatal: nbsp"), text("_BadError: x")]), [
        ("text.error_prefix", "/result/content/4/text", "Fatal: nbsp"),
        ("text.exception", "/result/content/5/text", "_BadError: x")]),
    ("a tab, then exception", several([text("\texception raised")]), [
        ("text.exception", "/result/content/0/text", "exception raised")]),
]


@pytest.mark.parametrize(("case", "verdict", "expected"), PASSES, ids=[p[0] for p in PASSES])
def test_the_default_table_in_one_pass_finds_what_each_row_finds(case: str, verdict: Verdict,
                                                                  expected: list[tuple[str, str, str]]) -> None:
    """The content check reads DEFAULT_SUSPECTS in one pass (``default_matches``): the same
    matches, in the same order, as each row's ``test`` run in turn."""
    from mcp_verdict.judgement._suspect import default_matches

    rows = [(s.id, *hit) for s in DEFAULT_SUSPECTS if (hit := s.test(verdict)) is not None]
    assert rows == expected
    assert default_matches(verdict) == expected
    if verdict.kind is Kind.NORMAL_COMPLETE:
        assert [(m.id, m.path, m.evidence) for m in check_output(verdict).suspects] == expected
        assert check_output(verdict, suspects=list(DEFAULT_SUSPECTS)) == check_output(verdict)  # row by row


def test_the_evidence_of_a_huge_error_member_is_cut() -> None:
    wide = {str(i): i for i in range(200_000)}
    verdict = classify({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                               "structuredContent": {"error": wide}}})
    assert default_matches(verdict) == [("structured.error_key", "/result/structuredContent/error",
                                         "error: {'0': 0, '1': 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, ...")]


def _raises(verdict: Verdict) -> tuple[str, str] | None:
    raise KeyError("no such member")


# (what the caller's heuristic answers, the match it makes: (path, evidence) or None) - the
# heuristic is the caller's code: one that fails cannot clear the result, and says why
CUSTOM_ANSWERS: list[tuple[str, Any, tuple[str, str] | None]] = [
    ("a pair", lambda v: ("/result", "looks failed"), ("/result", "looks failed")),
    ("None", lambda v: None, None),
    ("raises", _raises, ("", "the heuristic raised KeyError: 'no such member'")),
    ("a string, not a pair", lambda v: "ab", ("", "the heuristic answered 'ab', not None or a (path, evidence) pair")),
    ("a triple", lambda v: ("/a", "b", "c"),
     ("", "the heuristic answered ('/a', 'b', 'c'), not None or a (path, evidence) pair")),
    ("a pair of non-strings", lambda v: (1, 2),
     ("", "the heuristic answered (1, 2), not None or a (path, evidence) pair")),
    ("False, as `test and (path, evidence)` answers: no match", lambda v: False, None),
    ("0", lambda v: 0, ("", "the heuristic answered 0, not None or a (path, evidence) pair")),
]


@pytest.mark.parametrize(("label", "test", "match"), CUSTOM_ANSWERS, ids=[c[0] for c in CUSTOM_ANSWERS])
def test_a_custom_heuristic_that_fails_cannot_clear_the_result(label: str, test: Any,
                                                               match: tuple[str, str] | None) -> None:
    check = check_output(complete(text="fine"), suspects=(Suspect("custom", "a caller's heuristic", test),))
    assert [(m.path, m.evidence) for m in check.suspects] == ([match] if match else [])
    assert check.passed is (match is None)


@pytest.mark.parametrize("suspects", [None, "text.error_prefix", 3, {"id": "x"}, [DEFAULT_SUSPECTS[0], "x"]],
                         ids=["None", "a string", "an int", "a dict", "a list holding a string"])
def test_suspects_that_are_not_suspects_are_a_value_error(suspects: Any) -> None:
    with pytest.raises(ValueError, match="suspects must"):
        check_output(complete(text="fine"), suspects=suspects)

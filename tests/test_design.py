"""The design note's twelve cases at 2026-07-28, labels fixed by the note.

The inputs live in the corpus (design.jsonl); the labels are stated again here, by hand,
so that a relabelled corpus line cannot slip through.
"""

from __future__ import annotations

import pytest

from mcp_verdict import Kind, classify, corpus

TWELVE = {  # label: (expected kind, spec reference)
    "normal_false": (Kind.NORMAL_COMPLETE, "2026-07-28/server/tools#calling-tools"),
    "normal_omitted": (Kind.NORMAL_COMPLETE, "2026-07-28/schema#calltoolresult"),
    "tool_error": (Kind.TOOL_ERROR, "2026-07-28/server/tools#error-handling"),
    "additional_input": (Kind.INPUT_REQUIRED, "2026-07-28/basic/patterns/mrtr"),
    "protocol_error": (Kind.PROTOCOL_ERROR, "2026-07-28/server/tools#error-handling"),
    "string_flag": (Kind.UNCLASSIFIED, "2026-07-28/schema#calltoolresult"),
    "integer_flag": (Kind.UNCLASSIFIED, "2026-07-28/schema#calltoolresult"),
    "null_flag": (Kind.UNCLASSIFIED, "2026-07-28/schema#calltoolresult"),
    "unknown_result_type": (Kind.UNCLASSIFIED, "2026-07-28/basic/index#resulttype"),
    "old_shape": (Kind.UNCLASSIFIED, "2026-07-28/basic/index#resulttype"),
    "null_result": (Kind.UNCLASSIFIED, "2026-07-28/basic/index#result-responses"),
    "both_fields": (Kind.UNCLASSIFIED, "jsonrpc 2.0 response object"),
}
CASES = {case.id.removeprefix("design/"): case for case in corpus.load() if case.id.startswith("design/")}


def test_the_corpus_holds_exactly_the_twelve() -> None:
    assert sorted(CASES) == sorted(TWELVE)
    assert {case.version for case in CASES.values()} == {"2026-07-28"}


@pytest.mark.parametrize("label", sorted(TWELVE))
def test_design_case(label: str) -> None:
    expected, _spec = TWELVE[label]
    case = CASES[label]
    assert case.expect is expected
    assert classify(case.input, version="2026-07-28").kind is expected
    assert classify(case.wire(), version="2026-07-28").kind is expected


def test_additional_input_carries_the_request_state_exactly() -> None:
    verdict = classify(CASES["additional_input"].input)
    assert verdict.request_state == "synthetic-state"
    assert list(verdict.input_requests) == ["choose"]
    request = verdict.input_requests["choose"]
    assert request.method == "elicitation/create"
    assert request.mode == "form"

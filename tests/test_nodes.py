"""The node budget on values of shared references (``Limits.max_nodes``; ``_nodes.more_values``).

A parsed value given to classify may refer to one container many times; written as a JSON
text it holds each copy, so the budget counts each (README "Limits": a value holds at most
``max_nodes`` values). Counting them one by one cost the walks the whole budget: 60 levels of
``[x, x]`` took ~10 s (53 s on a busy machine) before ``json.too_many_nodes``. The counts here
are worked by hand: a container is one value plus its members' values; a member name is none.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Kind, Limits, classify
from mcp_verdict.verdict._nodes import more_values


def _levels(levels: int, leaf: Any) -> Any:
    """``levels`` arrays, each holding the one below twice: 3 * 2**levels - 1 values on a leaf
    ``{"k": 1}`` (c(0) = 2, c(n) = 1 + 2 c(n - 1))."""
    value = leaf
    for _ in range(levels):
        value = [value, value]
    return value


class _Mapping(dict[str, Any]):
    """A dict subclass: no JSON container to the count (one value; the walks name it)."""


_SHARED = [1]
_CYCLE: list[Any] = []
_CYCLE.append(_CYCLE)
_WIDE_CYCLE: dict[str, Any] = {"a": [1, 2]}
_WIDE_CYCLE["b"] = [_WIDE_CYCLE]

# (value, limit, whether it holds more than limit values)
COUNTS: list[tuple[Any, int, bool]] = [
    (5, 0, True), (5, 1, False), ("text", 1, False), (None, 1, False),
    ([], 0, True), ([], 1, False),
    ([1, 2], 2, True), ([1, 2], 3, False),
    ({"a": [1], "b": [1]}, 4, True), ({"a": [1], "b": [1]}, 5, False),  # 1 + (1 + 1) + (1 + 1)
    ([_SHARED, _SHARED], 4, True), ([_SHARED, _SHARED], 5, False),  # the shared [1] counted twice
    ({"x": {"y": {"z": []}}}, 3, True), ({"x": {"y": {"z": []}}}, 4, False),
    (_levels(20, {"k": 1}), 3 * 2**20 - 2, True), (_levels(20, {"k": 1}), 3 * 2**20 - 1, False),
    (_levels(60, {"k": 1}), 10_000_000, True),
    (_levels(60, {"k": 1}), 3 * 2**60, False),  # counted exactly, past 64 bits too
    (_CYCLE, 10**18, True), (_WIDE_CYCLE, 10**18, True),  # a cycle is endless
    ([_Mapping(a=[1, 2, 3])], 2, False),  # a subclass: one value
]


@pytest.mark.parametrize(("value", "limit", "more"), COUNTS)
def test_the_values_a_text_of_the_value_would_hold(value: Any, limit: int, more: bool) -> None:
    assert more_values(value, limit) is more


def _complete(structured: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                  "structuredContent": structured}}


_VALUE = "the value holds more than {} nodes (shared or cyclic references?)"
_RESPONSE = "the response holds more than {} values (shared or cyclic references?)"

# (message, limits, kind, findings as (code, path, message)): the budget whatever the sharing;
# what holds more values is refused at the value that runs it out (README "Limits")
BUDGET: list[tuple[dict[str, Any], Limits, Kind, list[tuple[str, str, str]]]] = [
    (_complete(_levels(60, {"k": 1})), Limits(), Kind.UNCLASSIFIED,
     [("json.too_many_nodes", "/result/structuredContent", _VALUE.format(10_000_000))]),
    (_complete({"a": _levels(60, {"k": 1})}), Limits(max_nodes=100_000), Kind.UNCLASSIFIED,
     [("json.too_many_nodes", "/result/structuredContent", _VALUE.format(100_000))]),
    # 3 * 2**16 - 1 values: past the first look (65,536), within the budget
    (_complete(_levels(16, {"k": 1})), Limits(max_nodes=200_000), Kind.NORMAL_COMPLETE, []),
    (_complete(_levels(16, {"k": 1})), Limits(max_nodes=196_000), Kind.UNCLASSIFIED,
     [("json.too_many_nodes", "/result/structuredContent", _VALUE.format(196_000))]),
    # a bad number under the shared levels: named where the text would hold it first
    (_complete(_levels(40, {"k": float("nan")})), Limits(), Kind.UNCLASSIFIED,
     [("json.number_out_of_range", "/result/structuredContent/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0"
       "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/k", "nan is not a finite JSON number")]),
    # two values, each within the budget, together past it: the second the checker walks runs it
    # out (the result's _meta is checked first, _result.check_result)
    (_complete([_levels(15, {"k": 1})]) | {"result": {"resultType": "complete", "content": [],
                                                        "structuredContent": _levels(15, {"k": 1}),
                                                        "_meta": {"m": _levels(15, {"k": 1})}}},
     Limits(max_nodes=150_000), Kind.UNCLASSIFIED,
     [("json.too_many_nodes", "/result/structuredContent", _RESPONSE.format(150_000))]),
]


@pytest.mark.parametrize(("message", "limits", "kind", "findings"), BUDGET)
def test_shared_references_are_held_to_the_budget(message: dict[str, Any], limits: Limits, kind: Kind,
                                                  findings: list[tuple[str, str, str]]) -> None:
    verdict = classify(message, limits=limits)
    assert verdict.kind is kind
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings

"""classify's options kept per set by OptionsMemo (what the proxy, the tap and the audit judge
with), and the request id they hold an answer to."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import TASKS_EXTENSION, Kind, Limits, classify
from mcp_verdict.verdict._classify import OptionsMemo, classify_options, held_id, judge

from .test_api import BAD_OPTIONS, COMPLETE

_FORM = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
    "ok": {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {
        "type": "object", "properties": {"yes": {"type": "boolean"}}}}}}}}

# (version, capabilities, extensions, absent_result_type, limits): what each set must equal
SETS: list[tuple[str, dict[str, Any] | None, tuple[str, ...], Any, Limits]] = [
    ("2026-07-28", None, (), "invalid", Limits()),
    ("2026-07-28", {"elicitation": {"form": {}}}, (TASKS_EXTENSION,), "invalid", Limits()),
    ("2025-11-25", {"sampling": {}}, (), "complete", Limits(max_depth=8)),
    ("2025-06-18", {}, (), "invalid", Limits(max_bytes=1024)),
]


@pytest.mark.parametrize(("version", "capabilities", "extensions", "absent", "limits"), SETS)
def test_the_memo_gives_classify_options_once_per_set(version: str, capabilities: dict[str, Any] | None,
                                                      extensions: tuple[str, ...], absent: Any,
                                                      limits: Limits) -> None:
    memo = OptionsMemo()
    first = memo.get(version, capabilities, extensions, absent, limits)
    assert first == classify_options(version, capabilities, extensions, absent, limits)
    assert memo.get(version, capabilities, extensions, absent, limits) is first
    # an equal object that is another one is checked again (its content may not be the same later)
    other = None if capabilities is None else dict(capabilities)
    again = memo.get(version, other, extensions, absent, Limits(limits.max_bytes, limits.max_depth,
                                                                  limits.max_nodes))
    assert again == first and again is not first


def test_what_the_memo_judges_with_is_what_classify_says() -> None:
    memo = OptionsMemo()
    for capabilities, kind in (({"elicitation": {}}, Kind.INPUT_REQUIRED), ({"sampling": {}}, Kind.UNCLASSIFIED),
                               (None, Kind.INPUT_REQUIRED)):
        for _ in range(2):
            verdict = judge(_FORM, memo.get("2026-07-28", capabilities), 1)
            assert verdict == classify(_FORM, request_id=1, client_capabilities=capabilities)
            assert verdict.kind is kind


@pytest.mark.parametrize(("options", "message"), [(o, m) for o, m in BAD_OPTIONS if "request_id" not in o])
def test_a_bad_option_raises_as_classify_does(options: dict[str, Any], message: str) -> None:
    memo = OptionsMemo()
    kwargs = {"version": "2026-07-28", **options}
    for _ in range(2):  # and is not remembered
        with pytest.raises(ValueError, match=message):
            memo.get(**kwargs)
    with pytest.raises(ValueError, match=message):
        classify(COMPLETE, **options)


def test_extensions_given_as_a_list_are_checked_each_time_and_the_memo_stays_bounded() -> None:
    memo = OptionsMemo(size=4)
    listed = memo.get("2026-07-28", None, [TASKS_EXTENSION])  # type: ignore[arg-type]
    assert listed.extensions == frozenset({TASKS_EXTENSION})
    held: list[dict[str, Any]] = [{"elicitation": {}} for _ in range(10)]
    for capabilities in held:
        memo.get("2026-07-28", capabilities)
    assert len(memo._held) <= 4


@pytest.mark.parametrize(("value", "held"), [
    (1, 1), (0, 0), (-7, -7), ("a", "a"), ("", ""), (2 ** 70, 2 ** 70),
    (True, None), (False, None), (1.5, None), (None, None), ([1], None), ({"a": 1}, None),
])
def test_held_id_is_the_id_classify_checks(value: Any, held: Any) -> None:
    assert held_id(value) == held and type(held_id(value)) is type(held)

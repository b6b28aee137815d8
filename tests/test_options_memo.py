"""classify's options kept per set by OptionsMemo (what the proxy, the tap and the audit judge
with), and the request id they hold an answer to."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import TASKS_EXTENSION, Kind, Limits, classify
from mcp_verdict.frames import Context
from mcp_verdict.verdict._classify import DEFAULT_LIMITS
from mcp_verdict.verdict._judge import OptionsMemo, classify_options, held_id, judge

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


# OptionsMemo.of: the options of a request context (frames.Context: what the Tracker hands each
# request; consecutive requests of a connection get the same object while what is in force on
# it is unchanged), for the tap, the audit and the proxy. Each step names a context, an
# absent_result_type and a limits object; the expected label names the Options object it gives:
# the same label, the very same object (the one the memo's get gives for that set).
_CAPS: dict[str, Any] = {"elicitation": {"form": {}}}
_TIGHT = Limits(max_depth=8)
_CONTEXTS_OF: dict[str, Context] = {
    "a": Context("2026-07-28", "request_meta", None, _CAPS, (TASKS_EXTENSION,)),
    "a2": Context("2026-07-28", "request_meta", None, _CAPS, (TASKS_EXTENSION,)),  # equal to a, another object
    "a3": Context("2026-07-28", "request_meta", None, dict(_CAPS), (TASKS_EXTENSION,)),  # equal caps, another object
    "b": Context("2025-11-25", "initialize", None, {"sampling": {}}, ()),
}
_LIMITS_OF: dict[str, Limits] = {"default": DEFAULT_LIMITS, "tight": _TIGHT}

OF_CASES: list[tuple[str, list[tuple[str, Any, str]], list[str]]] = [
    ("the same context object: the same options", [("a", "invalid", "default")] * 3, ["A", "A", "A"]),
    ("an equal context, the same capabilities object: the memo's same options",
     [("a", "invalid", "default"), ("a2", "invalid", "default"), ("a", "invalid", "default")], ["A", "A", "A"]),
    ("equal capabilities in another object: checked again (as get)",
     [("a", "invalid", "default"), ("a3", "invalid", "default")], ["A", "C"]),
    ("the same context with another absent_result_type, then back",
     [("a", "invalid", "default"), ("a", "complete", "default"), ("a", "invalid", "default"),
      ("a", "complete", "default")], ["A", "X", "A", "X"]),
    ("the same context with other limits, then back",
     [("a", "invalid", "default"), ("a", "invalid", "tight"), ("a", "invalid", "default")], ["A", "T", "A"]),
    ("two connections' contexts interleaved",
     [("a", "invalid", "default"), ("b", "invalid", "default"), ("a", "invalid", "default"),
      ("b", "invalid", "default")], ["A", "B", "A", "B"]),
]
# label -> (version, extensions, absent_is_complete, max_depth): what classify_options says of each
OF_VALUES: dict[str, tuple[str, frozenset[str], bool, int]] = {
    "A": ("2026-07-28", frozenset({TASKS_EXTENSION}), False, 64),
    "C": ("2026-07-28", frozenset({TASKS_EXTENSION}), False, 64),
    "X": ("2026-07-28", frozenset({TASKS_EXTENSION}), True, 64),
    "T": ("2026-07-28", frozenset({TASKS_EXTENSION}), False, 8),
    "B": ("2025-11-25", frozenset(), False, 64),
}


@pytest.mark.parametrize(("steps", "labels"), [(s, labels) for _, s, labels in OF_CASES],
                         ids=[name for name, _, _ in OF_CASES])
def test_the_options_of_a_context_are_the_memos(steps: list[tuple[str, Any, str]], labels: list[str]) -> None:
    memo = OptionsMemo()
    given: dict[str, Any] = {}
    for (name, absent, limits_name), label in zip(steps, labels, strict=True):
        context, limits = _CONTEXTS_OF[name], _LIMITS_OF[limits_name]
        options = memo.of(context, absent, limits)
        if label in given:
            assert options is given[label], (name, absent, limits_name)
        else:
            assert all(options is not other for other in given.values()), (name, absent, limits_name)
            given[label] = options
        version, extensions, complete, depth = OF_VALUES[label]
        assert (options.rules.version, options.extensions, options.absent_is_complete, options.max_depth) \
            == (version, extensions, complete, depth)
        assert options.client_capabilities == context.client_capabilities
        # what the memo's get gives for the set: this very object
        assert memo.get(context.version, context.client_capabilities, context.extensions, absent, limits) is options


def test_the_contexts_of_held_are_bounded() -> None:
    memo = OptionsMemo(size=4, contexts=4)
    held = [Context("2026-07-28", "request_meta", None, {"elicitation": {}}, ()) for _ in range(10)]  # a peer's many
    for context in held:
        memo.of(context)
        assert len(memo._contexts) <= 4 and len(memo._held) <= 4
    assert memo.of(held[-1]) is memo.of(held[-1])

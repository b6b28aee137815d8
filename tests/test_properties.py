"""Properties: classify never raises, and the same input always gives the same verdict."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import TASKS_EXTENSION, VERSIONS, Kind, Verdict, classify, corpus

from .test_classify_odd_values import RaisingFloat, RaisingInt, RaisingStr

VALID = [c for c in corpus.load() if c.expect is not Kind.UNCLASSIFIED and not c.raw]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)
keys = st.sampled_from(["jsonrpc", "id", "result", "error", "resultType", "content", "isError",
                        "structuredContent", "inputRequests", "requestState", "type", "text", "code",
                        "message", "taskId", "status", "method", "params", "_meta"])
python_junk = st.sampled_from([(1, 2), {1, 2}, b"x", object(), float("nan"), 1j, frozenset()]) | st.one_of(
    # subclasses of JSON types whose own __repr__, __len__ or __int__ raise (read as the type's value)
    st.builds(RaisingFloat, st.floats()), st.builds(RaisingInt, st.integers()),
    st.builds(RaisingStr, st.text(max_size=3)))
options = st.fixed_dictionaries({}, optional={
    "version": st.sampled_from(VERSIONS),
    "request_id": st.none() | st.integers() | st.text(max_size=3),
    "client_capabilities": st.none() | st.sampled_from([{}, {"elicitation": {}}, {"sampling": {}},
                                                        {"elicitation": {"url": {}}, "roots": {}}]),
    "extensions": st.sampled_from([(), (TASKS_EXTENSION,)]),
    "absent_result_type": st.sampled_from(["invalid", "complete"]),
})


def _check(response: Any, opts: dict[str, Any]) -> Verdict:
    first = classify(response, **opts)
    second = classify(response, **opts)
    assert first == second
    assert first.kind in Kind
    if first.kind is Kind.UNCLASSIFIED:
        assert first.errors, "an unclassified verdict names why"
    else:
        assert not first.errors
    json.dumps(first.to_dict())
    repr(first)
    return first


@settings(max_examples=300)
@given(json_values, options)
def test_never_raises_on_any_json_value(value: Any, opts: dict[str, Any]) -> None:
    _check(value, opts)


@settings(max_examples=300)
@given(st.dictionaries(keys, json_values | st.dictionaries(keys, json_values, max_size=6), max_size=6), options)
def test_never_raises_on_response_shaped_values(value: Any, opts: dict[str, Any]) -> None:
    verdict = _check(value, opts)
    wire = json.dumps(value, allow_nan=True).encode()
    assert _check(wire, opts).kind is verdict.kind or "NaN" in wire.decode() or "Infinity" in wire.decode()


@settings(max_examples=300)
@given(st.binary(max_size=200) | st.text(max_size=200), options)
def test_never_raises_on_any_bytes_or_text(data: bytes | str, opts: dict[str, Any]) -> None:
    _check(data, opts)


@settings(max_examples=200)
@given(st.recursive(json_values | python_junk,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.text(max_size=3) | st.integers(), inner, max_size=3), max_leaves=10))
def test_never_raises_on_python_values_that_are_not_json(value: Any) -> None:
    _check({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                  "structuredContent": value}}, {})
    _check(value, {})


def _mutations(data: Any) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(data), json_values, keys.map(lambda k: {k: data}), st.just([data]))


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    case = draw(st.sampled_from(VALID))
    message = json.loads(json.dumps(case.input))
    # walk to a random container and change one member
    target: Any = message
    for _ in range(draw(st.integers(0, 4))):
        children = list(target.items()) if isinstance(target, dict) else list(enumerate(target)) \
            if isinstance(target, list) else []
        containers = [(k, v) for k, v in children if isinstance(v, (dict, list))]
        if not containers:
            break
        _, target = draw(st.sampled_from(containers))
    action = draw(st.sampled_from(["delete", "replace", "add"]))
    if isinstance(target, dict) and target:
        key = draw(st.sampled_from(sorted(target)))
        if action == "delete":
            del target[key]
        elif action == "replace":
            target[key] = draw(_mutations(target[key]))
        else:
            target[draw(keys)] = draw(json_values)
    elif isinstance(target, list) and target:
        index = draw(st.integers(0, len(target) - 1))
        if action == "delete":
            del target[index]
        else:
            target[index] = draw(_mutations(target[index]))
    return message, dict(case.kwargs())


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_never_raises_on_mutated_valid_responses(pair: tuple[Any, dict[str, Any]]) -> None:
    message, opts = pair
    parsed = _check(message, opts)
    assert _check(json.dumps(message).encode(), opts) == parsed or "NaN" in json.dumps(message) \
        or "Infinity" in json.dumps(message)


@settings(max_examples=300)
@given(st.sampled_from(VALID), st.data())
def test_never_raises_on_damaged_wire_bytes(case: corpus.Case, data: st.DataObject) -> None:
    wire = bytearray(case.wire())
    for _ in range(data.draw(st.integers(1, 3))):
        position = data.draw(st.integers(0, len(wire)))
        operation = data.draw(st.sampled_from(["flip", "cut", "insert", "duplicate"]))
        if operation == "flip" and position < len(wire):
            wire[position] ^= data.draw(st.integers(1, 255))
        elif operation == "cut":
            del wire[position:]
        elif operation == "insert":
            wire[position:position] = data.draw(st.sampled_from([b",", b"{", b'"', b"\\", b"\xff", b"NaN"]))
        else:
            wire[position:position] = wire[max(0, position - 20):position]
    _check(bytes(wire), case.kwargs())


INPUT_CASES = [c for c in VALID if c.expect is Kind.INPUT_REQUIRED or "/meta/" in c.id or "/icon/" in c.id]


@st.composite
def damaged_deep(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A valid input request (elicitation, sampling, roots), icon or reserved _meta response,
    one member replaced deep down (down to the blocks of a tool result) by any JSON value, a
    Python value JSON cannot carry, or the container itself (a cycle)."""
    case = draw(st.sampled_from(INPUT_CASES))
    message = json.loads(json.dumps(case.input))
    target: Any = message
    for _ in range(draw(st.integers(2, 12))):
        children = list(target.values()) if isinstance(target, dict) else target
        containers = [v for v in children if isinstance(v, (dict, list))]
        if not containers:
            break
        target = draw(st.sampled_from(containers))
    replacement = draw(st.one_of(json_values, python_junk, st.just(target)))
    if isinstance(target, dict) and target:
        target[draw(st.sampled_from(sorted(target)))] = replacement
    elif isinstance(target, list) and target:
        target[draw(st.integers(0, len(target) - 1))] = replacement
    return message, dict(case.kwargs())


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_deep())
def test_never_raises_deep_in_input_requests_icons_and_meta(pair: tuple[Any, dict[str, Any]]) -> None:
    message, opts = pair
    _check(message, opts)

"""The public API: options, accessors, immutability, serialisation."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

import mcp_verdict
from mcp_verdict import (
    TASKS_EXTENSION,
    ElicitationRequest,
    EmbeddedResourceBlock,
    Finding,
    ImageBlock,
    Kind,
    Limits,
    ResourceLinkBlock,
    RootsRequest,
    SamplingRequest,
    TextBlock,
    Verdict,
    classify,
)


def ok(result: dict[str, Any], id_: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


COMPLETE = ok({"resultType": "complete", "content": [{"type": "text", "text": "hi"}],
               "structuredContent": {"n": 3}})

# --- a bad option is the caller's mistake: ValueError, never a verdict ------------------------

BAD_OPTIONS: list[tuple[dict[str, Any], str]] = [
    ({"version": "2025-01-01"}, "unknown protocol version"),
    ({"version": 2026}, "unknown protocol version"),
    ({"request_id": True}, "request_id"),
    ({"request_id": 1.5}, "request_id"),
    ({"request_id": [1]}, "request_id"),
    ({"extensions": "io.modelcontextprotocol/tasks"}, "extensions"),
    ({"extensions": [1]}, "extensions"),
    ({"client_capabilities": []}, "client_capabilities"),
    ({"client_capabilities": {"elicitation": True}}, "elicitation"),
    ({"absent_result_type": "maybe"}, "absent_result_type"),
    ({"limits": {"max_bytes": 1}}, "limits"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_bad_options_raise_value_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        classify(COMPLETE, **options)


def test_the_version_is_read_the_same_on_every_call() -> None:
    """Options of plain calls are remembered per version; a version string, or a subclass of
    str equal to one, means the same on the first call as on later ones."""

    class Version(str):
        pass

    for _ in range(2):
        for version in ("2025-06-18", Version("2025-06-18")):
            assert classify(COMPLETE, version=version).version == "2025-06-18"
            assert type(classify(COMPLETE, version=version).version) is str
    for _ in range(2):
        with pytest.raises(ValueError, match="unknown protocol version"):
            classify(COMPLETE, version=Version("2025-01-01"))
        with pytest.raises(ValueError, match="unknown protocol version"):
            classify(COMPLETE, version=["2025-06-18"])  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs", [{"max_bytes": 0}, {"max_depth": 201}, {"max_nodes": True},
                                    {"max_depth": "64"}])
def test_bad_limits(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="Limits"):
        Limits(**kwargs)


# --- accessors hand out only what the kind vouches for ----------------------------------------

def test_complete_accessors() -> None:
    verdict = classify(COMPLETE)
    assert verdict.kind is Kind.NORMAL_COMPLETE
    assert verdict.is_error is False
    assert verdict.content == (TextBlock("hi"),)
    assert verdict.text == "hi"
    assert verdict.structured_content == {"n": 3}
    assert verdict.has_structured_content
    assert verdict.id == 1
    assert verdict.result_type == "complete"
    assert verdict.error is None and verdict.error_code is None
    assert verdict.input_requests == {} and verdict.request_state is None and verdict.task is None


def test_structured_content_null_is_not_absent() -> None:
    verdict = classify(ok({"resultType": "complete", "content": [], "structuredContent": None}))
    assert verdict.kind is Kind.NORMAL_COMPLETE
    assert verdict.has_structured_content and verdict.structured_content is None
    assert not classify(ok({"resultType": "complete", "content": []})).has_structured_content


def test_unclassified_hands_out_nothing_that_looks_like_success() -> None:
    verdict = classify(ok({"resultType": "complete", "content": [{"type": "text", "text": "x"}],
                           "isError": "false", "structuredContent": {"ok": True}}))
    assert verdict.kind is Kind.UNCLASSIFIED
    assert verdict.is_error is None
    assert verdict.content == ()
    assert verdict.structured_content is None and not verdict.has_structured_content
    assert verdict.result is None
    assert verdict.result_type == "complete"
    assert verdict.id == 1
    assert verdict.errors == verdict.findings
    assert verdict.findings == (Finding("/result/isError", "result.is_error", verdict.findings[0].message),)


def test_every_block_type_has_a_typed_view() -> None:
    verdict = classify(ok({"resultType": "complete", "content": [
        {"type": "text", "text": "t", "annotations": {"audience": ["user"], "priority": 0.5}},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3},
        {"type": "resource", "resource": {"uri": "file:///b", "blob": "aGk=", "mimeType": "x/y"}},
    ]}))
    assert verdict.content == (
        TextBlock("t", {"audience": ["user"], "priority": 0.5}),
        ImageBlock("aGk=", "image/png"),
        ResourceLinkBlock("file:///a", "a", size=3),
        EmbeddedResourceBlock("file:///b", blob="aGk=", mime_type="x/y"),
    )


# (wire text with an integer written with a zero fractional part, what the view holds: an int)
INTEGRAL_VIEWS = [
    (b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602.0,"message":"bad"}}',
     lambda v: (v.error_code, v.error.code if v.error else None), (-32602, -32602)),
    (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"resource_link",'
     b'"uri":"file:///a","name":"a","size":2048.0}]}}',
     lambda v: (v.content[0].size,), (2048,)),
]


@pytest.mark.parametrize(("wire", "view", "expected"), INTEGRAL_VIEWS)
def test_an_integral_float_is_an_int_in_the_views(wire: bytes, view: Any, expected: tuple[int, ...]) -> None:
    seen = view(classify(wire))
    assert seen == expected and all(type(x) is int for x in seen)


def test_protocol_error_accessors() -> None:
    verdict = classify({"jsonrpc": "2.0", "id": "a", "error": {
        "code": -32022, "message": "Unsupported protocol version",
        "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}}})
    assert verdict.kind is Kind.PROTOCOL_ERROR
    assert verdict.error_code == -32022
    assert verdict.error_message == "Unsupported protocol version"
    assert verdict.error_data == {"supported": ["2025-11-25"], "requested": "2026-07-28"}
    assert verdict.error is not None and verdict.error.has_data
    assert verdict.is_error is None and verdict.content == ()


def test_input_required_accessors() -> None:
    verdict = classify(ok({"resultType": "input_required", "requestState": "", "inputRequests": {
        "a": {"method": "elicitation/create", "params": {"mode": "url", "message": "m",
                                                         "url": "https://example.com/x"}},
        "b": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}},
        "c": {"method": "roots/list"},
    }}))
    assert verdict.kind is Kind.INPUT_REQUIRED
    assert verdict.request_state == ""  # empty, not absent
    requests = verdict.input_requests
    assert isinstance(requests["a"], ElicitationRequest) and requests["a"].mode == "url"
    assert requests["a"].url == "https://example.com/x" and requests["a"].requested_schema is None
    assert isinstance(requests["b"], SamplingRequest) and requests["b"].max_tokens == 5
    assert isinstance(requests["c"], RootsRequest) and requests["c"].params == {}


def test_task_accessors_2026_and_2025() -> None:
    handle = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
              "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": None, "pollIntervalMs": 250}
    verdict = classify(ok({"resultType": "task", **handle}), extensions=[TASKS_EXTENSION])
    assert verdict.kind is Kind.TASK
    assert verdict.task is not None
    assert (verdict.task.task_id, verdict.task.poll_interval_ms, verdict.task.terminal) == ("t1", 250, False)
    legacy = {"taskId": "t2", "status": "completed", "createdAt": "c", "lastUpdatedAt": "u", "ttl": 60000}
    verdict = classify(ok({"task": legacy}), version="2025-11-25", extensions=[TASKS_EXTENSION])
    assert verdict.kind is Kind.TASK and verdict.task is not None
    assert (verdict.task.task_id, verdict.task.ttl_ms, verdict.task.terminal) == ("t2", 60000, True)


# --- values ------------------------------------------------------------------------------------

def test_verdicts_are_immutable() -> None:
    verdict = classify(COMPLETE)
    with pytest.raises(AttributeError):
        verdict.kind = Kind.TOOL_ERROR  # type: ignore[misc]  # mypy refuses it too
    with pytest.raises(AttributeError):
        del verdict.findings
    with pytest.raises(AttributeError):
        verdict.extra = 1  # type: ignore[attr-defined]


def test_equality_hash_pickle_and_repr() -> None:
    first, second = classify(COMPLETE), classify(json.dumps(COMPLETE))
    assert first == second and hash(first) == hash(second)
    assert pickle.loads(pickle.dumps(first)) == first
    assert repr(first) == "Verdict(kind='normal_complete', version='2026-07-28', id=1)"
    bad = classify(ok({"resultType": "complete", "content": [], "isError": 0}))
    assert repr(bad) == ("Verdict(kind='unclassified', version='2026-07-28', id=1, "
                         "findings=[result.is_error@/result/isError])")


@pytest.mark.parametrize("response", [
    COMPLETE, ok({"resultType": "complete", "content": [], "isError": True}),
    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "data": [1, {"x": None}]}},
    b"[1,2", b"\xff", ok({"resultType": "input_required", "requestState": "s"}),
])
def test_to_dict_is_json_serialisable(response: Any) -> None:
    verdict = classify(response)
    assert json.loads(json.dumps(verdict.to_dict())) == verdict.to_dict()
    summary = verdict.to_dict(payload=False)
    assert "content" not in summary and summary["kind"] == verdict.kind.value


def test_findings_carry_their_spec_reference() -> None:
    verdict = classify(ok({"resultType": "complete", "content": [], "isError": "true"}))
    assert verdict.findings[0].spec.endswith("server/tools#error-handling")
    assert verdict.findings[0].to_dict()["severity"] == "error"


def test_public_api_is_exactly_what_init_exports() -> None:
    exported = set(mcp_verdict.__all__)
    assert {"classify", "Verdict", "Kind", "Finding", "Limits"} <= exported
    assert all(not name.startswith("_") or name == "__version__" for name in exported)
    assert isinstance(classify(COMPLETE), Verdict)


def test_request_id_compares_with_its_json_type() -> None:
    assert classify(ok({"resultType": "complete", "content": []}, 7), request_id=7).kind is Kind.NORMAL_COMPLETE
    verdict = classify(ok({"resultType": "complete", "content": []}, 7), request_id="7")
    assert [f.code for f in verdict.findings] == ["envelope.id_mismatch"]


def test_limits_bound_size_and_depth() -> None:
    big = json.dumps(COMPLETE).encode()
    verdict = classify(big, limits=Limits(max_bytes=len(big) - 1))
    assert [f.code for f in verdict.findings] == ["json.too_large"]
    deep: Any = 1
    for _ in range(10):
        deep = [deep]
    response = ok({"resultType": "complete", "content": [], "structuredContent": deep})
    assert classify(response).kind is Kind.NORMAL_COMPLETE
    verdict = classify(response, limits=Limits(max_depth=8))
    assert [f.code for f in verdict.findings] == ["json.too_deep"]
    assert verdict.findings[0].path.startswith("/result/structuredContent/0/0")


def test_parsed_values_that_are_not_json() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    cases = {
        "tuple": ((1, 2), "json.not_json_value"),
        "nan": (float("nan"), "json.number_out_of_range"),
        "inf": (float("inf"), "json.number_out_of_range"),
        "cycle": (cyclic, "json.too_deep"),
        "object": (object(), "json.not_json_value"),
        "int key": ({1: "x"}, "json.not_json_value"),
    }
    for name, (value, code) in cases.items():
        verdict = classify(ok({"resultType": "complete", "content": [], "structuredContent": value}))
        assert verdict.kind is Kind.UNCLASSIFIED, name
        assert [f.code for f in verdict.findings] == [code], name


def test_shared_references_hit_the_node_budget() -> None:
    shared: Any = [0]
    for _ in range(40):  # 2**40 paths through 40 shared lists
        shared = [shared, shared]
    verdict = classify(ok({"resultType": "complete", "content": [], "structuredContent": shared}),
                       limits=Limits(max_nodes=100_000))
    assert [f.code for f in verdict.findings] == ["json.too_many_nodes"]


@pytest.mark.parametrize(("options", "option", "message"), [
    ({"extensions": {"io.modelcontextprotocol/tasks": {}}}, "extensions",
     "extensions must be an iterable of extension id strings, not a mapping"),
    ({"extensions": ["io.modelcontextprotocol/tasks", 1]}, "extensions[1]",
     "extensions[1] must be an extension id string, not 1"),
    ({"client_capabilities": {"elicitation": {"form": False}}}, "client_capabilities.elicitation.form",
     "client_capabilities['elicitation']['form'] must be an object"),
])
def test_a_bad_option_is_an_exported_option_error(options: dict[str, Any], option: str, message: str) -> None:
    """README "The API in five minutes": a bad option raises OptionError, a ValueError naming it."""
    with pytest.raises(mcp_verdict.OptionError) as raised:
        classify(COMPLETE, **options)
    assert isinstance(raised.value, ValueError)
    assert raised.value.option == option
    assert str(raised.value).startswith(message)

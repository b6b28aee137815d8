"""The sampling rules (``verdict/_sampling.py``), as a table of hand-written cases, and the
params held against the official schema's ``CreateMessageRequestParams``.

Each row: a sampling request's params, the finding code it must draw first (``None``: it is
well-formed) and that finding's JSON pointer below the params, with the specification text.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify

from .conftest import assert_first_finding, definition_validator, input_request_response

SAMPLING = "2026-07-28/client/sampling"
SCHEMA = "2026-07-28/schema#createmessagerequestparams"
BASE = "/result/inputRequests/s/params"
STRICTER = {"sampling.tool_pairing", "sampling.tool_result_mixed"}
"""Rules on sampling messages stricter than the schema, each resting on MUST text."""


def response(params: dict[str, Any]) -> dict[str, Any]:
    return input_request_response("s", "sampling/createMessage", params)


def text(role: str, words: str = "hi") -> dict[str, Any]:
    return {"role": role, "content": {"type": "text", "text": words}}


def use(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "t", "input": {}} for i in ids]}


def results(*ids: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "toolUseId": i, "content": []} for i in ids]}


def params(messages: list[Any] | None = None, **more: Any) -> dict[str, Any]:
    return {"messages": [text("user")] if messages is None else messages, "maxTokens": 10, **more}


TOOL = {"name": "t", "inputSchema": {"type": "object"}}

# (params, expected first code or None, pointer below params, spec)
TABLE: list[tuple[dict[str, Any], str | None, str, str]] = [
    (params(), None, "", SAMPLING + "#creating-messages"),
    ({"messages": [], "maxTokens": 100.0}, None, "", SCHEMA + " (JSON Schema: 100.0 is an integer)"),
    (params([text("user"), use("a", "b"), results("b", "a"), text("assistant")]), None, "",
     SAMPLING + "#parallel-tool-use"),
    (params([text("user"), use("a"), results("a"), use("b"), results("b")]), None, "",
     SAMPLING + "#multi-turn-tool-loop"),
    (params([{"role": "system", "content": {"type": "text", "text": "x"}}]), "sampling.message", "/messages/0/role",
     SAMPLING + "#messages"),
    (params([{"role": "user"}]), "sampling.message", "/messages/0", SAMPLING + "#messages"),
    (params([{"role": "user", "content": "hi"}]), "sampling.message", "/messages/0/content", SAMPLING + "#messages"),
    (params([{"role": "user", "content": [{"type": "resource", "resource": {"uri": "a", "text": "b"}}]}]),
     "sampling.content", "/messages/0/content/0/type", "2026-07-28/schema#samplingmessagecontentblock"),
    (params([{"role": "user", "content": [7]}]), "sampling.content", "/messages/0/content/0",
     "2026-07-28/schema#samplingmessagecontentblock"),
    (params([{"role": "user", "content": {"type": "audio", "data": "x", "mimeType": 1}}]), "content.field_type",
     "/messages/0/content/mimeType", "2026-07-28/schema#audiocontent"),
    (params([{"role": "user", "content": {"type": "text", "text": "x", "annotations": {"priority": 2}}}]),
     "content.annotations", "/messages/0/content/annotations/priority", "2026-07-28/schema#annotations"),
    (params([text("user"), {"role": "assistant", "content": [{"type": "tool_use", "id": 1, "name": "t",
                                                              "input": {}}]}]),
     "sampling.content", "/messages/1/content/0/id", "2026-07-28/schema#toolusecontent"),
    (params([text("user"), use("a"), {"role": "user", "content": [
        {"type": "tool_result", "toolUseId": "a", "content": [], "_meta": []}]}]),
     "sampling.content", "/messages/2/content/0/_meta", "2026-07-28/schema#toolresultcontent"),
    (params([text("user"), use("a"), {"role": "user", "content": [
        {"type": "tool_result", "toolUseId": "a", "content": [{"type": "resource_link", "uri": "u"}]}]}]),
     "content.field_missing", "/messages/2/content/0/content/0", "2026-07-28/schema#resourcelink"),
    (params([text("user"), use("a"), {"role": "user", "content": [
        *results("a")["content"], {"type": "image", "data": "x", "mimeType": "image/png"}]}]),
     "sampling.tool_result_mixed", "/messages/2/content", SAMPLING + "#tool-result-messages"),
    (params([text("user"), use("a", "b"), results("a")]), "sampling.tool_pairing", "/messages/1",
     SAMPLING + "#tool-use-and-result-balance"),
    (params([text("user"), use("a"), text("assistant", "wait"), results("a")]), "sampling.tool_pairing",
     "/messages/1", SAMPLING + "#tool-use-and-result-balance"),
    (params([results("x")]), "sampling.tool_pairing", "/messages/0", "2026-07-28/schema#toolresultcontent"),
    (params(temperature=True), "sampling.param", "/temperature", SCHEMA),
    (params(includeContext="None"), "sampling.param", "/includeContext", SAMPLING + "#context-inclusion"),
    (params(modelPreferences={"speedPriority": -0.1}), "sampling.param", "/modelPreferences/speedPriority",
     SAMPLING + "#capability-priorities"),
    (params(modelPreferences={"hints": "claude"}), "sampling.param", "/modelPreferences/hints",
     SAMPLING + "#model-hints"),
    (params(modelPreferences={"hints": ["claude"]}), "sampling.param", "/modelPreferences/hints/0",
     SAMPLING + "#model-hints"),
    (params(stopSequences="\n"), "sampling.param", "/stopSequences", SCHEMA),
    (params(tools=[TOOL], toolChoice={"mode": "required"}), None, "", SAMPLING + "#tool-choice-modes"),
    (params(tools=[{"name": "t", "inputSchema": {"type": "object", "$schema": 1}}]), "sampling.tool",
     "/tools/0/inputSchema/$schema", "2026-07-28/schema#tool"),
    (params(tools=[{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": []}]), "sampling.tool",
     "/tools/0/outputSchema", "2026-07-28/schema#tool"),
    (params(tools=[{"inputSchema": {"type": "object"}}]), "sampling.tool", "/tools/0", "2026-07-28/schema#tool"),
    (params(tools=[{**TOOL, "annotations": {"title": 1}}]), "sampling.tool", "/tools/0/annotations/title",
     "2026-07-28/schema#toolannotations"),
    (params(tools=[{**TOOL, "icons": [{"src": "a.png", "theme": "Dark"}]}]), "icon.field", "/tools/0/icons/0/theme",
     "2026-07-28/schema#icon"),
    (params(tools=[TOOL], toolChoice={"mode": None}), "sampling.tool_choice", "/toolChoice/mode",
     SAMPLING + "#tool-choice-modes"),
    ({"messages": [], "maxTokens": 10.5}, "input.params", "/maxTokens", SCHEMA),
]


@pytest.mark.parametrize(("given_params", "code", "at", "spec"), TABLE)
def test_sampling_params(given_params: dict[str, Any], code: str | None, at: str, spec: str) -> None:
    assert_first_finding(classify(response(given_params)), code, BASE + at, spec)


# (params, client capabilities, expected codes): tools and toolChoice need sampling.tools; the
# deprecated includeContext values warn (client/sampling#capabilities: SHOULD avoid them, and
# SHOULD NOT use them unless the client declares sampling.context).
CAPABILITIES: list[tuple[dict[str, Any], dict[str, Any], list[str]]] = [
    (params(tools=[TOOL]), {"sampling": {"tools": {}}}, []),
    (params(tools=[TOOL]), {"sampling": {}}, ["input.capability"]),
    (params(toolChoice={"mode": "auto"}), {"sampling": {}}, ["input.capability"]),
    (params(toolChoice={"mode": "auto"}), {"sampling": {"tools": {}}}, []),
    (params(), {"sampling": {}}, []),
    (params(), {"elicitation": {}}, ["input.capability"]),
    (params(includeContext="thisServer"), {"sampling": {}}, ["sampling.include_context"]),
    (params(includeContext="allServers"), {"sampling": {"context": {}}}, ["sampling.include_context"]),
    (params(includeContext="none"), {"sampling": {}}, []),
]


@pytest.mark.parametrize(("given_params", "capabilities", "codes"), CAPABILITIES)
def test_tool_use_needs_the_sampling_tools_capability(given_params: dict[str, Any], capabilities: dict[str, Any],
                                                      codes: list[str]) -> None:
    """client/sampling#tools-in-sampling: servers MUST NOT send tool-enabled sampling requests
    to clients that did not declare sampling.tools."""
    verdict = classify(response(given_params), client_capabilities=capabilities)
    assert [f.code for f in verdict.findings] == codes


# --- the official schema's CreateMessageRequestParams as the oracle --------------------------------

def _params_validator() -> Any:
    return definition_validator("CreateMessageRequestParams")


blocks = st.sampled_from([
    {"type": "text", "text": "x"}, {"type": "text"}, {"type": "text", "text": 1},
    {"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "audio", "data": "x"},
    {"type": "tool_use", "id": "a", "name": "t", "input": {}}, {"type": "tool_use", "id": "a", "name": "t"},
    {"type": "tool_use", "id": "a", "name": "t", "input": []},
    {"type": "tool_result", "toolUseId": "a", "content": []},
    {"type": "tool_result", "toolUseId": "a", "content": [{"type": "text", "text": "r"}], "isError": True},
    {"type": "tool_result", "toolUseId": "a", "content": [{"type": "text"}]},
    {"type": "tool_result", "toolUseId": "a", "content": [], "isError": "no"},
    {"type": "tool_result", "toolUseId": 1, "content": []},
    {"type": "resource_link", "uri": "u", "name": "n"}, {"type": "thinking"}, "text", None,
])
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", 1]),
     "content": blocks | st.lists(blocks, max_size=3) | st.sampled_from(["hi", 1, None])},
    optional={"_meta": st.sampled_from([{}, {"k": 1}, "m", []])})
options = {
    "modelPreferences": st.sampled_from([{}, {"hints": [{"name": "a"}, {}]}, {"hints": [{"name": 1}]}, {"hints": "a"},
                                         {"costPriority": 0.5}, {"costPriority": 2}, {"speedPriority": "fast"}, []]),
    "systemPrompt": st.sampled_from(["s", 1, None]),
    "includeContext": st.sampled_from(["none", "thisServer", "allServers", "all", 0]),
    "temperature": st.sampled_from([0, 0.5, "0.5", True]),
    "stopSequences": st.sampled_from([[], ["a"], [1], "a"]),
    "metadata": st.sampled_from([{}, {"a": [1]}, [], "m"]),
    "tools": st.sampled_from([[], [TOOL], [{"name": "t"}], [{"name": "t", "inputSchema": {"type": "array"}}],
                              [{**TOOL, "annotations": {"readOnlyHint": 1}}], [{**TOOL, "icons": [{"src": 1}]}],
                              {"t": TOOL}]),
    "toolChoice": st.sampled_from([{}, {"mode": "auto"}, {"mode": "any"}, "auto"]),
}
near_misses = st.fixed_dictionaries(
    {"messages": st.lists(messages, max_size=4) | st.sampled_from(["hi", None]),
     "maxTokens": st.sampled_from([1, 100, 100.0, 0.5, "10", True])},
    optional=options)
# The same, drawn from the well-formed values only, so that the schema accepts about half.
good_blocks = st.sampled_from([
    {"type": "text", "text": "x"}, {"type": "image", "data": "x", "mimeType": "image/png"},
    {"type": "tool_use", "id": "a", "name": "t", "input": {"q": 1}},
    {"type": "tool_result", "toolUseId": "a", "content": [{"type": "text", "text": "r"}], "isError": False}])
good_messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant"]), "content": good_blocks | st.lists(good_blocks, max_size=3)},
    optional={"_meta": st.just({"k": 1})})
good_options = {
    "modelPreferences": st.just({"hints": [{"name": "a"}], "costPriority": 0.5}), "systemPrompt": st.just("s"),
    "includeContext": st.sampled_from(["none", "thisServer"]), "temperature": st.just(0.5),
    "stopSequences": st.just(["a"]), "metadata": st.just({"a": [1]}),
    "tools": st.just([{**TOOL, "icons": [{"src": "i.png", "sizes": ["any"]}], "annotations": {"readOnlyHint": True}}]),
    "toolChoice": st.just({"mode": "none"}),
}
well_formed = st.fixed_dictionaries({"messages": st.lists(good_messages, max_size=4),
                                     "maxTokens": st.sampled_from([1, 100.0])}, optional=good_options)
generated = near_misses | well_formed


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(generated)
def test_params_are_refused_when_the_official_schema_refuses_them(given_params: dict[str, Any]) -> None:
    """Where the schema accepts, only the rules stricter than it (each resting on MUST text) may
    refuse; where it refuses, so does the classifier."""
    expected_valid = _params_validator().is_valid(given_params)
    verdict = classify(response(copy.deepcopy(given_params)))
    codes = {f.code for f in verdict.findings if f.severity == "error"}  # warnings never refuse
    if expected_valid:
        assert codes <= STRICTER, (given_params, verdict.findings)
    else:
        assert verdict.kind is Kind.UNCLASSIFIED, given_params

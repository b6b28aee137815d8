"""A server's own input requests (``elicitation/create``, ``sampling/createMessage``,
``roots/list``: JSON-RPC requests to the client before 2026-07-28) judged by the rules of the
version in force (``verdict._input.check_server_request``, which the client runs on each before
any handler): a table of cases written by hand from each version's ``schema.json``
(``ElicitRequest``, ``ElicitRequestFormParams``, ``ElicitRequestURLParams``,
``CreateMessageRequest``, ``SamplingMessage``, ``ListRootsRequest``, ``RequestParams``,
``PrimitiveSchemaDefinition``, ``Tool``), then each version's schema itself as the oracle for
generated params.

Before, every such request was judged by 2026-07-28's rules whatever the session's version: a
2025-11-25 url-mode elicitation's ``elicitationId`` and an elicitation's or a sampling request's
``params._meta`` went unchecked (2026-07-28 defines neither there), while a 2025-06-18 request
valid by its own schema (a string property's ``default`` of another type: 2025-06-18's
StringSchema defines none) was refused, and a 2025-06-18 url-mode elicitation (the version has
form mode alone) or a message's content given as an array (2025-11-25's) passed.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind
from mcp_verdict.verdict._input import check_server_request
from mcp_verdict.verdict._judge import classify_options

from .conftest import require_shared

AT: str = "/result/inputRequests/"
"""Where the verdict holds the request: each row's pointer is below it."""

S = {"type": "object", "properties": {"a": {"type": "string"}}}
FORM = {"message": "Pick", "requestedSchema": S}
URL = {"mode": "url", "message": "Sign in", "url": "https://example.com/login"}
TEXT = {"type": "text", "text": "hi"}
USER = {"role": "user", "content": TEXT}
SAMPLE = {"messages": [USER], "maxTokens": 5}
TOOL_USE = {"role": "assistant", "content": {"type": "tool_use", "id": "u1", "name": "w", "input": {}}}
TOOL = {"name": "w", "inputSchema": {"type": "object"}}


def elicit(**members: Any) -> dict[str, Any]:
    return {**FORM, **members}


def schema_of(**property_: Any) -> dict[str, Any]:
    return {"message": "Pick", "requestedSchema": {"type": "object", "properties": {"a": property_}}}


def sample(**members: Any) -> dict[str, Any]:
    return {**SAMPLE, **members}


E, M, R = "elicitation/create", "sampling/createMessage", "roots/list"
V0, V1, V2, V3, V4 = "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"
OK: list[tuple[str, str]] = []
# (version, method, params, the client's capabilities or None, kind, [(code, pointer below the request)])
CASES: list[tuple[str, str, str, dict[str, Any], dict[str, Any] | None, Kind, list[tuple[str, str]]]] = [
    # --- elicitationId: 2025-11-25's ElicitRequestURLParams requires it, a string; 2026-07-28's
    # defines none (an open member); 2025-06-18 has no url mode
    ("id_string", V3, E, {**URL, "elicitationId": "e1"}, None, Kind.INPUT_REQUIRED, OK),
    ("id_integer", V3, E, {**URL, "elicitationId": 5}, None, Kind.UNCLASSIFIED,
     [("input.params", "/params/elicitationId")]),
    ("id_missing", V3, E, URL, None, Kind.UNCLASSIFIED, [("input.params", "/params")]),
    ("id_open_2026", V4, E, {**URL, "elicitationId": 5}, None, Kind.INPUT_REQUIRED, OK),
    ("id_none_2026", V4, E, URL, None, Kind.INPUT_REQUIRED, OK),
    # 2025-06-18's ElicitRequest: params {message, requestedSchema} required, no mode member
    ("url_mode_2025_06", V2, E, {**URL, "elicitationId": "e1"}, None, Kind.UNCLASSIFIED,
     [("input.params", "/params")]),
    ("mode_open_2025_06", V2, E, elicit(mode="url"), None, Kind.INPUT_REQUIRED, OK),
    ("mode_unknown_2025_11", V3, E, elicit(mode="popup"), None, Kind.UNCLASSIFIED,
     [("input.elicitation_mode", "/params/mode")]),
    # no elicitation/create before 2025-06-18
    ("no_elicitation_2025_03", V1, E, FORM, None, Kind.UNCLASSIFIED, [("input.request", "/method")]),
    ("no_elicitation_2024", V0, E, FORM, None, Kind.UNCLASSIFIED, [("input.request", "/method")]),
    # --- params._meta: 2025-11-25's ElicitRequestFormParams, ElicitRequestURLParams and
    # CreateMessageRequestParams define it (an object; progressToken a string or an integer);
    # 2025-06-18's ElicitRequest and CreateMessageRequest params and 2026-07-28's do not (open)
    ("meta_object", V3, E, elicit(_meta={"progressToken": "p1", "x": [1]}), None, Kind.INPUT_REQUIRED, OK),
    ("meta_integer", V3, E, elicit(_meta=5), None, Kind.UNCLASSIFIED, [("input.params", "/params/_meta")]),
    ("meta_url_mode", V3, E, {**URL, "elicitationId": "e1", "_meta": []}, None, Kind.UNCLASSIFIED,
     [("input.params", "/params/_meta")]),
    ("meta_token_bool", V3, E, elicit(_meta={"progressToken": True}), None, Kind.UNCLASSIFIED,
     [("input.params", "/params/_meta/progressToken")]),
    ("meta_token_integer", V3, M, sample(_meta={"progressToken": 7}), None, Kind.INPUT_REQUIRED, OK),
    ("meta_token_float", V3, M, sample(_meta={"progressToken": 1.5}), None, Kind.UNCLASSIFIED,
     [("input.params", "/params/_meta/progressToken")]),
    ("meta_sampling", V3, M, sample(_meta="m"), None, Kind.UNCLASSIFIED, [("input.params", "/params/_meta")]),
    ("meta_open_2025_06", V2, E, elicit(_meta=5), None, Kind.INPUT_REQUIRED, OK),
    ("meta_open_2025_06_sampling", V2, M, sample(_meta=5), None, Kind.INPUT_REQUIRED, OK),
    ("meta_open_2026", V4, E, elicit(_meta=5), None, Kind.INPUT_REQUIRED, OK),
    ("meta_open_2026_sampling", V4, M, sample(_meta={"progressToken": True}), None, Kind.INPUT_REQUIRED, OK),
    # ListRootsRequest: params._meta an object on every version; its progressToken a string or
    # an integer up to 2025-11-25 (2026-07-28: a MetaObject, any object)
    ("roots_token_2024", V0, R, {"_meta": {"progressToken": True}}, None, Kind.UNCLASSIFIED,
     [("input.params", "/params/_meta/progressToken")]),
    ("roots_token_2025_06", V2, R, {"_meta": {"progressToken": None}}, None, Kind.UNCLASSIFIED,
     [("input.params", "/params/_meta/progressToken")]),
    ("roots_token_2025_11", V3, R, {"_meta": {"progressToken": "p"}}, None, Kind.INPUT_REQUIRED, OK),
    ("roots_token_2026", V4, R, {"_meta": {"progressToken": True}}, None, Kind.INPUT_REQUIRED, OK),
    ("roots_meta_2025_11", V3, R, {"_meta": 5}, None, Kind.UNCLASSIFIED, [("input.params", "/params/_meta")]),
    # --- task (2025-11-25's TaskMetadata: an object whose ttl is an integer); open elsewhere
    ("task_ttl", V3, E, elicit(task={"ttl": 60000}), None, Kind.INPUT_REQUIRED, OK),
    ("task_string", V3, M, sample(task="soon"), None, Kind.UNCLASSIFIED, [("input.params", "/params/task")]),
    ("task_ttl_string", V3, E, elicit(task={"ttl": "1m"}), None, Kind.UNCLASSIFIED,
     [("input.params", "/params/task/ttl")]),
    ("task_open_2026", V4, E, elicit(task="soon"), None, Kind.INPUT_REQUIRED, OK),
    # --- requestedSchema: 2025-06-18's PrimitiveSchemaDefinition is StringSchema, NumberSchema
    # (neither defines default), BooleanSchema (default a boolean) and EnumSchema (enum,
    # enumNames, no default), and no $schema; 2025-11-25 adds the defaults, $schema and the
    # titled and multi-select enums
    ("string_default_2025_06", V2, E, schema_of(type="string", default=5), None, Kind.INPUT_REQUIRED, OK),
    ("string_default_2025_11", V3, E, schema_of(type="string", default=5), None, Kind.UNCLASSIFIED,
     [("elicitation.property", "/params/requestedSchema/properties/a/default")]),
    ("number_default_2025_06", V2, E, schema_of(type="number", default="x"), None, Kind.INPUT_REQUIRED, OK),
    ("boolean_default_2025_06", V2, E, schema_of(type="boolean", default="x"), None, Kind.UNCLASSIFIED,
     [("elicitation.property", "/params/requestedSchema/properties/a/default")]),
    # (the schema's anyOf: StringSchema defines no enum nor enumNames, so a malformed enum is a
    # StringSchema with open members, as on every version)
    ("enum_names_2025_06", V2, E, schema_of(type="string", enum=["a"], enumNames=[1]), None, Kind.INPUT_REQUIRED,
     OK),
    ("enum_title_2025_06", V2, E, schema_of(type="string", enum=["a"], title=5), None, Kind.UNCLASSIFIED,
     [("elicitation.property", "/params/requestedSchema/properties/a/title")]),
    ("multi_select_2025_06", V2, E, schema_of(type="array", items={"type": "string", "enum": ["a"]}), None,
     Kind.UNCLASSIFIED, [("elicitation.property", "/params/requestedSchema/properties/a/type")]),
    ("multi_select_2025_11", V3, E, schema_of(type="array", items={"type": "string", "enum": ["a"]}), None,
     Kind.INPUT_REQUIRED, OK),
    ("dialect_2025_06", V2, E, {"message": "m", "requestedSchema": {**S, "$schema": 5}}, None,
     Kind.INPUT_REQUIRED, OK),
    ("dialect_2025_11", V3, E, {"message": "m", "requestedSchema": {**S, "$schema": 5}}, None, Kind.UNCLASSIFIED,
     [("elicitation.schema", "/params/requestedSchema/$schema")]),
    # --- sampling: no tool use up to 2025-06-18 (SamplingMessage content one Text, Image or
    # Audio block; no tools, toolChoice or message _meta: open members); 2024-11-05 has no audio
    ("content_array_2025_06", V2, M, sample(messages=[{"role": "user", "content": [TEXT]}]), None,
     Kind.UNCLASSIFIED, [("sampling.message", "/params/messages/0/content")]),
    ("content_array_2025_11", V3, M, sample(messages=[{"role": "user", "content": [TEXT]}]), None,
     Kind.INPUT_REQUIRED, OK),
    ("tool_use_2025_06", V2, M, sample(messages=[USER, TOOL_USE]), None, Kind.UNCLASSIFIED,
     [("sampling.content", "/params/messages/1/content/type")]),
    ("tools_open_2025_06", V2, M, sample(tools=5, toolChoice="any"), None, Kind.INPUT_REQUIRED, OK),
    ("tools_2025_11", V3, M, sample(tools=5), None, Kind.UNCLASSIFIED, [("sampling.tool", "/params/tools")]),
    ("message_meta_2025_06", V2, M, sample(messages=[{**USER, "_meta": 5}]), None, Kind.INPUT_REQUIRED, OK),
    ("message_meta_2025_11", V3, M, sample(messages=[{**USER, "_meta": 5}]), None, Kind.UNCLASSIFIED,
     [("sampling.message", "/params/messages/0/_meta")]),
    ("audio_2024", V0, M, sample(messages=[{"role": "user", "content": {"type": "audio", "data": "AA==",
                                                                         "mimeType": "audio/wav"}}]),
     None, Kind.UNCLASSIFIED, [("content.type_version", "/params/messages/0/content/type")]),
    ("audio_2025_03", V1, M, sample(messages=[{"role": "user", "content": {"type": "audio", "data": "AA==",
                                                                            "mimeType": "audio/wav"}}]),
     None, Kind.INPUT_REQUIRED, OK),
    # 2025-11-25's ToolResultContent.structuredContent is an object (2026-07-28: any JSON value)
    ("tool_result_structured_2025_11", V3, M, sample(messages=[USER, TOOL_USE, {"role": "user", "content": {
        "type": "tool_result", "toolUseId": "u1", "content": [], "structuredContent": [1]}}]), None,
     Kind.UNCLASSIFIED, [("sampling.content", "/params/messages/2/content/structuredContent")]),
    ("tool_result_structured_2026", V4, M, sample(messages=[USER, TOOL_USE, {"role": "user", "content": {
        "type": "tool_result", "toolUseId": "u1", "content": [], "structuredContent": [1]}}]), None,
     Kind.INPUT_REQUIRED, OK),
    # 2025-11-25's Tool: outputSchema needs type "object"; properties an object of objects,
    # required strings; execution.taskSupport forbidden, optional or required (2026-07-28: open)
    ("output_schema_2025_11", V3, M, sample(tools=[{**TOOL, "outputSchema": {}}]), None, Kind.UNCLASSIFIED,
     [("sampling.tool", "/params/tools/0/outputSchema")]),
    ("output_schema_2026", V4, M, sample(tools=[{**TOOL, "outputSchema": {}}]), None, Kind.INPUT_REQUIRED, OK),
    ("input_properties_2025_11", V3, M, sample(tools=[{"name": "w", "inputSchema": {
        "type": "object", "properties": {"p": 5}}}]), None, Kind.UNCLASSIFIED,
     [("sampling.tool", "/params/tools/0/inputSchema/properties")]),
    ("input_properties_2026", V4, M, sample(tools=[{"name": "w", "inputSchema": {
        "type": "object", "properties": {"p": 5}}}]), None, Kind.INPUT_REQUIRED, OK),
    ("input_required_2025_11", V3, M, sample(tools=[{"name": "w", "inputSchema": {
        "type": "object", "required": [1]}}]), None, Kind.UNCLASSIFIED,
     [("sampling.tool", "/params/tools/0/inputSchema/required")]),
    ("execution_2025_11", V3, M, sample(tools=[{**TOOL, "execution": {"taskSupport": "always"}}]), None,
     Kind.UNCLASSIFIED, [("sampling.tool", "/params/tools/0/execution/taskSupport")]),
    ("execution_2026", V4, M, sample(tools=[{**TOOL, "execution": {"taskSupport": "always"}}]), None,
     Kind.INPUT_REQUIRED, OK),
    # includeContext thisServer/allServers: soft-deprecated in 2025-11-25 ("Servers SHOULD only
    # use these values if the client declares ClientCapabilities.sampling.context"); 2025-06-18
    # has no such capability and no such rule
    ("context_2025_06", V2, M, sample(includeContext="thisServer"), None, Kind.INPUT_REQUIRED, OK),
    ("context_2025_11", V3, M, sample(includeContext="thisServer"), None, Kind.INPUT_REQUIRED,
     [("sampling.include_context", "/params/includeContext")]),
    # --- capabilities: 2025-06-18's elicitation capability is an object that names no modes
    # (declared at all, it is form mode, the one mode); 2025-11-25's form and url; tool use
    # needs sampling.tools from 2025-11-25 (client/sampling: servers MUST NOT send tool-enabled
    # requests otherwise), and 2025-06-18 has no tool-enabled request
    ("capability_2025_06", V2, E, FORM, {"elicitation": {"url": {}}}, Kind.INPUT_REQUIRED, OK),
    ("capability_2025_11", V3, E, FORM, {"elicitation": {"url": {}}}, Kind.UNCLASSIFIED, [("input.capability", "")]),
    ("tools_capability_2025_06", V2, M, sample(tools=[TOOL]), {"sampling": {}}, Kind.INPUT_REQUIRED, OK),
    ("tools_capability_2025_11", V3, M, sample(tools=[TOOL]), {"sampling": {}}, Kind.UNCLASSIFIED,
     [("input.capability", "")]),
]


@pytest.mark.parametrize(("version", "method", "params", "capabilities", "kind", "findings"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_server_request_is_judged_by_its_versions_rules(
        version: str, method: str, params: dict[str, Any], capabilities: dict[str, Any] | None, kind: Kind,
        findings: list[tuple[str, str]]) -> None:
    verdict = check_server_request(method, params, classify_options(version, client_capabilities=capabilities))
    assert verdict.version == version
    assert (verdict.kind, [(f.code, f.path[len(AT):]) for f in verdict.findings]) == (kind, findings)
    assert all(f.path.startswith(AT) for f in verdict.findings)
    if kind is Kind.INPUT_REQUIRED:  # the request, as the handlers read it
        [(key, request)] = verdict.input_requests.items()
        assert (key, request.method, dict(request.params)) == ("", method, params)


def test_a_request_without_params_and_one_whose_params_are_no_object() -> None:
    """ListRootsRequest: params optional; ElicitRequest and CreateMessageRequest: required, an object."""
    options = classify_options(V3)
    assert check_server_request(R, None, options, given=False).kind is Kind.INPUT_REQUIRED
    assert [(f.code, f.path) for f in check_server_request(E, None, options, given=False).findings] == [
        ("input.params", AT)]
    assert [(f.code, f.path) for f in check_server_request(M, [1], options).findings] == [
        ("input.params", AT + "/params")]


# --- each version's schema.json as the oracle ------------------------------------------------

@functools.cache
def _validator(version: str, name: str) -> Any:
    from jsonschema import validators

    root = json.loads((require_shared() / version / "schema.json").read_text("utf-8"))
    defs = "$defs" if "$defs" in root else "definitions"
    schema = {"$schema": root["$schema"], "$ref": f"#/{defs}/{name}", defs: root[defs]}
    return validators.validator_for(schema)(schema)


def _valid(version: str, name: str, method: str, params: dict[str, Any]) -> bool:
    # (2025-11-25's requests are JSONRPCRequests: an id and jsonrpc, open on the others)
    return bool(_validator(version, name).is_valid({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))


ABSENT = object()
members = {
    "message": st.sampled_from([ABSENT, "Pick", 5]),
    "mode": st.sampled_from([ABSENT, "form", "url", "popup", 5]),
    "url": st.sampled_from([ABSENT, "https://example.com/x", 5]),  # (absolute: "MUST contain a valid URL")
    "elicitationId": st.sampled_from([ABSENT, "e1", 5, None]),
    "requestedSchema": st.sampled_from([ABSENT, S, {**S, "$schema": 5}, {"type": "object", "properties": {
        "a": {"type": "string", "default": 5}}}, {"type": "object", "properties": {"a": {"type": "array", "items": {
            "type": "string", "enum": ["a"]}}}}, 5]),
    "_meta": st.sampled_from([ABSENT, {}, 5, {"progressToken": "p"}, {"progressToken": 1}, {"progressToken": 1.0},
                              {"progressToken": 1.5}, {"progressToken": True}]),
    "task": st.sampled_from([ABSENT, {}, {"ttl": 1}, {"ttl": "x"}, "soon"]),
}
elicitation_params = st.fixed_dictionaries(members).map(
    lambda drawn: {name: value for name, value in drawn.items() if value is not ABSENT})


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([V2, V3, V4]), elicitation_params)
def test_an_elicitation_is_refused_exactly_when_its_versions_schema_refuses_it(
        version: str, params: dict[str, Any]) -> None:
    verdict = check_server_request(E, params, classify_options(version))
    assert (verdict.kind is Kind.INPUT_REQUIRED) is _valid(version, "ElicitRequest", E, params), (
        version, params, verdict.findings)


block = st.sampled_from([TEXT, {"type": "image", "data": "AA==", "mimeType": "image/png"},
                         {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}, {"type": "text", "text": 5}])
message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]),
                                 "content": st.one_of(block, st.lists(block, max_size=2))},
                                optional={"_meta": st.sampled_from([{}, 5])})
sampling_params = st.fixed_dictionaries(
    {"messages": st.lists(message, max_size=2), "maxTokens": st.sampled_from([5, 5.0, "5"])},
    optional={"tools": st.sampled_from([[], [TOOL], [{**TOOL, "outputSchema": {}}], 5]),
              "toolChoice": st.sampled_from([{}, {"mode": "auto"}, {"mode": "x"}, 5]),
              "_meta": st.sampled_from([{}, 5, {"progressToken": True}]),
              "task": st.sampled_from([{"ttl": 1}, {"ttl": "x"}]),
              "includeContext": st.sampled_from(["none", "sometimes"])})


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([V0, V1, V2, V3, V4]), sampling_params)
def test_a_sampling_request_is_refused_exactly_when_its_versions_schema_refuses_it(
        version: str, params: dict[str, Any]) -> None:
    """Without tool_use and tool_result blocks, whose pairing rules are stricter than the schema."""
    verdict = check_server_request(M, params, classify_options(version))
    assert (verdict.kind is Kind.INPUT_REQUIRED) is _valid(version, "CreateMessageRequest", M, params), (
        version, params, verdict.findings)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([V0, V1, V2, V3, V4]),
       st.fixed_dictionaries({}, optional={"_meta": st.sampled_from([{}, 5, {"progressToken": "p"},
                                                                     {"progressToken": 2}, {"progressToken": 2.5},
                                                                     {"progressToken": None}]),
                                           "other": st.sampled_from([1, "x"])}))
def test_a_roots_request_is_refused_exactly_when_its_versions_schema_refuses_it(
        version: str, params: dict[str, Any]) -> None:
    verdict = check_server_request(R, params, classify_options(version))
    assert (verdict.kind is Kind.INPUT_REQUIRED) is _valid(version, "ListRootsRequest", R, params), (
        version, params, verdict.findings)

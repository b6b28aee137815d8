"""The elicitation rules (``verdict/_elicitation.py``), as a table of hand-written cases, and
the primitive schema definitions held against the official schema's own ``anyOf``.

Each row: a requested property (or the params of an elicitation), the finding code it must
draw (``None``: it is well-formed) and the JSON pointer of that finding below the request,
with the specification text it rests on.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify

from .conftest import assert_first_finding, definition_validator, input_request_response

REQUESTED = "2026-07-28/client/elicitation#requested-schema"
URL_MODE = "2026-07-28/client/elicitation#url-mode-elicitation-requests"
BASE = "/result/inputRequests/q/params"


def response(params: dict[str, Any]) -> dict[str, Any]:
    return input_request_response("q", "elicitation/create", params)


def form(properties: dict[str, Any], **schema: Any) -> dict[str, Any]:
    return response({"message": "Fill in", "requestedSchema": {"type": "object", "properties": properties, **schema}})


# (property definition, expected code or None, pointer below the property, spec)
PROPERTIES: list[tuple[dict[str, Any], str | None, str, str]] = [
    ({"type": "string"}, None, "", REQUESTED),
    ({"type": "string", "title": "T", "description": "D", "minLength": 1, "maxLength": 9, "format": "date-time",
      "default": "x"}, None, "", REQUESTED),
    ({"type": "string", "minLength": 3.0}, None, "", "JSON Schema: 3.0 is an integer"),
    ({"type": "integer", "minimum": -1.5, "maximum": 10, "default": 2}, None, "", REQUESTED),
    ({"type": "boolean", "default": True}, None, "", REQUESTED),
    ({"type": "string", "enum": ["a", "b"], "default": "a"}, None, "", REQUESTED),
    ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, None, "", REQUESTED),
    ({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 0, "default": []}, None, "", REQUESTED),
    ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, None, "", REQUESTED),
    ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, None, "", "2026-07-28/schema#legacytitledenumschema"),
    # The schema's anyOf: a keyword one branch lacks is open in that branch.
    ({"type": "string", "oneOf": [{"const": "a"}]}, None, "", "2026-07-28/schema#stringschema (oneOf is open)"),
    ({"type": "string", "default": 1}, "elicitation.property", "/default", REQUESTED),
    ({"type": "string", "format": "hostname"}, "elicitation.property", "/format", REQUESTED),
    ({"type": "string", "maxLength": 2.5}, "elicitation.property", "/maxLength", REQUESTED),
    ({"type": "string", "description": ["d"]}, "elicitation.property", "/description", REQUESTED),
    ({"type": "number", "maximum": "9"}, "elicitation.property", "/maximum", REQUESTED),
    ({"type": "number", "default": False}, "elicitation.property", "/default", REQUESTED),
    ({"type": "boolean", "default": 0}, "elicitation.property", "/default", REQUESTED),
    ({"type": "object", "properties": {}}, "elicitation.property", "/type", REQUESTED),
    ({"type": ["string", "null"]}, "elicitation.property", "/type", REQUESTED),
    ({"enum": ["a"]}, "elicitation.property", "", REQUESTED),
    ({"type": "array", "items": {"type": "string"}}, "elicitation.property", "/items", REQUESTED),
    ({"type": "array", "items": {"type": "string", "enum": ["a"]}, "maxItems": "2"}, "elicitation.property",
     "/maxItems", REQUESTED),
    ({"type": "array", "items": {"anyOf": [{"title": "A"}]}}, "elicitation.property", "/items", REQUESTED),
    ({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": ["a"]}, "elicitation.property",
     "/default", REQUESTED),
]


@pytest.mark.parametrize(("definition", "code", "at", "spec"), PROPERTIES)
def test_property(definition: dict[str, Any], code: str | None, at: str, spec: str) -> None:
    verdict = classify(form({"p": definition}))
    found = [(f.code, f.path) for f in verdict.findings]
    if code is None:
        assert (verdict.kind, found) == (Kind.INPUT_REQUIRED, []), spec
    else:
        assert verdict.kind is Kind.UNCLASSIFIED, spec
        assert found[0] == (code, f"{BASE}/requestedSchema/properties/p{at}"), spec


# (params, expected code or None, pointer below params, spec)
PARAMS: list[tuple[dict[str, Any], str | None, str, str]] = [
    ({"message": "m", "requestedSchema": {"type": "object", "properties": {}, "required": [],
                                          "$schema": "https://json-schema.org/draft/2020-12/schema"}},
     None, "", REQUESTED),
    ({"message": "m", "requestedSchema": {"type": "object", "properties": {}, "required": ["a", 1]}},
     "elicitation.schema", "/requestedSchema/required", REQUESTED),
    ({"message": "m", "requestedSchema": {"type": "object", "properties": {}, "$schema": {}}},
     "elicitation.schema", "/requestedSchema/$schema", REQUESTED),
    ({"message": "m", "requestedSchema": {"type": "object"}}, "elicitation.schema", "/requestedSchema", REQUESTED),
    ({"message": "m", "requestedSchema": {"type": "Object", "properties": {}}}, "elicitation.schema",
     "/requestedSchema/type", REQUESTED),
    ({"mode": "url", "message": "m", "url": "https://example.com/consent?x=1"}, None, "", URL_MODE),
    ({"mode": "url", "message": "m", "url": "mailto:help@example.com"}, None, "", URL_MODE),
    ({"mode": "url", "message": "m", "url": "example.com/consent"}, "elicitation.url", "/url", URL_MODE),
    ({"mode": "url", "message": "m", "url": "https://example.com/a b"}, "elicitation.url", "/url", URL_MODE),
    ({"mode": "url", "message": "m", "url": "https:"}, "elicitation.url", "/url", URL_MODE),
    ({"mode": "url", "message": "m", "url": "1http://example.com"}, "elicitation.url", "/url", URL_MODE),
    ({"mode": "url", "message": "m", "url": 7}, "input.params", "/url", URL_MODE),
]


@pytest.mark.parametrize(("params", "code", "at", "spec"), PARAMS)
def test_params(params: dict[str, Any], code: str | None, at: str, spec: str) -> None:
    assert_first_finding(classify(response(params)), code, BASE + at, spec)


def test_url_mode_needs_the_url_capability() -> None:
    wire = response({"mode": "url", "message": "m", "url": "https://example.com/"})
    assert classify(wire, client_capabilities={"elicitation": {"url": {}}}).kind is Kind.INPUT_REQUIRED
    assert [f.code for f in classify(wire, client_capabilities={"elicitation": {}}).findings] == ["input.capability"]


# --- the official schema's PrimitiveSchemaDefinition as the oracle ---------------------------------

def _primitive_validator() -> Any:
    return definition_validator("PrimitiveSchemaDefinition")


values = st.sampled_from(["a", "", "date", "email", "uri", "phone", 0, 1, 2.0, 2.5, -1, True, False, None, [], {},
                          ["a"], ["a", 1], [1], [{"const": "a", "title": "A"}], [{"const": "a"}],
                          {"type": "string", "enum": ["a"]}, {"anyOf": [{"const": "a", "title": "A"}]},
                          {"type": "string"}, {"anyOf": [{"const": 1, "title": "A"}]}])
keywords = st.sampled_from(["title", "description", "default", "minLength", "maxLength", "format", "minimum",
                            "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems", "x-extra"])
definitions = st.builds(
    lambda kind, members: {**({} if kind is None else {"type": kind}), **members},
    st.sampled_from(["string", "number", "integer", "boolean", "array", "object", None]),
    st.dictionaries(keywords, values, max_size=4))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(definitions)
def test_a_property_is_refused_exactly_when_the_official_schema_refuses_it(definition: dict[str, Any]) -> None:
    expected_valid = _primitive_validator().is_valid(definition)
    verdict = classify(form({"p": copy.deepcopy(definition)}))
    assert (verdict.kind is Kind.INPUT_REQUIRED) is expected_valid, (definition, verdict.findings)
    if not expected_valid:
        assert verdict.findings[0].code == "elicitation.property"

"""Differential test against the official JSON schemas in ../shared (test oracle data).

Dispatch on resultType first (the 2026-07-28 ``CallToolResult | InputRequiredResult`` union
alone accepts malformed results), then: every case the corpus labels ``valid`` must validate
against the official definitions of its version, and every case labelled ``invalid`` (an
unclassified verdict for a reason the schema itself states) must fail at least one of them.
Cases labelled ``n/a`` rest on rules the schema cannot express (duplicate keys, NaN, exact
resultType values, capabilities, integers written 1.0...).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import validators

from mcp_verdict import Kind, corpus
from mcp_verdict.corpus import Case

from .conftest import definition_validator, official_schema
from .schema_oracle import envelope_definitions, error_definitions

CASES = [c for c in corpus.load() if c.schema != "n/a"]


def _definitions(case: Case, message: Any) -> list[tuple[str, Any]]:
    """(definition, instance) pairs the case is held to, dispatched on its shape."""
    version = case.version
    if not isinstance(message, dict):
        return [(envelope_definitions(version)[0], message)]
    if "error" in message and "result" not in message:
        return error_definitions(version, message)
    pairs: list[tuple[str, Any]] = [
        (envelope_definitions(version)[0], message)]
    result = message.get("result")
    if isinstance(result, dict):
        result_type = result.get("resultType")
        if result_type == "input_required":
            pairs.append(("InputRequiredResult", result))
        elif result_type == "task" or (case.expect is Kind.TASK and version == "2025-11-25"):
            if version == "2025-11-25":
                pairs.append(("CreateTaskResult", result))
            # 2026-07-28 tasks are an extension whose schema is not in ../shared
        else:
            pairs.append(("CallToolResult", result))
    else:
        pairs.append(("CallToolResult", result))
    return pairs


def _message(case: Case) -> Any:
    return json.loads(case.input) if case.raw else case.input


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_official_schema_agrees(case: Case) -> None:
    message = _message(case)
    failures = []
    for definition, instance in _definitions(case, message):
        errors = sorted(definition_validator(definition, case.version).iter_errors(instance), key=str)
        if errors:
            failures.append(f"{definition}: {errors[0].message}")
    if case.schema == "valid":
        assert failures == [], f"{case.source} is labelled valid but the official schema rejects it"
    else:
        assert failures, f"{case.source} is labelled invalid but the official schema accepts it"


def test_the_schema_union_alone_accepts_malformed_results() -> None:
    """Why we dispatch first: the 2026-07-28 union takes isError "false" and unknown resultTypes."""
    union = {"anyOf": [{"$ref": "#/$defs/CallToolResult"}, {"$ref": "#/$defs/InputRequiredResult"}]}
    root = official_schema("2026-07-28")
    validator = validators.validator_for(root)({**union, "$defs": root["$defs"]})
    assert validator.is_valid({"resultType": "complete", "content": [], "isError": "false"})
    assert validator.is_valid({"resultType": "future"})

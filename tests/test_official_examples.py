"""The official 2026-07-28 example messages in ../shared, wrapped as responses, labelled by hand."""

from __future__ import annotations

import json

import pytest

from mcp_verdict import Kind, classify

from .conftest import require_shared

# example file (relative to examples/) → expected kind. Result bodies are wrapped in
# {"jsonrpc": "2.0", "id": 1, "result": ...}; error objects in {"jsonrpc": "2.0", "id": 1, "error": ...}.
RESULTS = {
    "CallToolResult/invalid-tool-input-error.json": Kind.TOOL_ERROR,
    "CallToolResult/result-with-array-structured-content.json": Kind.NORMAL_COMPLETE,
    "CallToolResult/result-with-structured-content.json": Kind.NORMAL_COMPLETE,
    "CallToolResult/result-with-unstructured-text.json": Kind.NORMAL_COMPLETE,
    "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json":
        Kind.INPUT_REQUIRED,
    "InputRequiredResult/input-required-result-with-request-state-only.json": Kind.INPUT_REQUIRED,
}
ERRORS = {
    "InvalidParamsError/unknown-tool.json": -32602,
    "InvalidParamsError/invalid-tool-arguments.json": -32602,
}
WHOLE = {  # complete JSON-RPC messages
    "CallToolResultResponse/call-tool-result-response.json": Kind.NORMAL_COMPLETE,
    "MissingRequiredClientCapabilityError/missing-elicitation-capability.json": Kind.PROTOCOL_ERROR,
    "UnsupportedProtocolVersionError/unsupported-version.json": Kind.PROTOCOL_ERROR,
}


def _read(name: str) -> bytes:
    return (require_shared() / "2026-07-28" / "examples" / name).read_bytes()


@pytest.mark.parametrize(("name", "kind"), sorted(RESULTS.items()))
def test_result_examples(name: str, kind: Kind) -> None:
    wire = b'{"jsonrpc":"2.0","id":1,"result":' + _read(name) + b"}"
    verdict = classify(wire)
    assert verdict.kind is kind, verdict.findings


@pytest.mark.parametrize(("name", "code"), sorted(ERRORS.items()))
def test_error_examples(name: str, code: int) -> None:
    verdict = classify(b'{"jsonrpc":"2.0","id":1,"error":' + _read(name) + b"}")
    assert verdict.kind is Kind.PROTOCOL_ERROR
    assert verdict.error_code == code


@pytest.mark.parametrize(("name", "kind"), sorted(WHOLE.items()))
def test_whole_message_examples(name: str, kind: Kind) -> None:
    assert classify(_read(name)).kind is kind


def test_sampling_example_needs_the_sampling_capability() -> None:
    name = "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json"
    wire = b'{"jsonrpc":"2.0","id":1,"result":' + _read(name) + b"}"
    assert classify(wire, client_capabilities={"elicitation": {}, "sampling": {}}).kind is Kind.INPUT_REQUIRED
    verdict = classify(wire, client_capabilities={"elicitation": {}})
    assert verdict.kind is Kind.UNCLASSIFIED
    assert [f.code for f in verdict.findings] == ["input.capability"]
    assert verdict.findings[0].path == "/result/inputRequests/capital_of_france"
    assert json.loads(_read(name))["requestState"] == "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"

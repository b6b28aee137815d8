"""The error data a version types for one code (``error.data``, ``_error``): each row a response,
the version, the kind and the findings expected (written by hand from the spec), and the spec
text; the same answer whether ``classify`` is given the bytes (the fast path's route) or the
parsed value; and what the next action becomes.

2025-11-25, client/elicitation#url-elicitation-required-error: "The error MUST include a list of
elicitations that are required to complete before the original can be retried. Any elicitations
returned in the error MUST be URL mode elicitations and have an elicitationId property."
2026-07-28, basic/index#request-fields: "the server MUST return a MissingRequiredClientCapabilityError
(-32021) whose data.requiredCapabilities lists the missing capabilities"; basic/versioning: "it
MUST respond with an UnsupportedProtocolVersionError listing the versions it does support"
(schema.ts: ``data: {supported: string[]; requested: string}``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_verdict import Action, Kind, classify, decide

URL = {"mode": "url", "elicitationId": "e-1", "url": "https://example.com/connect", "message": "Sign in."}


def error(code: int, data: Any = None, *, absent: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": "m"}
    if not absent:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": 1, "error": body}


CASES: list[tuple[str, str, dict[str, Any], Kind, list[tuple[str, str]]]] = [
    # 2025-11-25, -32042
    ("url: no data", "2025-11-25", error(-32042, absent=True), Kind.UNCLASSIFIED, [("error.data", "/error")]),
    ("url: data null", "2025-11-25", error(-32042, None), Kind.UNCLASSIFIED, [("error.data", "/error/data")]),
    ("url: no elicitations", "2025-11-25", error(-32042, {}), Kind.UNCLASSIFIED, [("error.data", "/error/data")]),
    ("url: elicitations an object", "2025-11-25", error(-32042, {"elicitations": URL}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data/elicitations")]),
    ("url: an element a string", "2025-11-25", error(-32042, {"elicitations": [URL, "https://example.com"]}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/elicitations/1")]),
    ("url: form mode", "2025-11-25", error(-32042, {"elicitations": [{**URL, "mode": "form"}]}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/elicitations/0/mode")]),
    ("url: no mode", "2025-11-25",
     error(-32042, {"elicitations": [{k: v for k, v in URL.items() if k != "mode"}]}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/elicitations/0")]),
    ("url: no elicitationId", "2025-11-25",
     error(-32042, {"elicitations": [{k: v for k, v in URL.items() if k != "elicitationId"}]}),
     Kind.UNCLASSIFIED, [("input.params", "/error/data/elicitations/0")]),
    ("url: not a URL", "2025-11-25", error(-32042, {"elicitations": [{**URL, "url": "not a url"}]}),
     Kind.UNCLASSIFIED, [("elicitation.url", "/error/data/elicitations/0/url")]),
    ("url: task not TaskMetadata", "2025-11-25", error(-32042, {"elicitations": [{**URL, "task": 5}]}),
     Kind.UNCLASSIFIED, [("input.params", "/error/data/elicitations/0/task")]),
    ("url: well formed, an open member", "2025-11-25", error(-32042, {"elicitations": [URL], "note": 1}),
     Kind.PROTOCOL_ERROR, []),
    ("url: an empty list (the schema takes it)", "2025-11-25", error(-32042, {"elicitations": []}),
     Kind.PROTOCOL_ERROR, []),
    ("url: -32042.0 is -32042", "2025-11-25", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32042.0,
                                                                                     "message": "m"}},
     Kind.UNCLASSIFIED, [("error.data", "/error")]),
    ("url: no such code on 2025-06-18", "2025-06-18", error(-32042, "anything"), Kind.PROTOCOL_ERROR, []),
    ("url: retired on 2026-07-28", "2026-07-28", error(-32042, "anything"), Kind.PROTOCOL_ERROR,
     [("error.reserved_code", "/error/code")]),
    # 2026-07-28, -32022
    ("version: no data", "2026-07-28", error(-32022, absent=True), Kind.UNCLASSIFIED, [("error.data", "/error")]),
    ("version: data a list", "2026-07-28", error(-32022, ["2026-07-28"]), Kind.UNCLASSIFIED,
     [("error.data", "/error/data")]),
    ("version: no requested", "2026-07-28", error(-32022, {"supported": ["2026-07-28"]}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data")]),
    ("version: no supported", "2026-07-28", error(-32022, {"requested": "2099-01-01"}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data")]),
    ("version: supported a string, requested a number", "2026-07-28",
     error(-32022, {"supported": "2026-07-28", "requested": 5}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data/supported"), ("error.data", "/error/data/requested")]),
    ("version: a number among the supported", "2026-07-28",
     error(-32022, {"supported": ["2026-07-28", 2025], "requested": "2099-01-01"}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data/supported")]),
    ("version: well formed", "2026-07-28", error(-32022, {"supported": ["2025-11-25", "2026-07-28"],
                                                          "requested": "2099-01-01"}), Kind.PROTOCOL_ERROR, []),
    ("version: an empty list (the schema takes it)", "2026-07-28",
     error(-32022, {"supported": [], "requested": "2099-01-01"}), Kind.PROTOCOL_ERROR, []),
    ("version: any data on 2025-11-25", "2025-11-25", error(-32022, "anything"), Kind.PROTOCOL_ERROR, []),
    # 2026-07-28, -32021
    ("capability: no data", "2026-07-28", error(-32021, absent=True), Kind.UNCLASSIFIED, [("error.data", "/error")]),
    ("capability: no requiredCapabilities", "2026-07-28", error(-32021, {"missing": ["elicitation"]}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data")]),
    ("capability: a name", "2026-07-28", error(-32021, {"requiredCapabilities": "elicitation"}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/requiredCapabilities")]),
    ("capability: elicitation a boolean", "2026-07-28", error(-32021, {"requiredCapabilities": {"elicitation": True}}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/requiredCapabilities/elicitation")]),
    ("capability: elicitation.url a boolean", "2026-07-28",
     error(-32021, {"requiredCapabilities": {"elicitation": {"url": True, "other": 1}}}), Kind.UNCLASSIFIED,
     [("error.data", "/error/data/requiredCapabilities/elicitation/url")]),
    ("capability: an extension's settings a list", "2026-07-28",
     error(-32021, {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": []}}}),
     Kind.UNCLASSIFIED, [("error.data", "/error/data/requiredCapabilities/extensions/io.modelcontextprotocol~1tasks")]),
    ("capability: well formed, open members", "2026-07-28",
     error(-32021, {"requiredCapabilities": {"roots": {}, "sampling": {"tools": {}, "other": 1},
                                             "com.example/beta": True}}), Kind.PROTOCOL_ERROR, []),
    ("capability: any data on 2025-11-25", "2025-11-25", error(-32021, "anything"), Kind.PROTOCOL_ERROR, []),
]


@pytest.mark.parametrize(("name", "version", "message", "kind", "findings"), CASES, ids=[c[0] for c in CASES])
def test_error_data(name: str, version: str, message: dict[str, Any], kind: Kind,
                    findings: list[tuple[str, str]]) -> None:
    for response in (json.dumps(message, separators=(",", ":")).encode(), message):
        verdict = classify(response, version=version)
        assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (kind, findings), name


NEXT: list[tuple[str, str, dict[str, Any], Action]] = [
    ("a url elicitation to complete", "2025-11-25", error(-32042, {"elicitations": [URL]}), Action.FULFIL_INPUT),
    ("a url elicitation error naming none of them", "2025-11-25", error(-32042, {}), Action.INVESTIGATE),
    ("a version both sides speak", "2026-07-28",
     error(-32022, {"supported": ["2025-11-25"], "requested": "2026-07-28"}), Action.RENEGOTIATE),
    ("the versions given as one string", "2026-07-28",
     error(-32022, {"supported": "2025-11-25", "requested": "2026-07-28"}), Action.INVESTIGATE),
]


@pytest.mark.parametrize(("name", "version", "message", "action"), NEXT, ids=[n[0] for n in NEXT])
def test_the_next_action_acts_only_on_data_it_can_act_on(name: str, version: str, message: dict[str, Any],
                                                          action: Action) -> None:
    assert decide(classify(message, version=version)).action is action, name


def test_a_setting_the_peer_named_is_shown_bounded_and_inert() -> None:
    """A finding message names a peer's member by ``shown`` (its head, escaped): never the whole
    name, never its control characters."""
    name = "x" * 10_000 + "\x1b[31m"
    verdict = classify(error(-32021, {"requiredCapabilities": {"experimental": {name: 1}}}), version="2026-07-28")
    (found,) = verdict.findings
    assert found.code == "error.data" and len(found.message) < 200 and "\x1b" not in found.message
    assert found.message.startswith("requiredCapabilities.experimental['xxx")

"""Icons (``_icons``), the reserved result ``_meta`` keys (``_meta``), roots params (``_input``)
and the error response id per version (``_envelope``), as tables of hand-written cases.

Each row names the version, the response, the expected kind, the finding code (``None``: no
finding at all) with its JSON pointer, and the specification text it rests on.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_verdict import Kind, classify

ICONS = "2025-11-25/basic/index#icons"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
RESULT_META = "2026-07-28/schema#resultmetaobject"


def complete(version: str, content: list[Any], **members: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"content": content, **members}
    if version == "2026-07-28":
        result = {"resultType": "complete", **result}
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def link(icons: Any) -> list[Any]:
    return [{"type": "resource_link", "uri": "file:///a", "name": "a", "icons": icons}]


def meta(version: str, value: Any) -> dict[str, Any]:
    return complete(version, [], _meta={SERVER_INFO: value})


NC, UN, PE = Kind.NORMAL_COMPLETE, Kind.UNCLASSIFIED, Kind.PROTOCOL_ERROR
LINK = "/result/content/0/icons"
META = "/result/_meta/io.modelcontextprotocol~1serverInfo"

# (version, response, kind, code or None, pointer, spec)
TABLE: list[tuple[str, Any, Kind, str | None, str, str]] = [
    # --- icons ------------------------------------------------------------------------------
    ("2025-11-25", complete("2025-11-25", link([{"src": "a.png", "theme": "light", "sizes": []}])), NC, None, "",
     ICONS),
    ("2026-07-28", complete("2026-07-28", link([])), NC, None, "", ICONS),
    ("2026-07-28", complete("2026-07-28", link([{"src": "a.png", "x-scale": 2}])), NC, None, "",
     ICONS + " (other members are open)"),
    ("2025-11-25", complete("2025-11-25", link({"src": "a.png"})), UN, "icon.field", LINK, ICONS),
    ("2026-07-28", complete("2026-07-28", link([None])), UN, "icon.field", LINK + "/0", ICONS),
    ("2026-07-28", complete("2026-07-28", link([{"src": ["a.png"]}])), UN, "icon.field", LINK + "/0/src", ICONS),
    ("2026-07-28", complete("2026-07-28", link([{"src": "a.png", "theme": ""}])), UN, "icon.field",
     LINK + "/0/theme", ICONS),
    ("2026-07-28", complete("2026-07-28", link([{"src": "a.png", "sizes": ["48x48", None]}])), UN, "icon.field",
     LINK + "/0/sizes", ICONS),
    # Before 2025-11-25 icons are not defined: an open member, held to the JSON rules only.
    ("2025-06-18", complete("2025-06-18", link("not icons")), NC, None, "", "2025-06-18/schema#resourcelink"),
    # --- the reserved result _meta key serverInfo --------------------------------------------
    ("2026-07-28", meta("2026-07-28", {"name": "s", "version": "1"}), NC, None, "", RESULT_META),
    ("2026-07-28", meta("2026-07-28", {"name": "s", "version": "1", "x": [1]}), NC, None, "",
     RESULT_META + " (Implementation's other members are open)"),
    ("2026-07-28", meta("2026-07-28", None), UN, "meta.reserved", META, RESULT_META),
    ("2026-07-28", meta("2026-07-28", {"version": "1"}), UN, "meta.reserved", META, RESULT_META),
    ("2026-07-28", meta("2026-07-28", {"name": "s", "version": 1}), UN, "meta.reserved", META + "/version",
     RESULT_META),
    ("2026-07-28", meta("2026-07-28", {"name": "s", "version": "1", "websiteUrl": 5}), UN, "meta.reserved",
     META + "/websiteUrl", RESULT_META),
    ("2026-07-28", meta("2026-07-28", {"name": "s", "version": "1", "icons": "i.png"}), UN, "icon.field",
     META + "/icons", RESULT_META),
    ("2026-07-28", complete("2026-07-28", [], _meta={SERVER_INFO: {"name": "s", "version": "1"},
                                                    "k": float("nan")}), UN, "json.number_out_of_range",
     "/result/_meta/k", RESULT_META + " (the other keys stay open JSON)"),
    ("2025-11-25", meta("2025-11-25", 42), NC, None, "", "2025-11-25/schema#calltoolresult (_meta is open)"),
    ("2024-11-05", meta("2024-11-05", []), NC, None, "", "2024-11-05/schema#calltoolresult (_meta is open)"),
    # --- roots params ----------------------------------------------------------------------------
    ("2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
        "r": {"method": "roots/list"}}}}, Kind.INPUT_REQUIRED, None, "", "2026-07-28/schema#listrootsrequest"),
    ("2026-07-28", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
        "r": {"method": "roots/list", "params": {"_meta": []}}}}}, UN, "input.params",
     "/result/inputRequests/r/params/_meta", "2026-07-28/schema#listrootsrequest"),
    # --- the error response id per version ------------------------------------------------------
    ("2024-11-05", {"jsonrpc": "2.0", "error": {"code": -32601, "message": "no"}}, UN, "envelope.error_id_missing",
     "", "2024-11-05/basic/messages#responses"),
    ("2025-03-26", {"jsonrpc": "2.0", "error": {"code": -32601, "message": "no"}}, UN, "envelope.error_id_missing",
     "", "2025-03-26/basic/index#responses"),
    ("2025-06-18", {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse"}}, UN,
     "envelope.error_id_missing", "", "2025-06-18/basic/index#responses"),
    ("2025-11-25", {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse"}}, PE,
     "envelope.id_absent_on_error", "", "2025-11-25/basic/index#error-responses"),
    ("2026-07-28", {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse"}}, PE,
     "envelope.id_absent_on_error", "", "2026-07-28/basic/index#error-responses"),
    ("2025-06-18", {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "no"}}, PE, None, "",
     "2025-06-18/basic/index#responses"),
]


@pytest.mark.parametrize(("version", "message", "kind", "code", "at", "spec"), TABLE)
def test_rule(version: str, message: Any, kind: Kind, code: str | None, at: str, spec: str) -> None:
    verdict = classify(message, version=version)
    assert verdict.kind is kind, (spec, verdict.findings)
    found = [(f.code, f.path) for f in verdict.findings]
    if code is None:
        assert found == [], spec
    else:
        assert found[0] == (code, at), spec

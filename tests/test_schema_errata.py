"""The errata the tests' oracle applies to the official JSON schemas (tests/schema_errata.py):
each still matches the file ../shared ships, and each changes what the schema takes exactly as
its ``schema.ts`` says (2026-07-28 basic/index, Schema: the TypeScript schema is the source of
truth, the JSON schema generated from it)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import validators

from .conftest import official_schema, require_shared
from .schema_errata import ERRATA, StaleErratum, corrected, fragment


def _raw(version: str) -> dict[str, Any]:
    root: dict[str, Any] = json.loads((require_shared() / version / "schema.json").read_text("utf-8"))
    return root


@pytest.mark.parametrize("erratum", ERRATA, ids=[f"{e.version}:{'/'.join(map(str, e.at))}" for e in ERRATA])
def test_each_erratum_still_matches_the_shipped_schema(erratum: Any) -> None:
    assert fragment(_raw(erratum.version), erratum.at) == erratum.shipped  # (else: fixed upstream, or changed)
    assert fragment(official_schema(erratum.version), erratum.at) == erratum.corrected


def _takes(root: dict[str, Any], instance: Any) -> bool:
    schema = {"$schema": root["$schema"], "$ref": "#/$defs/JSONObject", "$defs": root["$defs"]}
    return bool(validators.validator_for(schema)(schema).is_valid(instance))


# (a JSONObject, as a sampling request's metadata holds one; schema.json as shipped takes it; schema.ts
# — and the oracle with its erratum — takes it): JSONValue = string | number | boolean | null | JSONObject
# | JSONArray
ROWS = [
    ({"x": 7}, True, True),
    ({"x": "s", "y": True}, True, True),
    ({"x": 2.5}, False, True),
    ({"x": None}, False, True),
    ({"x": [1, 0.5, None]}, False, True),
    ({"x": {"y": None, "z": -1e-3}}, False, True),
    ({"x": [{"y": 2}]}, True, True),
]


@pytest.mark.parametrize(("instance", "shipped", "ts"), ROWS, ids=[json.dumps(r[0]) for r in ROWS])
def test_json_value_takes_what_schema_ts_says(instance: Any, shipped: bool, ts: bool) -> None:
    assert _takes(_raw("2026-07-28"), instance) is shipped
    assert _takes(official_schema("2026-07-28"), instance) is ts


def test_an_erratum_leaves_the_file_it_corrects_and_refuses_another() -> None:
    raw = _raw("2026-07-28")
    before = json.dumps(raw, sort_keys=True)
    fixed = corrected(raw, "2026-07-28")
    assert json.dumps(raw, sort_keys=True) == before and fixed is not raw
    raw["$defs"]["JSONValue"]["anyOf"][2] = {"type": ["string", "number", "boolean", "null"]}  # (as fixed upstream)
    with pytest.raises(StaleErratum, match="no longer ships"):
        corrected(raw, "2026-07-28")
    assert corrected(_raw("2025-06-18"), "2025-06-18") == _raw("2025-06-18")  # (no erratum: as shipped)

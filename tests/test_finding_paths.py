"""A finding's path is bounded, whatever member names the peer chose (``Finding``'s docstring,
README "The API in five minutes"): a reference token longer than 64 characters keeps its first
32 (escaped as RFC 6901 section 3 escapes them) and ``~…[N characters]``; a path longer than 1,024
characters keeps its leading tokens within 256 characters, one ``~…[K tokens]`` for the K left
out, and as many trailing tokens as fit. ``~`` followed by anything but ``0`` or ``1`` is no
RFC 6901 pointer, so neither mark can be read as a member name.

A 1 MiB member name made a 1 MiB path, held by every consumer (the tap, the audit's rows, the
proxy's error ``data``, the CLI, spans); the walk that names an invalid value built a path per
member it passed, so a 200 kB name over 2,000 members held 400 MB of paths, and the outputSchema
walk one per subschema. The expected paths below are written by hand from the rule.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, check_output, classify
from mcp_verdict.proxy._record import redacted_path
from mcp_verdict.verdict._findings import pointer, pointer_in, pointer_of
from mcp_verdict.verdict._input import ASKED

MIB = 1_048_576
LONG = "k" * MIB
CUT = "k" * 32 + "~…[1048576 characters]"  # a 1 MiB name in a path
ROOT = Path(__file__).resolve().parents[1]


INF = "\ud800INF"
"""Stands for 1e400 in :func:`wire`'s result (a number no double holds: ``json.number_out_of_range``
wherever it sits); a lone surrogate, which no member name drawn below holds."""


def wire(result: dict[str, Any]) -> bytes:
    """A response to request 1 whose result is ``result``, :data:`INF` written as 1e400."""
    return ('{"jsonrpc":"2.0","id":1,"result":' + json.dumps(result).replace('"\\ud800INF"', "1e400") + "}").encode()


def ask(params: dict[str, Any], key: str = "q", method: str = "elicitation/create") -> dict[str, Any]:
    return {"resultType": "input_required", "inputRequests": {key: {"method": method, "params": params}}}


NAMES = [f"n{i:02d}" + "x" * 58 for i in range(20)]  # 20 names of 61 characters: n00xxx..., n19xxx...


def nested(names: list[str], leaf: object) -> object:
    for name in reversed(names):
        leaf = {name: leaf}
    return leaf


# (id, version, wire text, code, path): by hand
CASES = [
    ("structuredContent member", "2025-11-25", wire({"content": [], "structuredContent": {LONG: {"x": INF}}}),
     "json.number_out_of_range", f"/result/structuredContent/{CUT}/x"),
    ("_meta key", "2025-11-25", wire({"content": [], "_meta": {LONG: INF}}),
     "json.number_out_of_range", f"/result/_meta/{CUT}"),
    ("content block member", "2025-11-25", wire({"content": [{"type": "text", "text": "a", LONG: INF}]}),
     "json.number_out_of_range", f"/result/content/0/{CUT}"),
    ("requestedSchema property", "2026-07-28",
     wire(ask({"message": "m", "requestedSchema": {"type": "object", "properties": {LONG: {"type": 7}}}})),
     "elicitation.property", f"/result/inputRequests/q/params/requestedSchema/properties/{CUT}/type"),
    ("inputRequests key", "2026-07-28", wire(ask({}, key=LONG, method="nope")),
     "input.request", f"/result/inputRequests/{CUT}/method"),
    ("duplicate key (the wire reader's path)", "2025-11-25",
     wire({"content": [], "structuredContent": {"a": 1}}).replace(b'"a": 1', f'"{LONG}": 1, "{LONG}": 2'.encode()),
     "json.duplicate_key", f"/result/structuredContent/{CUT}"),
    # 80 characters with / and ~: the first 32 escaped (~1, ~0), the count of the name itself
    ("a long name holding / and ~", "2025-11-25", wire({"content": [], "_meta": {"a/b~" * 20: INF}}),
     "json.number_out_of_range", "/result/_meta/" + "a~1b~0" * 8 + "~…[80 characters]"),
    ("64 characters: whole", "2025-11-25", wire({"content": [], "_meta": {"m" * 64: INF}}),
     "json.number_out_of_range", "/result/_meta/" + "m" * 64),
    ("65 characters: cut", "2025-11-25", wire({"content": [], "_meta": {"m" * 65: INF}}),
     "json.number_out_of_range", "/result/_meta/" + "m" * 32 + "~…[65 characters]"),
    ("a name that reads as the mark", "2025-11-25", wire({"content": [], "_meta": {"~…[3 tokens]": INF}}),
     "json.number_out_of_range", "/result/_meta/~0…[3 tokens]"),
    # /result/structuredContent (25) and n00..n02 (62 each: 211) are the leading tokens within 256
    # (n03 would make 273); "/~…[K tokens]" is 13 characters for K < 10; 211 + 13 + 62 * 12 = 968
    # and a 13th trailing token would make 1,030: n08..n19 stay, n03..n07 are the 5 left out
    ("a path past 1,024 characters", "2025-11-25", wire({"content": [], "structuredContent": nested(NAMES, INF)}),
     "json.number_out_of_range",
     "/result/structuredContent/" + "/".join(NAMES[:3]) + "/~…[5 tokens]/" + "/".join(NAMES[8:])),
]


@pytest.mark.parametrize(("version", "text", "code", "path"), [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_a_findings_path_holds_a_long_name_cut(version: str, text: bytes, code: str, path: str) -> None:
    verdict = classify(text, version=version)
    assert verdict.kind is Kind.UNCLASSIFIED
    errors = [f for f in verdict.findings if f.severity == "error"]  # (a key out of format: a warning too)
    assert (errors[0].code, errors[0].path) == (code, path)
    assert all(len(f.path) <= 1024 for f in verdict.findings)


TOOL = {"name": "t", "inputSchema": {"type": "object"}}
REF = {"$defs": {"s": {"type": "string"}}}  # a $ref takes a schema to the jsonschema engine

# (id, outputSchema, structuredContent, code, path): the content check's paths, by hand
OUTPUT_CASES = [
    ("a structuredContent member against the schema", {"type": "object", "additionalProperties": {"type": "string"}},
     {LONG: 5}, "output.schema", f"/result/structuredContent/{CUT}"),
    ("an invalid schema under a long property name", {"type": "object", "properties": {LONG: {"type": 7}}},
     {"a": 5}, "output.schema_invalid", f"/outputSchema/properties/{CUT}/type"),
    ("the same, read by the jsonschema engine",
     {"type": "object", **REF, "properties": {LONG: {"type": 7}, "c": {"$ref": "#/$defs/s"}}},
     {"a": 5}, "output.schema_invalid", f"/outputSchema/properties/{CUT}/type"),
    # the jsonschema engine's meta check wrote its path's names unescaped: /outputSchema/properties/a/b/type
    ("a property name holding / (jsonschema engine)",
     {"type": "object", **REF, "properties": {"a/b": {"type": 7}, "c": {"$ref": "#/$defs/s"}}},
     {"a": 5}, "output.schema_invalid", "/outputSchema/properties/a~1b/type"),
]


@pytest.mark.parametrize(("schema", "structured", "code", "path"), [case[1:] for case in OUTPUT_CASES],
                         ids=[case[0] for case in OUTPUT_CASES])
def test_a_content_checks_path_holds_a_long_name_cut(schema: dict[str, Any], structured: dict[str, Any], code: str,
                                                    path: str) -> None:
    verdict = classify(wire({"content": [], "structuredContent": structured}), version="2025-11-25")
    assert verdict.kind is Kind.NORMAL_COMPLETE
    check = check_output(verdict, {**TOOL, "outputSchema": schema})
    assert [(f.code, f.path) for f in check.findings] == [(code, path)]


# (parent, token, path): pointer, the one builder of every path, by hand
POINTER_CASES = [
    ("", "a", "/a"),
    ("/x", 7, "/x/7"),
    ("/x", "a/b~c", "/x/a~1b~0c"),
    ("/x", "", "/x/"),
    ("/x", "é" * 64, "/x/" + "é" * 64),
    ("/x", "é" * 65, "/x/" + "é" * 32 + "~…[65 characters]"),
    ("/x", "/" * 70, "/x/" + "~1" * 32 + "~…[70 characters]"),  # the 32 kept escaped: 64 characters
    ("/x", "a\nb\x1b" * 20, "/x/" + "a\nb\x1b" * 8 + "~…[80 characters]"),  # the path keeps the name's own characters
]


@pytest.mark.parametrize(("parent", "token", "path"), POINTER_CASES)
def test_pointer(parent: str, token: str | int, path: str) -> None:
    assert pointer(parent, token) == path


def test_a_path_built_one_token_at_a_time_is_the_whole_path_elided_once() -> None:
    # 200 names of 64 characters: /result/structuredContent (25) and three names (65 each: 220)
    # lead; "/~…[K tokens]" is 15 characters for K of 3 digits; 220 + 15 + 65 * 12 = 1,015: twelve
    # trail, and 200 - 3 - 12 = 185 are left out
    names = [f"z{i:03d}" + "z" * 60 for i in range(200)]
    path = pointer_of("/result/structuredContent", names)
    assert path == ("/result/structuredContent/" + "/".join(names[:3]) + "/~…[185 tokens]/"
                    + "/".join(names[-12:]))
    assert len(path) == 1015
    assert pointer(path, 0) == path + "/0"  # 1,017 characters: within the bound, nothing more left out
    # a 64-character token past the bound: the leading ones stay, the first trailing one is left out too
    assert pointer(path, "y" * 64) == ("/result/structuredContent/" + "/".join(names[:3]) + "/~…[186 tokens]/"
                                       + "/".join([*names[-11:], "y" * 64]))


def test_a_server_requests_path_keeps_the_requests_place() -> None:
    # the proxy reads a server request's findings by their place /result/inputRequests/ (key "")
    inner = pointer_of("", ["params", "requestedSchema", "properties", *NAMES])
    path = pointer_in(ASKED, inner)
    assert path.startswith(ASKED + "/params/requestedSchema/properties/") and len(path) <= 1024
    assert path.endswith("/" + NAMES[-1]) and "/~…[" in path
    assert pointer_in(ASKED, "") == ASKED


# a member name of any text and any length, and the places a verdict names one
NAME = st.one_of(st.text(max_size=200), st.builds(lambda text, times: text * times,
                                                   st.text(min_size=1, max_size=8), st.integers(1, 50_000)))


def _places(name: str) -> list[tuple[str, bytes, str]]:
    """(version, a response naming ``name`` where a finding sits, the path's fixed start)."""
    return [
        ("2025-11-25", wire({"content": [], "structuredContent": {name: {"x": INF}}}), "/result/structuredContent/"),
        ("2025-11-25", wire({"content": [], "_meta": {name: INF}}), "/result/_meta/"),
        ("2025-11-25", wire({"content": [{"type": "text", "text": "a", name: INF}]}), "/result/content/0/"),
        ("2026-07-28",
         wire(ask({"message": "m", "requestedSchema": {"type": "object", "properties": {name: {"type": 7}}}})),
         "/result/inputRequests/q/params/requestedSchema/properties/"),
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NAME)
def test_a_findings_path_is_bounded_for_any_member_name(name: str) -> None:
    shown = name.replace("~", "~0").replace("/", "~1")
    head = name[:32].replace("~", "~0").replace("/", "~1")
    token = shown if len(name) <= 64 else f"{head}~…[{len(name)} characters]"
    for version, text, start in _places(name):
        verdict = classify(text, version=version)
        assert verdict.kind is Kind.UNCLASSIFIED
        first = verdict.findings[0]
        assert first.path.startswith(start + token)  # then /x, /type or nothing
        assert len(first.path) <= len(start) + len(token) + len("/type")
        assert all(len(f.path) <= 1024 for f in verdict.findings)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 10**7), NAME), max_size=250))
def test_a_path_of_any_tokens_is_bounded(tokens: list[str | int]) -> None:
    path = pointer_of("/result/structuredContent", tokens)
    assert len(path) <= 1024
    assert path.startswith("/result/structuredContent")
    if tokens:  # the offending member, the last token, is always shown
        last = tokens[-1]
        assert path.endswith("/" + (str(last) if isinstance(last, int) else pointer("", last)[1:]))


def test_the_walk_naming_an_invalid_value_holds_no_path_per_member() -> None:
    # a 200,000-character name over 2,000 members and 1e400: the walk that names it built a path
    # for each member it passed (2,000 x 200 kB = 400 MB); it keeps their places
    inner = ",".join(f'"a{i}":0' for i in range(2000))
    text = ('{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"' + "k" * 200_000 + '":{'
            + inner + ',"z":1e400}}}}').encode()
    tracemalloc.start()
    try:
        verdict = classify(text, version="2025-11-25")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(f.code, f.path) for f in verdict.findings] == [
        ("json.number_out_of_range", "/result/structuredContent/" + "k" * 32 + "~…[200000 characters]/z")]
    assert peak < 20_000_000, peak  # (it held 400 MB)


def test_the_output_schemas_walk_holds_no_long_path_per_subschema() -> None:
    from mcp_verdict.judgement._schema import SchemaLimits
    from mcp_verdict.judgement._schema_bounds import _check_bounds_and_refs

    # a 200,000-character property name over 1,000 subschemas: a path each (200 MB). The default
    # max_location_chars refuses it at once (test_check_schema_locations); past that bound, the
    # walk over it still holds no long path per subschema
    schema = {"type": "object", "properties": {"k" * 200_000: {"anyOf": [{"type": "string"}] * 1000}}}
    tracemalloc.start()
    try:
        problem, _, _ = _check_bounds_and_refs(schema, "/outputSchema", SchemaLimits(max_location_chars=10**12))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert problem is None
    assert peak < 10_000_000, peak  # (it held 200 MB)


# (a path, redacted as the proxy's verdict lines write it with payloads redacted), by hand
REDACTED = [
    (f"/result/structuredContent/{CUT}", "/result/structuredContent/*"),
    (f"/result/inputRequests/{CUT}/method", "/result/inputRequests/*/method"),
    # past the tokens a long path left out, nothing says whose a name is: MCP's own too is *
    ("/result/content/0/~…[5 tokens]/text/3", "/result/content/0/~…[5 tokens]/*/3"),
]


@pytest.mark.parametrize(("path", "redacted"), REDACTED)
def test_a_bounded_path_redacted(path: str, redacted: str) -> None:
    assert redacted_path(path) == redacted


def test_the_cli_prints_a_path_on_one_line_with_its_controls_escaped(tmp_path: Path) -> None:
    name = "a\x1b[31mRED\n  error fake.code at /x: forged\u202eevil\ttab"
    response = tmp_path / "r.json"
    response.write_bytes(wire({"content": [], "structuredContent": {name: {"x": INF}}, "_meta": {LONG: INF}}))
    done = subprocess.run([sys.executable, "-m", "mcp_verdict", "classify", "--version", "2025-11-25", str(response)],
                          capture_output=True, cwd=ROOT, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "1000"})
    assert done.returncode == 20, done.stderr
    lines = done.stdout.decode().splitlines()
    assert lines == [  # (the result's _meta is checked before its structuredContent)
        "unclassified",
        "  error json.number_out_of_range at /result/_meta/kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk~…[1048576 characters]: "
        "inf is not a finite JSON number",
        "  error json.number_out_of_range at /result/structuredContent/a\\x1b[31mRED\\n  error fake.code at "
        "~1x: forged\\u202eevil\\ttab/x: inf is not a finite JSON number",
    ]

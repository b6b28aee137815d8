"""Malformed corpus data lines and malformed cases built in Python: every bad member named with its
place, all of them at once, never a traceback out of the loader or out of ``kit.run`` later.

The corpus's lines (``data/*.jsonl``, see :mod:`mcp_verdict.corpus`) are read by
``corpus._load_files``, the loader of the packaged data; each table holds the exact message,
written by hand.
"""

from __future__ import annotations

import json

import pytest

from mcp_verdict import Kind, corpus, kit
from mcp_verdict.corpus import Case, CorpusError

KINDS = "protocol_error, tool_error, input_required, normal_complete, task, unclassified"
VERSIONS = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"


# --- corpus data lines --------------------------------------------------------------------------

GOOD = {"id": "mine/ok", "version": "2026-07-28",
        "input": {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}},
        "expect": "normal_complete", "spec": "2026-07-28/schema#calltoolresult", "description": "a plain success"}
MEMBERS = "id, version, versions, input, raw, raw_base64, options, expect, finding, schema, spec, description, recorded"
OPTIONS = "request_id, client_capabilities, extensions, absent_result_type, limits"
RECORDED = ("arguments, client_capabilities, extensions, method, package, package_version, request_id, round, server, "
            "server_info, tool, transport")


def _case(*drop: str, **members: object) -> bytes:
    line = {key: value for key, value in {**GOOD, **members}.items() if key not in drop}
    return json.dumps(line).encode()


def _with_options(**options: object) -> bytes:
    return _case(options=options)


def _limits(**limits: object) -> bytes:
    return _case(options={"limits": limits})


# (id, the line's bytes, the problems, each after "mine.jsonl:1: ")
CORPUS_LINES: list[tuple[str, bytes, list[str]]] = [
    ("raw a number", _case("input", raw=5), ["raw: expected the wire text, a string, got 5"]),
    ("raw a list", _case("input", raw=[]), ["raw: expected the wire text, a string, got []"]),
    ("raw an object", _case("input", raw={"a": 1}), ['raw: expected the wire text, a string, got {"a": 1}']),
    ("raw null", _case("input", raw=None), ["raw: expected the wire text, a string, got null"]),
    ("raw_base64 not base64", _case("input", raw_base64="!!!"),
     ['raw_base64: expected wire bytes in base64, got "!!!", which is not base64']),
    ("raw_base64 bad padding", _case("input", raw_base64="QQ"),
     ['raw_base64: expected wire bytes in base64, got "QQ", which is not base64']),
    ("raw_base64 not ASCII", _case("input", raw_base64="é"),
     ['raw_base64: expected wire bytes in base64, got "é", which is not base64']),
    ("raw_base64 a number", _case("input", raw_base64=3),
     ["raw_base64: expected wire bytes in base64, a string, got 3"]),
    ("input and raw", _case(raw="{}"), ["input, raw: give one of input, raw and raw_base64, not several"]),
    ("no input", _case("input"), ["input: missing (give one of input, raw and raw_base64)"]),
    ("limit 0", _limits(max_bytes=0), ["options.limits.max_bytes: expected a positive integer, got 0"]),
    ("limit -1", _limits(max_nodes=-1), ["options.limits.max_nodes: expected a positive integer, got -1"]),
    ("limit a string", _limits(max_bytes="10"), ['options.limits.max_bytes: expected a positive integer, got "10"']),
    ("limit a float", _limits(max_bytes=1.5), ["options.limits.max_bytes: expected a positive integer, got 1.5"]),
    ("limit 10.0", _limits(max_bytes=10.0), ["options.limits.max_bytes: expected a positive integer, got 10.0"]),
    ("limit true", _limits(max_depth=True), ["options.limits.max_depth: expected a positive integer of at most 200, "
                                             "got true"]),
    ("depth 201", _limits(max_depth=201), ["options.limits.max_depth: expected a positive integer of at most 200, "
                                           "got 201"]),
    ("limit null", _limits(max_bytes=None), ["options.limits.max_bytes: expected a positive integer, got null"]),
    ("limit typo", _limits(max_byte=1), ['options.limits."max_byte": unknown limit (did you mean max_bytes?); the '
                                         "limits are max_bytes, max_depth, max_nodes"]),
    ("a typo and two bad limits", _limits(max_byte=1, max_nodes=0, max_depth=201),
     ['options.limits."max_byte": unknown limit (did you mean max_bytes?); the limits are max_bytes, max_depth, '
      "max_nodes",
      "options.limits.max_nodes: expected a positive integer, got 0",
      "options.limits.max_depth: expected a positive integer of at most 200, got 201"]),
    ("limits a number", _with_options(limits=5),
     ["options.limits: expected an object of any of max_bytes, max_depth, max_nodes, got 5"]),
    ("options a list", _case(options=[]), [f"options: expected an object of any of {OPTIONS}, got []"]),
    ("option typo", _with_options(**{"request-id": 1}),
     [f'options."request-id": unknown option (did you mean request_id?); the options are {OPTIONS}']),
    ("request_id a float", _with_options(request_id=1.5),
     ["options.request_id: expected a string or an integer, got 1.5"]),
    ("request_id true", _with_options(request_id=True),
     ["options.request_id: expected a string or an integer, got true"]),
    ("request_id null", _with_options(request_id=None),
     ["options.request_id: null is classify's default; leave the option out instead"]),
    ("extensions null", _with_options(extensions=None),
     ["options.extensions: null is classify's default; leave the option out instead"]),
    ("capabilities a list", _with_options(client_capabilities=[]),
     ["options.client_capabilities: expected the capabilities object, got []"]),
    ("sampling true", _with_options(client_capabilities={"sampling": True}),
     ["options.client_capabilities.sampling: expected an object, got true"]),
    ("sampling and roots wrong", _with_options(client_capabilities={"sampling": True, "tasks": 1, "roots": []}),
     ["options.client_capabilities.sampling: expected an object, got true",
      "options.client_capabilities.roots: expected an object, got []"]),
    ("extensions a string", _with_options(extensions="abc"),
     ['options.extensions: expected an iterable of extension id strings, got "abc"']),
    ("extensions a number", _with_options(extensions=5),
     ["options.extensions: expected an iterable of extension id strings, got 5"]),
    ("extension a number", _with_options(extensions=["a", 1]),
     ["options.extensions[1]: expected an extension id string, got 1"]),
    ("extensions an object and a number", _with_options(extensions=[{}, "a", 2]),
     ["options.extensions[0]: expected an extension id string, got {}",
      "options.extensions[2]: expected an extension id string, got 2"]),
    ("absent_result_type", _with_options(absent_result_type="maybe"),
     ['options.absent_result_type: expected "invalid" or "complete", got "maybe"']),
    ("no id", _case("id"), ["id: missing (a non-empty string)"]),
    ("id a number", _case(id=5), ["id: expected a non-empty string, got 5"]),
    ("id empty", _case(id=""), ['id: expected a non-empty string, got ""']),
    ("unknown version", _case(version="1999"), [f'version: expected one of {VERSIONS}, got "1999"']),
    ("version a list", _case(version=["2026-07-28"]), [f'version: expected one of {VERSIONS}, got ["2026-07-28"]']),
    ("version and versions", _case(versions=["2026-07-28"]), ["version, versions: give one of them, not both"]),
    ("no version", _case("version"),
     ["version: missing (give version, a protocol version, or versions, an array of them)"]),
    ("versions a string", _case("version", versions="2026-07-28"),
     ['versions: expected a non-empty array of protocol versions, got "2026-07-28"']),
    ("versions empty", _case("version", versions=[]),
     ["versions: expected a non-empty array of protocol versions, got []"]),
    ("versions with a number", _case("version", versions=["2026-07-28", 5]),
     [f"versions[1]: expected one of {VERSIONS}, got 5"]),
    ("versions twice", _case("version", versions=["2026-07-28", "2026-07-28"]),
     ['versions[1]: "2026-07-28" listed twice']),
    ("no expect", _case("expect"), [f"expect: missing (one of {KINDS})"]),
    ("expect unknown", _case(expect="ok"), [f'expect: expected one of {KINDS}, got "ok"']),
    ("expect a list", _case(expect=["task"]), [f'expect: expected one of {KINDS}, got ["task"]']),
    ("finding a number", _case(finding=5), ["finding: expected a finding code, a non-empty string, got 5"]),
    ("unclassified without finding or schema", _case(expect="unclassified"),
     ["finding: missing; an unclassified case names the finding that explains it",
      'schema: missing; an unclassified case states it ("valid", "invalid" or "n/a")']),
    ("schema unknown", _case(schema="x"), ['schema: expected "valid", "invalid" or "n/a", got "x"']),
    ("no spec", _case("spec"), ["spec: missing (a non-empty string)"]),
    ("description a number", _case(description=5), ["description: expected a non-empty string, got 5"]),
    ("recorded a number", _case(recorded=5), [f"recorded: expected an object with {RECORDED}, got 5"]),
    ("recorded without its members", _case(recorded={"server": "s", "tool": "t"}),
     ["recorded: missing arguments, client_capabilities, extensions, method, package, package_version, request_id, "
      "round, server_info, transport"]),
    ("a typo of a member", _case("input", inptu=GOOD["input"]),
     [f'"inptu": unknown member (did you mean input?); the members are {MEMBERS}',
      "input: missing (give one of input, raw and raw_base64)"]),
    ("a member twice", _case()[:-1] + b', "expect": "task"}',
     ['"expect": a member name given twice in one object (write wire text with duplicates as raw)']),
    ("a name twice in the input", _case(input={"a": 1}).replace(b'{"a": 1}', b'{"a": 1, "a": 2}'),
     ['"a": a member name given twice in one object (write wire text with duplicates as raw)']),
    ("NaN in the input", _case(input=[1]).replace(b"[1]", b"[NaN]"),
     ["NaN is not JSON (write wire text that holds it as raw)"]),
    ("a lone surrogate in the input", _case(input="\ud800"),
     ['input: expected a JSON value writable as UTF-8, got "\\ud800"']),
    ("not JSON", b'{"id": ', [":8: not JSON: Expecting value"]),
    ("not an object", b"[1]", ["expected a case, a JSON object, got [1]"]),
    ("a string", b'"case"', ['expected a case, a JSON object, got "case"']),
    ("nested too deep", b"[" * 100_000 + b"]" * 100_000, ["not JSON: nested too deep to read"]),
    ("not UTF-8", b'{"id": "\xe9"}', [":9: not UTF-8 (invalid continuation byte)"]),
    ("a control character shown escaped", _case(id=5, **{"\u202eevil": 1}),
     [f'"\\u202eevil": unknown member; the members are {MEMBERS}', "id: expected a non-empty string, got 5"]),
]


@pytest.mark.parametrize(("data", "problems"), [row[1:] for row in CORPUS_LINES], ids=[row[0] for row in CORPUS_LINES])
def test_a_bad_corpus_line_names_its_line_and_member(data: bytes, problems: list[str]) -> None:
    with pytest.raises(CorpusError) as caught:
        corpus._load_files([("mine.jsonl", data)])
    shown = [f"mine.jsonl:1{'' if problem.startswith(':') else ': '}{problem}" for problem in problems]
    assert str(caught.value) == (shown[0] if len(shown) == 1 else
                                 f"{len(shown)} problems in the corpus data:\n  " + "\n  ".join(shown))


GOOD_LINES: list[tuple[str, bytes, dict[str, object]]] = [
    ("plain", _case(), {}),
    ("a limit of 10**30 is a positive integer", _limits(max_bytes=10**30, max_nodes=10**30),
     {"limits": {"max_bytes": 10**30, "max_nodes": 10**30}}),
    ("depth 200", _limits(max_depth=200), {"limits": {"max_depth": 200}}),
    ("every option", _with_options(request_id=1, client_capabilities={"sampling": {}}, extensions=["x"],
                                   absent_result_type="complete"),
     {"request_id": 1, "client_capabilities": {"sampling": {}}, "extensions": ["x"], "absent_result_type": "complete"}),
]


@pytest.mark.parametrize(("data", "options"), [row[1:] for row in GOOD_LINES], ids=[row[0] for row in GOOD_LINES])
def test_a_good_corpus_line_loads_and_runs(data: bytes, options: dict[str, object]) -> None:
    (case,) = corpus._load_files([("mine.jsonl", data)])
    assert (case.id, case.source, dict(case.options)) == ("mine/ok", "mine.jsonl:1", options)
    report = kit.run(kit.load_receiver("mcp_verdict:classify"), [case])
    assert report.counts() == {"pass": 1, "fail": 0, "error": 0, "skip": 0}


def test_comments_and_blank_lines_are_not_cases() -> None:
    data = b"// a comment\n\n   \n" + _case() + b"\n"
    (case,) = corpus._load_files([("mine.jsonl", data)])
    assert case.source == "mine.jsonl:4"


def test_every_bad_line_of_every_file_is_reported_at_once() -> None:
    first = b"\n".join([_case(), _case(id="mine/2", expect="ok"), b"// fine", _case(id="mine/ok"),
                        _case("input", id="mine/5", raw=5)])
    second = b"\n".join([b"[1]", b'{"id": "\xff"}', _case(id="mine/8")])
    with pytest.raises(CorpusError) as caught:
        corpus._load_files([("a.jsonl", first), ("b.jsonl", second)])
    assert str(caught.value) == "\n  ".join([
        "5 problems in the corpus data:",
        f'a.jsonl:2: expect: expected one of {KINDS}, got "ok"',
        'a.jsonl:4: id: "mine/ok" given twice (first at a.jsonl:1)',
        "a.jsonl:5: raw: expected the wire text, a string, got 5",
        "b.jsonl:1: expected a case, a JSON object, got [1]",
        "b.jsonl:2:9: not UTF-8 (invalid start byte)",
    ])


def test_the_problems_shown_are_bounded() -> None:
    data = b"\n".join(_case(id=f"mine/{n}", expect="ok") for n in range(1000))
    with pytest.raises(CorpusError) as caught:
        corpus._load_files([("a.jsonl", data)])
    lines = str(caught.value).split("\n")
    assert lines[0] == "1000 problems in the corpus data:"
    assert lines[1:] == [f'  a.jsonl:{n}: expect: expected one of {KINDS}, got "ok"' for n in range(1, 21)] + \
        ["  … and 980 more"]


def test_the_packaged_corpus_still_loads() -> None:
    assert len(corpus.load()) == 1757


# --- cases built in Python ----------------------------------------------------------------------

def _built(**fields: object) -> Case:
    values: dict[str, object] = {"id": "x", "version": "2026-07-28", "input": GOOD["input"], "raw": False,
                                 "expect": Kind.NORMAL_COMPLETE, "finding": None, "schema": "valid", "spec": "s",
                                 "description": "d"}
    return Case(**{**values, **fields})  # type: ignore[arg-type]


BUILT: list[tuple[str, dict[str, object], str]] = [
    ("raw text as a str", {"raw": True, "input": "{}"}, "input: expected the wire bytes of a raw case, got a str"),
    ("raw a number", {"raw": True, "input": 5}, "input: expected the wire bytes of a raw case, got an int"),
    ("raw not a bool", {"raw": 1}, "raw: expected True or False, got 1"),
    ("a NaN input", {"input": float("nan")}, "input: expected a JSON value writable as UTF-8, got NaN"),
    ("a set input", {"input": {1}}, "input: expected a JSON value writable as UTF-8, got a set"),
    ("a bad limit", {"options": {"limits": {"max_bytes": 0}}},
     "options.limits.max_bytes: expected a positive integer, got 0"),
    ("limits a number", {"options": {"limits": 5}},
     "options.limits: expected an object of any of max_bytes, max_depth, max_nodes, got 5"),
    ("unknown version", {"version": "1999"}, f'version: expected one of {VERSIONS}, got "1999"'),
    ("expect a string", {"expect": "task"}, 'expect: expected a Kind, got "task"'),
    ("unclassified without finding", {"expect": Kind.UNCLASSIFIED},
     "finding: missing; an unclassified case names the finding that explains it"),
    ("schema unknown", {"schema": "yes"}, 'schema: expected "valid", "invalid" or "n/a", got "yes"'),
    ("id empty", {"id": ""}, 'id: expected a non-empty string, got ""'),
]


@pytest.mark.parametrize(("fields", "message"), [row[1:] for row in BUILT], ids=[row[0] for row in BUILT])
def test_a_case_built_in_python_is_checked(fields: dict[str, object], message: str) -> None:
    """Before, each was accepted and crashed kit.run (TypeError from case.wire(), ValueError from Limits)."""
    with pytest.raises(CorpusError) as caught:
        _built(**fields)
    assert str(caught.value) == f"case {fields.get('id', 'x')!r}: {message}"


def test_a_case_built_in_python_with_two_problems() -> None:
    with pytest.raises(CorpusError) as caught:
        _built(raw=True, input="{}", options={"limits": {"max_depth": 0}})
    assert str(caught.value) == ("case 'x': 2 problems:\n  input: expected the wire bytes of a raw case, got a str\n"
                                 "  options.limits.max_depth: expected a positive integer of at most 200, got 0")

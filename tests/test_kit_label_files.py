"""Malformed labels given to the conformance kit: every bad member named with its line, all of them
at once, in bounded time and memory, never a traceback.

What a user gives the kit is a label file (``--labels``, ``--mcp-receiver-labels``,
``kit.load_labels``), a mapping or ``Labels`` built in Python, and, from Python, the cases it
runs (the corpus's own rules for those: tests/test_kit_corpus_lines.py). Each table holds the
exact message, written by hand; the CLI runs as a subprocess, the plugin through pytester.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcp_verdict import Kind, corpus, kit

pytest_plugins = ["pytester"]

KINDS = "protocol_error, tool_error, input_required, normal_complete, task, unclassified"
LABEL = "expected a label, a non-empty string (at most 200 characters)"
OBJECT = ('expected a JSON object mapping each kind to your label, e.g. {"normal_complete": "ok", '
          '"tool_error": "not_ok", ...}')
UNMAPPED = "give every kind a label (several kinds may share one)"

OK_LINE = ('{"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok", "task": "not_ok", '
           '"protocol_error": "not_ok", "unclassified": "not_ok"}')
OK_LINES = ['{', '  "normal_complete": "ok",', '  "tool_error": "not_ok",', '  "input_required": "not_ok",',
            '  "task": "not_ok",', '  "protocol_error": "not_ok",', '  "unclassified": "not_ok"', '}']
"""The same labels, a member a line: normal_complete on line 2 ... unclassified on line 7."""


def _lines(**replace: str) -> str:
    """OK_LINES with some members' lines replaced (by kind) and the rest kept."""
    return "\n".join(replace.get(line.split('"')[1], line) if '"' in line else line for line in OK_LINES)


def _one_line(**members: str) -> str:
    """OK_LINE with some members' JSON values replaced (JSON text given)."""
    text = OK_LINE
    for kind, value in members.items():
        for label in ('"not_ok"', '"ok"'):
            text = text.replace(f'"{kind}": {label}', f'"{kind}": {value}')
    return text


# (id, the file's bytes, the KitError's message after "label file 'labels.json': ")
LABEL_FILES: list[tuple[str, bytes, str]] = [
    ("empty", b"", f"line 1: no JSON value; {OBJECT}"),
    ("blank lines", b"\n   \n\t\n", f"line 1: no JSON value; {OBJECT}"),
    ("an array", b"[1]", f"line 1: {OBJECT}, got [1]"),
    ("null", b"null", f"line 1: {OBJECT}, got null"),
    ("a number", b"\n5", f"line 2: {OBJECT}, got 5"),
    ("a string", b'"ok"', f'line 1: {OBJECT}, got "ok"'),
    ("NaN at the top", b"NaN", "line 1: not JSON: NaN"),
    ("a byte order mark", b"\xef\xbb\xbf" + OK_LINE.encode(),
     "line 1, column 1: not JSON: a byte order mark (U+FEFF) begins the file; save it as UTF-8 without one"),
    ("latin-1", '{\n  "normal_complete": "\xe9"}'.encode("latin-1"),
     "line 2, column 23: not UTF-8 (invalid continuation byte)"),
    ("two values", (OK_LINE + "\n{}").encode(), "line 2, column 1: not JSON: Extra data"),
    ("no colon", b'{"normal_complete": "ok",\n "task" "x"}', "line 2, column 9: not JSON: Expecting ':' delimiter"),
    ("unquoted names", b"{normal_complete: ok}",
     "line 1, column 2: not JSON: Expecting property name enclosed in double quotes"),
    ("no comma", b'{"normal_complete": "ok"\n\n "task": "x"}', "line 3, column 2: not JSON: Expecting ',' delimiter"),
    ("unterminated", b'{"normal_complete": "ok",', "line 1, column 26: not JSON: Expecting property name enclosed in "
                                                   "double quotes"),
    ("a bad value", b'{"normal_complete": ok}', "line 1, column 21: not JSON: Expecting value"),
    ("empty object", b"{}", f"unmapped kinds {KINDS}: {UNMAPPED}"),
    ("one kind unmapped", _lines(task="").encode(), f"unmapped kind task: {UNMAPPED}"),
    ("number", _one_line(task="5").encode(), f'line 1, "task": {LABEL}, got 5'),
    ("null label", _lines(task='  "task": null,').encode(), f'line 5, "task": {LABEL}, got null'),
    ("true", _one_line(task="true").encode(), f'line 1, "task": {LABEL}, got true'),
    ("float", _one_line(task="1.5").encode(), f'line 1, "task": {LABEL}, got 1.5'),
    ("array", _one_line(task='["not_ok"]').encode(), f'line 1, "task": {LABEL}, got ["not_ok"]'),
    ("object", _one_line(task='{"a": [1]}').encode(), f'line 1, "task": {LABEL}, got {{"a": [1]}}'),
    ("empty label", _one_line(task='""').encode(), f'line 1, "task": {LABEL}, got ""'),
    ("201 characters", _one_line(task=json.dumps("x" * 201)).encode(),
     f'line 1, "task": {LABEL}, got a string of 201 characters'),
    ("NaN label", _one_line(task="NaN").encode(), 'line 1, "task": not JSON: NaN'),
    ("-Infinity label", _lines(unclassified='  "unclassified": -Infinity').encode(),
     'line 7, "unclassified": not JSON: -Infinity'),
    ("typo", _lines(tool_error='  "tool_eror": "not_ok",').encode(),
     f'2 problems:\n  line 3, "tool_eror": unknown kind (did you mean "tool_error"?); the kinds are {KINDS}\n'
     f"  unmapped kind tool_error: {UNMAPPED}"),
    ("unknown", ('{"success": "ok", ' + OK_LINE[1:]).encode(),
     f'line 1, "success": unknown kind; the kinds are {KINDS}'),
    ("duplicate", _lines(task='  "task": "not_ok", "task": "ok",').encode(),
     'line 5, "task": given twice (first on line 5); a kind has one label'),
    ("success shared", _one_line(task='"ok"').encode(),
     'line 1, "task": mapped to "ok", the success label of normal_complete: a non-success kind must never read '
     "as success"),
    ("a bidi control in a name", ('{"tas\u202ek": "not_ok", ' + OK_LINE[1:]).encode(),
     f'line 1, "tas\\u202ek": unknown kind (did you mean "task"?); the kinds are {KINDS}'),
    ("C1 and DEL in a label", _one_line(task='"no\u009b\u007f"').encode(),
     "", ),  # accepted: a label is the application's own string (shown neutralised when printed)
    ("a huge name", ('{"' + "k" * 100_000 + '": "x", ' + OK_LINE[1:]).encode(),
     'line 1, "' + "k" * 59 + f'…: unknown kind; the kinds are {KINDS}'),
    ("many problems", "\n".join([
        "{",
        '  "normal_complete": "ok",',
        '  "tool_eror": "not_ok",',
        '  "input_required": 5,',
        '  "task": null,',
        '  "protocol_error": ["not_ok"],',
        '  "unclassified": "ok",',
        '  "unclassified": "not_ok"',
        "}"]).encode(),
     "7 problems:\n"
     f'  line 3, "tool_eror": unknown kind (did you mean "tool_error"?); the kinds are {KINDS}\n'
     f'  line 4, "input_required": {LABEL}, got 5\n'
     f'  line 5, "task": {LABEL}, got null\n'
     f'  line 6, "protocol_error": {LABEL}, got ["not_ok"]\n'
     '  line 7, "unclassified": mapped to "ok", the success label of normal_complete: a non-success kind must never '
     "read as success\n"
     '  line 8, "unclassified": given twice (first on line 7); a kind has one label\n'
     f"  unmapped kind tool_error: {UNMAPPED}"),
    ("nested too deep in a member", b'{\n  "normal_complete": "ok",\n  "task": ' + b"[" * 100_000 + b"]" * 100_000
     + b"\n}", 'line 3, "task": not JSON: nested too deep to read'),
    ("nested too deep", b"\n" + b"[" * 100_000 + b"]" * 100_000, "line 2: not JSON: nested too deep to read"),
    ("too many problems", ("{" + ", ".join(f'"x{n}": 1' for n in range(30)) + "}").encode(),
     "31 problems:\n" + "".join(f'  line 1, "x{n}": unknown kind; the kinds are {KINDS}\n' for n in range(20))
     + "  … and 11 more"),
]
ACCEPTED = {"C1 and DEL in a label"}


@pytest.mark.parametrize(("data", "message"), [row[1:] for row in LABEL_FILES], ids=[row[0] for row in LABEL_FILES])
def test_a_bad_label_file_names_its_line_and_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes,
                                                    message: str) -> None:
    (tmp_path / "labels.json").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    if not message:
        assert kit.load_labels("labels.json")[Kind.TASK] == "no\u009b\u007f"
        return
    with pytest.raises(kit.KitError) as caught:
        kit.load_labels("labels.json")
    assert str(caught.value) == f"label file 'labels.json': {message}"


def test_a_label_of_200_characters_is_a_label(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text(_one_line(task=json.dumps("x" * 200)), "utf-8")
    assert kit.load_labels(tmp_path / "labels.json")[Kind.TASK] == "x" * 200


def test_a_label_file_of_several_lines_loads(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text("\n".join(OK_LINES) + "\n", "utf-8")
    assert kit.load_labels(tmp_path / "labels.json").to_dict() == json.loads(OK_LINE)


@pytest.mark.parametrize(("name", "data"), [
    ("over 1 MiB", b" " * (1 << 20) + OK_LINE.encode()),
    ("endless", None),
])
def test_a_huge_or_endless_label_file_is_refused_in_bounded_time(tmp_path: Path, name: str, data: bytes | None) -> None:
    path = Path("/dev/zero") if data is None else tmp_path / "labels.json"
    if data is not None:
        path.write_bytes(data)
    started = time.monotonic()
    with pytest.raises(kit.KitError) as caught:
        kit.load_labels(path)
    assert str(caught.value) == f"label file {str(path)!r}: larger than 1 MiB; a label file is one small JSON object"
    assert time.monotonic() - started < 5


def test_a_file_of_a_million_bytes_of_bad_members_is_read_in_bounded_time(tmp_path: Path) -> None:
    members = [f'"x{n}": 1' for n in range(80_000)]
    (tmp_path / "labels.json").write_text("{\n" + ",\n".join(members) + "\n}", "utf-8")
    assert (tmp_path / "labels.json").stat().st_size < 1 << 20
    started = time.monotonic()
    with pytest.raises(kit.KitError) as caught:
        kit.load_labels(tmp_path / "labels.json")
    assert time.monotonic() - started < 5
    lines = str(caught.value).splitlines()
    assert lines[0].endswith(": 80001 problems:")
    assert lines[1:3] == [f'  line 2, "x0": unknown kind; the kinds are {KINDS}',
                          f'  line 3, "x1": unknown kind; the kinds are {KINDS}']
    assert lines[21:] == ["  … and 79981 more"]


def test_a_success_clash_after_many_problems_is_still_shown_in_its_place(tmp_path: Path) -> None:
    text = '{"task": "ok", ' + ", ".join(f'"x{n}": 1' for n in range(40)) + ', "normal_complete": "ok"}'
    (tmp_path / "labels.json").write_text(text, "utf-8")
    with pytest.raises(kit.KitError) as caught:
        kit.load_labels(tmp_path / "labels.json")
    lines = str(caught.value).splitlines()
    assert lines[1] == ('  line 1, "task": mapped to "ok", the success label of normal_complete: a non-success kind '
                        "must never read as success")
    assert lines[2:21] == [f'  line 1, "x{n}": unknown kind; the kinds are {KINDS}' for n in range(19)]
    assert lines[21:] == ["  … and 22 more"]


# --- labels given from Python: a mapping, or Labels itself -----------------------------------

LABEL_MAPPINGS: list[tuple[str, object, str]] = [
    ("a list", ["ok"], f"labels: {OBJECT}, got [\"ok\"]"),
    ("typo", {**json.loads(OK_LINE), "tool_eror": "x"},
     f'labels: "tool_eror": unknown kind (did you mean "tool_error"?); the kinds are {KINDS}'),
    ("a number label", {**json.loads(OK_LINE), "task": 1}, f'labels: "task": {LABEL}, got 1'),
    ("a key that is no string", {**json.loads(OK_LINE), 1: "x"}, f"labels: 1: unknown kind; the kinds are {KINDS}"),
    ("a set label", {**json.loads(OK_LINE), "task": {"a"}}, f'labels: "task": {LABEL}, got a set'),
]


@pytest.mark.parametrize(("mapping", "message"), [row[1:] for row in LABEL_MAPPINGS],
                         ids=[row[0] for row in LABEL_MAPPINGS])
def test_a_bad_label_mapping_names_its_member(mapping: object, message: str) -> None:
    with pytest.raises(kit.KitError) as caught:
        kit.labels_from(mapping)
    assert str(caught.value) == message


IDENTITY: dict[object, object] = {kind: kind.value for kind in Kind}


@pytest.mark.parametrize(("by_kind", "message"), [
    ({Kind.TASK: "x"}, "labels: unmapped kinds protocol_error, tool_error, input_required, normal_complete, "
                       f"unclassified: {UNMAPPED}"),
    ({**IDENTITY, Kind.TASK: None}, f'labels: "task": {LABEL}, got null'),
    ({**IDENTITY, 5: "x"}, "labels: 5: not a Kind; a Labels maps each Kind to its label"),
    ([], "labels: expected a mapping of each Kind to its label, got []"),
])
def test_labels_built_by_hand_are_checked(by_kind: object, message: str) -> None:
    """A ``Labels`` missing a kind ran until check_case met a case of it (a KeyError from deep in the kit)."""
    with pytest.raises(kit.KitError) as caught:
        kit.Labels(by_kind)  # type: ignore[arg-type]
    assert str(caught.value) == message


# --- the label file through the CLI and the plugin ---------------------------------------------

CLI = Path(sys.executable).with_name("mcp-verdict")
SHOWN = {row[0]: row for row in LABEL_FILES}
THROUGH_PROCESSES = ["many problems", "NaN label", "a bidi control in a name", "latin-1", "an array",
                     "a byte order mark", "201 characters", "too many problems"]


@pytest.mark.parametrize("row", THROUGH_PROCESSES)
def test_conform_reports_a_bad_label_file_as_a_usage_error(tmp_path: Path, row: str) -> None:
    _, data, message = SHOWN[row]
    (tmp_path / "labels.json").write_bytes(data)
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run([str(CLI), "conform", "--builtin", "minimal", "--labels", "labels.json"], cwd=tmp_path,
                          capture_output=True, env=env, timeout=300, check=False)
    stderr = done.stderr.decode("utf-8")
    assert (done.returncode, done.stdout) == (2, b"")
    assert stderr.endswith(f"Error: label file 'labels.json': {message}\n"), stderr
    assert "Traceback" not in stderr and "\u202e" not in stderr


@pytest.mark.parametrize("row", THROUGH_PROCESSES)
def test_the_plugin_reports_a_bad_label_file_as_a_usage_error(pytester: pytest.Pytester, row: str) -> None:
    _, data, message = SHOWN[row]
    (pytester.path / "labels.json").write_bytes(data)
    result = pytester.runpytest("--mcp-receiver=mcp-verdict", "--mcp-receiver-labels=labels.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = f"ERROR: mcp-verdict: label file 'labels.json': {message}".splitlines()
    lines = result.stderr.lines
    assert expected[0] in lines, result.stderr.str()
    start = lines.index(expected[0])
    assert lines[start:start + len(expected)] == expected
    assert "Traceback" not in result.stderr.str() and "\u202e" not in result.stderr.str()


@pytest.mark.parametrize(("cases", "message"), [
    ([{"id": "mine/ok", "version": "2026-07-28", "input": {}}],
     "cases: expected corpus.Case objects (as corpus.load() gives them), got a dict"),
    (["design/string_flag"], "cases: expected corpus.Case objects (as corpus.load() gives them), got a str"),
])
def test_run_takes_cases_only(cases: list[object], message: str) -> None:
    receiver = kit.load_receiver("mcp_verdict:classify")
    with pytest.raises(kit.KitError) as caught:
        kit.run(receiver, cases)  # type: ignore[arg-type]
    assert str(caught.value) == message
    with pytest.raises(kit.KitError) as caught:
        kit.check_case(receiver, cases[0])  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_run_names_a_receiver_or_labels_of_the_wrong_type() -> None:
    receiver = kit.load_receiver("mcp_verdict:classify")
    cases = corpus.load(versions=["2026-07-28"])[:1]
    with pytest.raises(kit.KitError) as caught:
        kit.run(receiver, cases, json.loads(OK_LINE))
    assert str(caught.value) == "labels: expected a Labels (kit.load_labels or kit.labels_from), got a dict"
    with pytest.raises(kit.KitError) as caught:
        kit.check_case(receiver.function, cases[0])  # type: ignore[arg-type]
    assert str(caught.value) == ("receiver: expected a Receiver (kit.load_receiver or kit.receiver_from), got a "
                                 "function")

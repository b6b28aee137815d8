"""The conformance kit's API: receivers, the calling convention, labels, outcomes, the kill table.

Tables of cases with fixed expected values. Full-corpus runs are kept to a few (the corpus
has ~1,500 cases); everything else puts single cases to receivers.
"""

from __future__ import annotations

import gc
import json
import re
import traceback
import weakref
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import Kind, Verdict, classify, corpus, kit
from mcp_verdict.corpus import Case
from mcp_verdict.kit._mutants import MUTANTS

CASES = corpus.load()
OK_LABELS = {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok", "task": "not_ok",
             "protocol_error": "not_ok", "unclassified": "not_ok"}


# --- receivers the tests load by "tests.test_kit:NAME" ----------------------------------------

def ok_or_not(response: object, version: str) -> str:
    """An application that only says ok / not_ok, built on classify."""
    return "ok" if classify(response, version=version).kind is Kind.NORMAL_COMPLETE else "not_ok"


def result_means_ok(response: object) -> str:
    """The bug the project exists for: a result arrives, so the call succeeded."""
    return "ok" if isinstance(response, dict) and "result" in response else "not_ok"


def says_maybe(response: object) -> str:
    return "maybe"


def returns_none(response: object) -> None:
    return None


def raises(response: object) -> Kind:
    raise RuntimeError("kaboom")


def returns_verdict(response: object, **options: Any) -> Verdict:
    return classify(response, **options)


def raw_receiver(response: bytes, version: str) -> Kind:
    assert type(response) is bytes
    return classify(response, version=version).kind


raw_receiver.mcp_receiver_input = "raw"  # type: ignore[attr-defined]


def needs_token(response: object, token: str) -> str:
    return "ok"


def needs_request_id(response: object, request_id: str | int | None) -> str:
    return "ok"


def two_positionals(response: object, other: object, /) -> str:
    return "ok"


def bad_declaration(response: object) -> str:
    return "ok"


bad_declaration.mcp_receiver_input = "json"  # type: ignore[attr-defined]


def mutating(response: object, version: str) -> Kind:
    kind = classify(response, version=version).kind
    if isinstance(response, dict):
        response.clear()
        response["tampered"] = True
    return kind


def _one(case_id: str) -> Case:
    return corpus.get(case_id)


# --- mcp-verdict's own classify passes everything ----------------------------------------------

@pytest.mark.parametrize("spec", ["mcp_verdict:classify", "mcp-verdict"])
def test_own_classify_passes_every_case(spec: str) -> None:
    receiver = kit.load_receiver(spec)
    assert receiver.input == "both"  # it reads wire bytes and parsed values alike
    assert receiver.accepts is not None and set(kit.OPTION_NAMES) <= receiver.accepts
    report = kit.run(receiver, CASES)
    assert report.counts() == {"pass": len(CASES), "fail": 0, "error": 0, "skip": 0}
    assert report.ok


def test_own_classify_as_a_parsed_receiver() -> None:
    """Handed parsed values only, classify skips the wire cases that have no parsed form, and
    fails the one case whose parsed form is a string: classify reads a str as wire text, so the
    JSON text inside the string looks like a response. That is why it declares ``both``."""
    report = kit.run(kit.load_receiver("mcp_verdict:classify", input="parsed"),
                     corpus.load(versions=["2026-07-28"]))
    assert [(o.case.id, o.got) for o in report.with_status("fail", "error")] == [
        ("env/scalar/json_text_in_string", "normal_complete")]
    assert all(o.case.raw and "no parsed form" in o.reason for o in report.with_status("skip"))
    assert "its wire bytes have no parsed form (json.duplicate_key) and the receiver takes parsed responses" \
        in report.skip_reasons()


# --- the built-in comparison receivers ---------------------------------------------------------

MINIMAL = [
    # (case, the minimal classifier's answer, the label)
    ("design/normal_false", "normal_complete", "normal_complete"),
    ("design/string_flag", "unclassified", "unclassified"),
    ("design/old_shape", "unclassified", "unclassified"),
    ("rt/absent/old@2025-06-18", "normal_complete", "normal_complete"),
    ("content/type_missing@2026-07-28", "normal_complete", "unclassified"),  # a broken content block
    ("content/text_missing_text@2026-07-28", "normal_complete", "unclassified"),
    ("content/is_error_true_bad_block", "tool_error", "unclassified"),
    ("env/jsonrpc/missing@2026-07-28", "normal_complete", "unclassified"),
    ("env/id/result_null@2026-07-28", "normal_complete", "unclassified"),
    ("err/code_type/string@2026-07-28", "protocol_error", "unclassified"),
    ("input/neither", "input_required", "unclassified"),
]


@pytest.mark.parametrize(("case_id", "answer", "label"), MINIMAL, ids=[row[0] for row in MINIMAL])
def test_minimal_classifier(case_id: str, answer: str, label: str) -> None:
    case = _one(case_id)
    assert case.expect == label
    outcome = kit.check_case(kit.load_receiver("minimal"), case)
    assert (outcome.got, outcome.status) == (answer, "pass" if answer == label else "fail")


def test_minimal_classifier_passes_the_design_notes_twelve() -> None:
    twelve = [c for c in CASES if c.id.startswith("design/")]
    assert len(twelve) == 12
    assert kit.run(kit.load_receiver("minimal"), twelve).counts()["pass"] == 12


MINIMAL_SKIPS = [
    ("wire/dup/is_error_true_false@2026-07-28", "its wire bytes have no parsed form (json.duplicate_key)"),
    ("wire/syntax/nan", "its wire bytes have no parsed form (json.syntax)"),
    ("env/match/integer@2026-07-28", "the case sets request_id, which the receiver does not accept"),
]


@pytest.mark.parametrize(("case_id", "reason"), MINIMAL_SKIPS, ids=[row[0] for row in MINIMAL_SKIPS])
def test_minimal_classifier_skips(case_id: str, reason: str) -> None:
    outcome = kit.check_case(kit.load_receiver("minimal"), _one(case_id))
    assert outcome.status == "skip"
    assert outcome.reason.startswith(reason)


SDK = [
    # (case, the SDK's typed parse, the label): malformed responses the SDK takes as success
    ("design/string_flag", "normal_complete", "unclassified"),
    ("design/integer_flag", "normal_complete", "unclassified"),
    ("design/old_shape", "normal_complete", "unclassified"),
    ("design/both_fields", "protocol_error", "unclassified"),
    ("rt/unknown/capitalised", "normal_complete", "unclassified"),
    ("rt/unknown/homoglyph", "normal_complete", "unclassified"),
    ("wire/dup/is_error_true_false@2026-07-28", "normal_complete", "unclassified"),
    ("wire/syntax/nan", "normal_complete", "unclassified"),
    ("content/resource_text_and_blob@2026-07-28", "normal_complete", "unclassified"),
    # ... and what it gets right
    ("design/normal_false", "normal_complete", "normal_complete"),
    ("design/tool_error", "tool_error", "tool_error"),
    ("design/protocol_error", "protocol_error", "protocol_error"),
    ("design/additional_input", "input_required", "input_required"),
    ("design/null_flag", "unclassified", "unclassified"),
    ("content/text_missing_text@2026-07-28", "unclassified", "unclassified"),
]


@pytest.mark.parametrize(("case_id", "answer", "label"), SDK, ids=[row[0] for row in SDK])
def test_sdk_typed_parse(case_id: str, answer: str, label: str) -> None:
    pytest.importorskip("mcp_types")
    case = _one(case_id)
    assert case.expect == label
    receiver = kit.load_receiver("sdk")
    assert receiver.input == "raw"
    outcome = kit.check_case(receiver, case)
    assert (outcome.got, outcome.status) == (answer, "pass" if answer == label else "fail")


# --- labels ----------------------------------------------------------------------------------

LABELLED = [
    # (receiver, case, status, expected label, got)
    ("ok_or_not", "design/normal_false", "pass", "ok", "ok"),
    ("ok_or_not", "design/tool_error", "pass", "not_ok", "not_ok"),
    ("ok_or_not", "design/string_flag", "pass", "not_ok", "not_ok"),
    ("result_means_ok", "design/normal_false", "pass", "ok", "ok"),
    ("result_means_ok", "design/tool_error", "fail", "not_ok", "ok"),
    ("result_means_ok", "design/string_flag", "fail", "not_ok", "ok"),
    ("result_means_ok", "design/protocol_error", "pass", "not_ok", "not_ok"),
    ("returns_verdict", "design/string_flag", "pass", "not_ok", "not_ok"),  # a Kind is mapped
    ("returns_verdict", "design/normal_omitted", "pass", "ok", "ok"),
    ("says_maybe", "design/normal_false", "fail", "ok", "maybe"),
]


@pytest.mark.parametrize(("name", "case_id", "status", "expected", "got"), LABELLED,
                         ids=[f"{r[0]}-{r[1]}" for r in LABELLED])
def test_labels_ok_not_ok(name: str, case_id: str, status: str, expected: str, got: str) -> None:
    labels = kit.labels_from(OK_LABELS)
    outcome = kit.check_case(kit.load_receiver(f"tests.test_kit:{name}"), _one(case_id), labels)
    assert (outcome.status, outcome.expected, outcome.got) == (status, expected, got)


def test_a_label_that_is_not_in_the_file_is_named_in_the_failure() -> None:
    outcome = kit.check_case(kit.load_receiver("tests.test_kit:says_maybe"), _one("design/normal_false"),
                             kit.labels_from(OK_LABELS))
    assert outcome.reason == ("expected 'ok', got 'maybe', which is not a label (not_ok, ok) "
                              "(the case is normal_complete; 'maybe' stands for no kind)")


BAD_LABELS = [
    ({**OK_LABELS, "task": "ok"}, 'labels: "task": mapped to "ok", the success label of normal_complete: a non-success '
                                  "kind must never read as success"),
    ({k: v for k, v in OK_LABELS.items() if k != "input_required"},
     "labels: unmapped kind input_required: give every kind a label (several kinds may share one)"),
    ({**OK_LABELS, "success": "ok"}, 'labels: "success": unknown kind; the kinds are protocol_error, tool_error, '
                                     "input_required, normal_complete, task, unclassified"),
    ({**OK_LABELS, "tool_error": ""}, 'labels: "tool_error": expected a label, a non-empty string (at most 200 '
                                      'characters), got ""'),
    ({**OK_LABELS, "tool_error": 1}, 'labels: "tool_error": expected a label, a non-empty string (at most 200 '
                                     "characters), got 1"),
    (["ok", "not_ok"], 'labels: expected a JSON object mapping each kind to your label, e.g. {"normal_complete": '
                       '"ok", "tool_error": "not_ok", ...}, got ["ok", "not_ok"]'),
]


@pytest.mark.parametrize(("mapping", "message"), BAD_LABELS, ids=[row[1][8:38] for row in BAD_LABELS])
def test_bad_label_mappings_are_reported(mapping: object, message: str) -> None:
    with pytest.raises(kit.KitError) as caught:
        kit.labels_from(mapping)
    assert str(caught.value) == message


BAD_LABEL_FILES = [
    ('{"normal_complete": "ok", "tool_error": "not_ok", "tool_error": "ok"}',
     '2 problems:\n  line 1, "tool_error": given twice (first on line 1); a kind has one label\n'
     "  unmapped kinds protocol_error, input_required, task, unclassified: give every kind a label (several kinds "
     "may share one)"),
    ("{normal_complete: ok}", "line 1, column 2: not JSON: Expecting property name enclosed in double quotes"),
    (json.dumps({**OK_LABELS, "unclassified": "ok"}), 'line 1, "unclassified": mapped to "ok", the success label of '
                                                      "normal_complete: a non-success kind must never read as success"),
]


@pytest.mark.parametrize(("text", "message"), BAD_LABEL_FILES, ids=[row[1][:40] for row in BAD_LABEL_FILES])
def test_bad_label_files_are_reported(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "labels.json"
    path.write_text(text, "utf-8")
    with pytest.raises(kit.KitError) as caught:
        kit.load_labels(path)
    assert str(caught.value) == f"label file {str(path)!r}: {message}"


def test_a_missing_label_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(kit.KitError, match="cannot read it"):
        kit.load_labels(tmp_path / "nope.json")


def test_a_good_label_file(tmp_path: Path) -> None:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(OK_LABELS), "utf-8")
    labels = kit.load_labels(path)
    assert labels.success == "ok"
    assert labels[Kind.TASK] == "not_ok"
    assert labels.to_dict() == OK_LABELS


# --- receiver specs and signatures -------------------------------------------------------------

BAD_SPECS = [
    ("nope:nothing", "receiver 'nope:nothing': cannot import module 'nope'"),
    ("os:nothing", "os.nothing does not exist (no attribute 'nothing')"),
    ("os:getcwd", "os:getcwd() cannot be called as receiver(response): it takes no positional argument"),
    ("os.path:sep", "os.path:sep is not callable (it is str)"),
    ("classify", "expected package.module:function, or a built-in receiver (mcp-verdict, minimal, sdk)"),
    (":classify", "expected package.module:function"),
    ("mcp_verdict:", "expected package.module:function"),
    ("tests.test_kit:needs_token", "the kit never passes 'token'"),
    ("tests.test_kit:needs_request_id", "'request_id' needs a default"),
    ("tests.test_kit:two_positionals", "'other' would be missing"),
    ("tests.test_kit:bad_declaration", "input mode must be one of parsed, raw, both, not 'json'"),
]


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS, ids=[row[0] for row in BAD_SPECS])
def test_bad_receiver_specs_are_reported(spec: str, message: str) -> None:
    with pytest.raises(kit.KitError) as excinfo:
        kit.load_receiver(spec)
    assert message in str(excinfo.value)


ACCEPTS = [
    ("tests.test_kit:ok_or_not", frozenset({"version"})),
    ("tests.test_kit:result_means_ok", frozenset()),
    ("tests.test_kit:returns_verdict", None),
    ("minimal", frozenset({"version"})),
]


@pytest.mark.parametrize(("spec", "accepts"), ACCEPTS, ids=[row[0] for row in ACCEPTS])
def test_signature_decides_which_options_are_passed(spec: str, accepts: frozenset[str] | None) -> None:
    assert kit.load_receiver(spec).accepts == accepts


def test_cases_that_need_an_option_the_receiver_lacks_are_skipped_and_version_is_optional() -> None:
    receiver = kit.load_receiver("tests.test_kit:result_means_ok")
    assert kit.check_case(receiver, _one("design/normal_false"), kit.labels_from(OK_LABELS)).status == "pass"
    skipped = kit.check_case(receiver, _one("env/match/integer@2026-07-28"))
    assert (skipped.status, skipped.reason) == ("skip", "the case sets request_id, which the receiver does not accept")


# --- raw, parsed and both ----------------------------------------------------------------------

def _seen(mode: str | None, case_id: str) -> type:
    seen: list[object] = []

    def spy(response: object) -> str:
        seen.append(response)
        return "x"

    if mode == "declared-raw":
        spy.mcp_receiver_input = "raw"  # type: ignore[attr-defined]
        mode = None
    kit.check_case(kit.receiver_from(spy, input=mode), _one(case_id))  # type: ignore[arg-type]
    return type(seen[0])


INPUTS = [
    # (mode, case, what the receiver is given)
    (None, "design/normal_false", dict),                  # parsed by default
    (None, "wire/ok/tool_error_raw@2026-07-28", dict),   # raw case, strictly parseable: parsed for it
    ("raw", "design/normal_false", bytes),                # parsed case: its wire bytes
    ("raw", "wire/dup/result", bytes),
    ("declared-raw", "design/normal_false", bytes),       # mcp_receiver_input = "raw"
    ("both", "design/normal_false", dict),
    ("both", "wire/dup/result", bytes),
]


@pytest.mark.parametrize(("mode", "case_id", "given"), INPUTS, ids=[f"{r[0]}-{r[1]}" for r in INPUTS])
def test_what_a_receiver_is_given(mode: str | None, case_id: str, given: type) -> None:
    assert _seen(mode, case_id) is given


def test_raw_receiver_passes_every_case_of_a_version() -> None:
    receiver = kit.load_receiver("tests.test_kit:raw_receiver")
    assert receiver.input == "raw"
    report = kit.run(receiver, corpus.load(versions=["2025-03-26"]))
    counts = report.counts()
    assert (counts["fail"], counts["error"]) == (0, 0)
    assert set(report.skip_reasons()) <= {f"the case sets {name}, which the receiver does not accept"
                                          for name in kit.OPTION_NAMES}


def test_the_option_overrides_the_declaration() -> None:
    assert kit.load_receiver("tests.test_kit:raw_receiver", input="parsed").input == "parsed"


def test_a_receiver_that_mutates_its_input_cannot_damage_the_corpus() -> None:
    case = _one("design/normal_false")
    before = json.dumps(case.input)
    outcome = kit.check_case(kit.load_receiver("tests.test_kit:mutating"), case)
    assert outcome.status == "pass"
    assert json.dumps(case.input) == before


# --- receivers that misbehave -------------------------------------------------------------------

def test_a_raising_receiver_fails_each_case_with_its_exception_and_never_stops_the_run() -> None:
    cases = [c for c in CASES if c.id.startswith("design/")]
    report = kit.run(kit.load_receiver("tests.test_kit:raises"), cases)
    assert report.counts() == {"pass": 0, "fail": 0, "error": 12, "skip": 0}
    assert not report.ok
    first = report.outcomes[0]
    assert isinstance(first.exception, RuntimeError)
    assert first.reason == "the receiver raised RuntimeError: kaboom"


def test_a_receiver_returning_no_label_is_an_error() -> None:
    outcome = kit.check_case(kit.load_receiver("tests.test_kit:returns_none"), _one("design/normal_false"))
    assert (outcome.status, outcome.exception) == ("error", None)
    assert outcome.reason.startswith("the receiver returned None: expected a label string, a Kind")


def test_no_case_ran_is_not_ok() -> None:
    report = kit.run(kit.load_receiver("minimal"), [_one("env/match/integer@2026-07-28")])
    assert report.counts()["skip"] == 1
    assert not report.ok


# --- versions, reports and descriptions ---------------------------------------------------------

VERSION_ARGS = [
    ([], None),
    (["2025-06-18"], ["2025-06-18"]),
    (["2025-06-18,2026-07-28"], ["2025-06-18", "2026-07-28"]),
    (["2024-11-05", " 2025-03-26 ,"], ["2024-11-05", "2025-03-26"]),
]


@pytest.mark.parametrize(("args", "versions"), VERSION_ARGS, ids=[str(r[0]) for r in VERSION_ARGS])
def test_versions_option(args: list[str], versions: list[str] | None) -> None:
    assert kit.split_versions(args) == versions


def test_versions_filter_and_unknown_versions() -> None:
    selected = corpus.load(versions=["2025-06-18"])
    assert selected and {c.version for c in selected} == {"2025-06-18"}
    with pytest.raises(ValueError, match="unknown versions \\['1999'\\]; the corpus has 2024-11-05"):
        corpus.load(versions=["1999"])


def test_describe_names_the_case_its_reason_and_its_reference() -> None:
    outcome = kit.check_case(kit.load_receiver("tests.test_kit:result_means_ok"), _one("design/string_flag"),
                             kit.labels_from(OK_LABELS))
    assert kit.describe(outcome).splitlines() == [
        "design/string_flag (2026-07-28): expected 'not_ok', got 'ok' (the case is unclassified; "
        "'ok' stands for normal_complete)",
        '  why: isError must be a boolean, not the string "false"',
        "  spec: 2026-07-28/schema#calltoolresult",
        "  finding that explains the label: result.is_error",
        f"  case: design.jsonl:7 (corpus {corpus.CORPUS_VERSION})",
        '  options: {"version": "2026-07-28"}',
        '  response: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}',
    ]


def test_report_to_dict() -> None:
    cases = [_one("design/normal_false"), _one("design/string_flag"), _one("env/match/integer@2026-07-28")]
    report = kit.run(kit.load_receiver("tests.test_kit:result_means_ok"), cases, kit.labels_from(OK_LABELS))
    data = report.to_dict()
    assert data["summary"] == {"cases": 3, "pass": 1, "fail": 1, "error": 0, "skip": 1}
    assert data["ok"] is False
    assert [f["id"] for f in data["failures"]] == ["design/string_flag"]
    assert data["by_kind"]["unclassified"] == {"pass": 0, "fail": 1, "error": 0, "skip": 0}
    json.dumps(data)


# --- the kill table -----------------------------------------------------------------------------

def test_kill_table_on_the_twelve() -> None:
    twelve = [c for c in CASES if c.id.startswith("design/")]
    by_name = {m.name: m for m in MUTANTS}
    rows = kit.kill_table(twelve, [by_name["result_means_success"], by_name["complete_ignores_is_error"],
                                   by_name["task_status_unchecked"]])
    assert [(r.name, len(r.failing), len(r.errors), r.result) for r in rows] == [
        ("real classifier", 0, 0, "passes all"),
        ("result_means_success", 9, 0, "killed"),
        ("complete_ignores_is_error", 4, 0, "killed"),
        ("task_status_unchecked", 0, 0, "SURVIVED"),  # the twelve hold no task case
    ]
    assert [r.healthy for r in rows] == [True, True, True, False]


def test_a_mutant_that_drops_a_warning_is_killed_by_the_finding_it_drops() -> None:
    """A case passes the kill table only with the finding it names (``Case.finding``): a warning
    changes no kind, so without that the mutant of a warning's rule survives every case."""
    cases = [c for c in CASES if c.id.startswith("content/meta_key/underscore_first")]
    by_name = {m.name: m for m in MUTANTS}
    rows = kit.kill_table(cases, [by_name["meta_key_name_unchecked"], by_name["fast_meta_key_names_taken"]])
    assert [(r.name, r.failing, r.result) for r in rows] == [
        ("real classifier", (), "passes all"),
        ("meta_key_name_unchecked", tuple(c.id for c in cases), "killed"),
        ("fast_meta_key_names_taken", tuple(c.id for c in cases), "killed"),
    ]
    assert {o.reason for o in rows[1].report.with_status("fail")} == {
        "the kind is right, but not the finding that explains it (meta.key_name)"}
    assert [c.version for c in cases] == ["2025-06-18", "2025-11-25", "2026-07-28"]


def test_a_receiver_that_raises_is_caught_in_the_errors_column() -> None:
    twelve = [c for c in CASES if c.id.startswith("design/")]
    mutant = kit.KillRow("raises", "raises on everything", kit.run(kit.load_receiver("tests.test_kit:raises"),
                                                                   twelve), real=False)
    assert (len(mutant.failing), len(mutant.errors), mutant.result, mutant.healthy) == (0, 12, "killed", True)
    real = kit.KillRow("raises", "raises on everything", mutant.report, real=True)
    assert (real.result, real.healthy) == ("FAILS", False)


# --- the corpus as data ------------------------------------------------------------------------

def test_corpus_lookup_and_changelog() -> None:
    assert corpus.get("design/string_flag").expect is Kind.UNCLASSIFIED
    with pytest.raises(KeyError, match="no corpus case 'nope'"):
        corpus.get("nope")
    headings = [line for line in corpus.changelog().splitlines() if line.startswith("## ")]
    assert headings[0] == f"## {corpus.CORPUS_VERSION}"


def test_every_case_carries_what_an_application_needs() -> None:
    for case in CASES:
        assert case.id and case.version and case.description and case.spec, case.id
        assert isinstance(case.expect, Kind)
        assert isinstance(case.input, bytes) if case.raw else not isinstance(case.input, bytes)


# --- receivers that misbehave beyond raising an Exception (hunt D2, D3, D5) -----------------------

class _KindRaises:
    @property
    def kind(self) -> Kind:
        raise RuntimeError("kind blew up")


class _ReprRaises:
    def __repr__(self) -> str:
        raise RuntimeError("repr blew up")


class _StrRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str blew up")


def _exits(response: object) -> str:
    raise SystemExit(0)


def _generator_exit(response: object) -> str:
    raise GeneratorExit


def _kind_raises(response: object) -> object:
    return _KindRaises()


def _repr_raises(response: object) -> object:
    return _ReprRaises()


def _str_raises(response: object) -> str:
    raise _StrRaises


def _long_message(response: object) -> str:
    raise ValueError("x" * 100_000)


def _long_label(response: object) -> str:
    return "y" * 100_000


class _Label(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq blew up")

    __hash__ = str.__hash__


def _str_subclass(response: object) -> str:
    return _Label("normal_complete")


MISBEHAVING = [
    (_exits, "error", r"the receiver raised SystemExit: 0"),
    (_generator_exit, "error", r"the receiver raised GeneratorExit"),
    (_kind_raises, "error", r"the receiver returned <tests\.test_kit\._KindRaises object at 0x[0-9a-f]+>, whose "
                            r"\.kind raised RuntimeError: kind blew up"),
    (_repr_raises, "error", r"the receiver returned <tests\.test_kit\._ReprRaises object at 0x[0-9a-f]+>: expected "
                            r"a label string, a Kind or an object with a \.kind"),
    (_str_raises, "error", r"the receiver raised _StrRaises \(whose str\(\) raised RuntimeError\)"),
    (_long_message, "error", r"the receiver raised ValueError: x{200}…"),
    (_long_label, "fail", r"expected 'normal_complete', got 'y{199}…, which is not a label \(.*\)"),
    (_str_subclass, "pass", r""),
]


@pytest.mark.parametrize(("function", "status", "reason"), MISBEHAVING, ids=[r[0].__name__ for r in MISBEHAVING])
def test_a_misbehaving_receiver_is_an_outcome_never_a_crash(function: Any, status: str, reason: str) -> None:
    outcome = kit.check_case(kit.receiver_from(function), _one("design/normal_false"))
    assert outcome.status == status
    assert re.fullmatch(reason, outcome.reason), outcome.reason
    assert len(outcome.got or "") <= 201


def test_an_error_outcome_lets_go_of_the_receivers_locals() -> None:
    class Big:
        pass

    held: list[weakref.ref[Big]] = []

    def heavy(response: object) -> str:
        big = Big()
        held.append(weakref.ref(big))
        try:
            raise KeyError("inner")
        except KeyError:
            raise ValueError("outer") from None

    outcome = kit.check_case(kit.receiver_from(heavy), _one("design/normal_false"))
    gc.collect()
    assert (outcome.status, outcome.reason, held[0]()) == ("error", "the receiver raised ValueError: outer", None)
    assert "raise ValueError(\"outer\")" in "".join(traceback.format_exception(outcome.exception))


def test_a_keyboard_interrupt_still_stops_the_run() -> None:
    def interrupted(response: object) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        kit.check_case(kit.receiver_from(interrupted), _one("design/normal_false"))


DESCRIBED = [
    ("[/]", "the receiver raised ValueError: [/]"),
    ("\x1b]0;TITLE\x07\x1b[31mred\u202e", "the receiver raised ValueError: \\x1b]0;TITLE\\a\\x1b[31mred\\u202e"),
    ("\udcff\r", "the receiver raised ValueError: \\udcff\\r"),
]


@pytest.mark.parametrize(("message", "first_line"), DESCRIBED, ids=["markup", "escapes", "surrogate"])
def test_describe_shows_the_receivers_text_and_never_a_control(message: str, first_line: str) -> None:
    def raising(response: object) -> str:
        raise ValueError(message)

    outcome = kit.check_case(kit.receiver_from(raising), _one("design/normal_false"))
    assert outcome.reason == f"the receiver raised ValueError: {message}"  # the report keeps it as it was
    assert kit.describe(outcome).splitlines()[0] == f"design/normal_false (2026-07-28): {first_line}"

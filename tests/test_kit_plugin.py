"""The pytest plugin, for real: small pytest sessions run by ``pytester`` with ``--mcp-receiver``.

Each session is limited to one protocol version to keep the runtime modest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import mcp_verdict
from mcp_verdict import corpus

pytest_plugins = ["pytester"]

OLDEST = "2024-11-05"
OLDEST_CASES = len(corpus.load(versions=[OLDEST]))
LATEST_CASES = len(corpus.load(versions=["2026-07-28"]))

APP = '''
from mcp_verdict import Kind, classify

def good(response, **options):
    return classify(response, **options)
good.mcp_receiver_input = "both"

def ok_or_not(response, version):
    return "ok" if classify(response, version=version).kind is Kind.NORMAL_COMPLETE else "not_ok"

def result_means_ok(response):
    return "ok" if isinstance(response, dict) and "result" in response else "not_ok"

def kaboom(response):
    raise RuntimeError("kaboom")

def escape_raise(response):
    raise ValueError("\\x1b]0;TITLE\\x07\\x1b[31mred\\u202e")

def huge_raise(response):
    raise ValueError("x" * 1_000_000)

def many_lines_raise(response):
    raise ValueError("line\\n" * 100_000)

def huge_chain_raise(response):
    try:
        raise KeyError("k" * 1_000_000)
    except KeyError as exc:
        raise ValueError("v" * 1_000_000) from exc

def raw(response, version):
    assert type(response) is bytes
    return classify(response, version=version).kind
raw.mcp_receiver_input = "raw"
'''

OK_LABELS = {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok", "task": "not_ok",
             "protocol_error": "not_ok", "unclassified": "not_ok"}


@pytest.fixture
def app(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(app_receiver=APP)
    pytester.syspathinsert()
    return pytester


def test_the_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("mcp-verdict") == "mcp_verdict.kit._pytest_plugin"


def test_without_the_option_the_plugin_does_nothing(app: pytest.Pytester) -> None:
    app.makepyfile(test_own="def test_one():\n    assert True\n")
    result = app.runpytest()
    result.assert_outcomes(passed=1)
    assert "mcp-verdict conformance kit" not in result.stdout.str()


def test_a_conforming_receiver_passes_one_item_per_case(app: pytest.Pytester) -> None:
    app.makepyfile(test_own="def test_one():\n    assert True\n")
    result = app.runpytest("--mcp-receiver=app_receiver:good", f"--mcp-versions={OLDEST}", "-v")
    result.assert_outcomes(passed=OLDEST_CASES + 1)  # the application's own test runs too
    result.stdout.fnmatch_lines([
        f"mcp-verdict conformance kit: receiver app_receiver:good (both input), {OLDEST_CASES} cases of corpus *",
        f"mcp-receiver::env/ok/minimal@{OLDEST} PASSED*",
    ])


def test_builtin_receiver_and_item_names(app: pytest.Pytester) -> None:
    result = app.runpytest("--mcp-receiver=mcp_verdict:classify", f"--mcp-versions={OLDEST}", "--collect-only",
                           "-q")
    names = [line for line in result.stdout.lines if line.startswith("mcp-receiver::")]
    assert names == [f"mcp-receiver::{c.id}" for c in corpus.load(versions=[OLDEST])]


def test_labels_and_failures_are_named_by_case_id(app: pytest.Pytester) -> None:
    labels = app.path / "labels.json"
    labels.write_text(json.dumps(OK_LABELS), "utf-8")
    result = app.runpytest("--mcp-receiver=app_receiver:result_means_ok", f"--mcp-receiver-labels={labels}",
                           "--mcp-versions=2026-07-28", "-v")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] > 0
    assert outcomes["passed"] + outcomes["failed"] + outcomes.get("skipped", 0) == LATEST_CASES
    result.stdout.fnmatch_lines_random([
        "mcp-receiver::design/normal_false PASSED*",
        "mcp-receiver::design/protocol_error PASSED*",
        "mcp-receiver::design/string_flag FAILED*",
        "mcp-receiver::design/tool_error FAILED*",
        "design/string_flag (2026-07-28): expected 'not_ok', got 'ok' (the case is unclassified; 'ok' stands for "
        "normal_complete)",
        "  spec: 2026-07-28/schema#calltoolresult",
    ])


def test_the_same_receiver_with_the_right_labels_passes(app: pytest.Pytester) -> None:
    labels = app.path / "labels.json"
    labels.write_text(json.dumps(OK_LABELS), "utf-8")
    result = app.runpytest("--mcp-receiver=app_receiver:ok_or_not", f"--mcp-receiver-labels={labels}",
                           f"--mcp-versions={OLDEST}")
    assert result.ret == pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes
    assert outcomes["passed"] + outcomes["skipped"] == OLDEST_CASES


def test_a_raising_receiver_fails_every_case_with_its_exception(app: pytest.Pytester) -> None:
    result = app.runpytest("--mcp-receiver=app_receiver:kaboom", f"--mcp-versions={OLDEST}",
                           "--mcp-receiver-input=raw")
    result.assert_outcomes(failed=OLDEST_CASES - _needing_options(OLDEST), skipped=_needing_options(OLDEST))
    result.stdout.fnmatch_lines(["*the receiver raised RuntimeError: kaboom*", "*raise RuntimeError(\"kaboom\")*"])
    assert "INTERNALERROR" not in result.stdout.str()


def test_a_raw_receiver_gets_every_case(app: pytest.Pytester) -> None:
    result = app.runpytest("--mcp-receiver=app_receiver:raw", f"--mcp-versions={OLDEST}", "-rs")
    result.assert_outcomes(passed=OLDEST_CASES - _needing_options(OLDEST), skipped=_needing_options(OLDEST))
    result.stdout.fnmatch_lines(["*the case sets request_id, which the receiver does not accept*"])


def _needing_options(version: str) -> int:
    """Cases that set an option other than the version (a receiver without it skips them)."""
    return sum(bool(c.options) for c in corpus.load(versions=[version]))


USAGE_ERRORS = [
    (["--mcp-receiver=nope:nothing"], "*mcp-verdict: receiver 'nope:nothing': cannot import module 'nope'*"),
    (["--mcp-receiver=os:getcwd"], "*os:getcwd() cannot be called as receiver(response)*"),
    (["--mcp-receiver=mcp-verdict", "--mcp-versions=1999"], "*unknown versions ?'1999'?; the corpus has 2024-11-05*"),
    (["--mcp-receiver=mcp-verdict", "--mcp-receiver-labels=missing.json"], "*label file 'missing.json'*"),
    (["--mcp-versions=2026-07-28"], "*--mcp-versions only apply with --mcp-receiver=MODULE:FUNCTION*"),
    (["--mcp-receiver=syntax_error:f"], "*cannot import module 'syntax_error': SyntaxError: *"),
    (["--mcp-receiver=raises_at_import:f"], "*cannot import module 'raises_at_import': RuntimeError: boom at import"),
    (["--mcp-receiver=.foo:bar"], "*receiver '.foo:bar': '.foo' is a relative module name*"),
    (["--mcp-receiver=mcp-verdict", "--mcp-receiver-labels=deep.json"],
     "*label file '*deep.json': line 1: not JSON: nested too deep to read"),
    (["--mcp-receiver=mcp-verdict", "--mcp-versions=,"], "*versions ',': no protocol version named*"),
    (["--mcp-receiver=mcp-verdict", "--mcp-versions="], "*versions '': no protocol version named*"),
    (["--mcp-receiver=mcp-verdict", "mcp-receiver::no/such"], "*no corpus case 'no/such' among the selected*"),
]


@pytest.mark.parametrize(("args", "message"), USAGE_ERRORS, ids=[" ".join(r[0]) for r in USAGE_ERRORS])
def test_bad_setup_is_a_usage_error(app: pytest.Pytester, args: list[str], message: str) -> None:
    app.makepyfile(syntax_error="def f(:\n", raises_at_import="raise RuntimeError('boom at import')\n")
    (app.path / "deep.json").write_text("[" * 200_000 + "]" * 200_000, "utf-8")
    result = app.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_the_receivers_text_reaches_the_report_neutralised(app: pytest.Pytester) -> None:
    result = app.runpytest("--mcp-receiver=app_receiver:escape_raise", "--mcp-versions=2026-07-28",
                           "--mcp-receiver-input=raw", "-k", "design/normal_false")
    result.assert_outcomes(failed=1, deselected=LATEST_CASES - 1)
    out = result.stdout.str()
    shown = "ValueError: \\x1b]0;TITLE\\a\\x1b[31mred\\u202e"
    assert f"design/normal_false (2026-07-28): the receiver raised {shown}" in result.stdout.lines
    assert shown in result.stdout.lines  # the traceback's last line
    assert "\x1b" not in out and "\u202e" not in out


# (the receiver; lines its traceback's end shows, written by hand: each piece of the traceback, a
# frame or an exception's message, cut at 2,000 characters with how many it had, README "What a
# failure means"). Before, the whole message was shown: 1 MB a case, 1.7 GB for the corpus.
HUGE_MESSAGE_CASES = [
    ("huge_raise", ["ValueError: " + "x" * 1988 + "\u2026 (1000012 characters in all)"]),
    # 12 + 397 lines of 5 characters + "lin" = 2,000
    ("many_lines_raise", ["ValueError: line", "line", "lin\u2026 (500012 characters in all)"]),
    ("huge_chain_raise", ["KeyError: '" + "k" * 1989 + "\u2026 (1000012 characters in all)",
                          "The above exception was the direct cause of the following exception:",
                          "ValueError: " + "v" * 1988 + "\u2026 (1000012 characters in all)"]),
]


@pytest.mark.parametrize(("function", "lines"), HUGE_MESSAGE_CASES)
def test_a_receivers_huge_exception_is_shown_bounded(app: pytest.Pytester, function: str,
                                                      lines: list[str]) -> None:
    result = app.runpytest(f"--mcp-receiver=app_receiver:{function}", "--mcp-versions=2026-07-28",
                           "--mcp-receiver-input=raw", "-k", "design/normal_false")
    result.assert_outcomes(failed=1, deselected=LATEST_CASES - 1)
    out = result.stdout.str()
    assert len(out) < 20_000, len(out)
    result.stdout.fnmatch_lines([line.replace("[", "[[]") for line in lines], consecutive=False)


PYTEST = Path(sys.executable).with_name("pytest")


def _pytest_script(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The ``pytest`` console script as a user runs it: no PYTHONPATH but the package's, no
    ``python -m`` putting the working directory on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(Path(mcp_verdict.__file__).resolve().parents[1])  # the package under test, alone
    return subprocess.run([str(PYTEST), "-p", "no:cacheprovider", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300, check=False)


def test_a_receiver_in_the_working_directory_imports(tmp_path: Path) -> None:
    (tmp_path / "cwd_receiver.py").write_text(APP, "utf-8")
    done = _pytest_script("--mcp-receiver=cwd_receiver:good", f"--mcp-versions={OLDEST}", "-q", cwd=tmp_path)
    assert (done.returncode, done.stdout.splitlines()[-1].split(" in ")[0]) == (0, f"{OLDEST_CASES} passed"), \
        done.stdout + done.stderr


def test_a_label_file_in_addopts_is_the_ini_files_wherever_pytest_runs(tmp_path: Path) -> None:
    identity = {kind: kind for kind in OK_LABELS}
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "mcp-labels.json").write_text(json.dumps(identity), "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--mcp-receiver=mcp_verdict:classify '
        f'--mcp-receiver-labels=tests/mcp-labels.json --mcp-versions={OLDEST}"\n', "utf-8")
    for cwd in (tmp_path, tmp_path / "tests"):
        done = _pytest_script("-q", cwd=cwd)
        assert (done.returncode, done.stdout.splitlines()[-1].split(" in ")[0]) == (0, f"{OLDEST_CASES} passed"), \
            done.stdout + done.stderr
    done = _pytest_script("-q", "--mcp-receiver-labels=mcp-labels.json", cwd=tmp_path / "tests")  # the cwd's
    assert done.returncode == 0, done.stdout + done.stderr


SELECTIONS = [
    ([], OLDEST_CASES + 2),
    (["test_own.py"], 2),
    (["test_own.py::test_one"], 1),
    (["test_own.py", "mcp-receiver"], OLDEST_CASES + 2),
    (["mcp-receiver"], OLDEST_CASES),
    ([f"mcp-receiver::env/ok/minimal@{OLDEST}", "test_own.py::test_two"], 2),
]


@pytest.mark.parametrize(("paths", "passed"), SELECTIONS, ids=[" ".join(r[0]) or "none" for r in SELECTIONS])
def test_test_paths_select_the_kit_items_too(app: pytest.Pytester, paths: list[str], passed: int) -> None:
    app.makepyfile(test_own="def test_one():\n    assert True\n\ndef test_two():\n    assert True\n")
    result = app.runpytest("--mcp-receiver=app_receiver:good", f"--mcp-versions={OLDEST}", *paths)
    result.assert_outcomes(passed=passed)

"""``mcp-verdict conform`` and ``mcp-verdict mutants``, run for real in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mcp_verdict
from mcp_verdict import corpus

CLI = Path(sys.executable).with_name("mcp-verdict")
SRC = str(Path(mcp_verdict.__file__).resolve().parents[1])
"""Where the package under test is imported from: the subprocesses import it from there too (the
console script's own install may be another checkout's, a worktree's main)."""
OLDEST = "2024-11-05"

APP = '''
from mcp_verdict import Kind, classify

def ok_or_not(response, version):
    return "ok" if classify(response, version=version).kind is Kind.NORMAL_COMPLETE else "not_ok"

def kaboom(response):
    raise RuntimeError("kaboom")

def markup_raise(response):
    raise ValueError("[/]")

def markup_label(response):
    return "[bold red]ok[/] \\x1b[2J\\x1b]0;pwned\\x07"

def escape_raise(response):
    raise ValueError("\\x1b]0;TITLE\\x07\\x1b[31mred\\u202e")

def surrogate_label(response):
    return "\\ud800"

def surrogate_raise(response):
    raise ValueError("\\udcff")

def exits(response):
    import sys
    sys.exit(0)

def always_ok(response, **options):
    return "normal_complete"

def prints(response, version):
    import os
    print("debug", response)
    os.write(1, b"raw\\n")
    return classify(response, version=version)
'''

OK_LABELS = {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok", "task": "not_ok",
             "protocol_error": "not_ok", "unclassified": "not_ok"}


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), SRC]) if cwd else SRC, "COLUMNS": "200"}
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
                          check=False)


def _run_bytes(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The raw output, and no PYTHONPATH but the package's: the working directory is on sys.path only
    if the CLI puts it there."""
    env = {**os.environ, "PYTHONPATH": SRC, "COLUMNS": "200"}
    return subprocess.run([str(CLI), *args], capture_output=True, cwd=cwd, env=env, timeout=300, check=False)


def _json(*args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    done = _run(*args, "--json", cwd=cwd)
    return done.returncode, json.loads(done.stdout)


def test_own_classify_conforms() -> None:
    code, report = _json("conform", "mcp_verdict:classify", "--versions", OLDEST)
    assert code == 0
    cases = len(corpus.load(versions=[OLDEST]))
    assert report["summary"] == {"cases": cases, "pass": cases, "fail": 0, "error": 0, "skip": 0}
    assert (report["receiver"], report["input"], report["ok"]) == ("mcp_verdict:classify", "both", True)
    assert report["corpus_version"] == corpus.CORPUS_VERSION


def test_the_sdk_takes_malformed_results_as_success() -> None:
    pytest.importorskip("mcp_types")
    code, report = _json("conform", "--builtin", "sdk", "--versions", "2026-07-28")
    assert code == 1
    got = {f["id"]: (f["status"], f["got"]) for f in report["failures"]}
    for case_id in ("design/string_flag", "design/integer_flag", "rt/unknown/capitalised",
                    "wire/dup/is_error_true_false@2026-07-28"):
        assert got[case_id] == ("fail", "normal_complete")
    assert "design/null_flag" not in got


def test_the_minimal_classifier_accepts_broken_blocks_human_output() -> None:
    done = _run("conform", "--builtin", "minimal", "--versions", "2026-07-28")
    assert done.returncode == 1
    assert ("FAIL  content/type_missing@2026-07-28 (2026-07-28): expected 'unclassified', got 'normal_complete'"
            in done.stdout)
    assert "skipped" in done.stdout
    assert done.stdout.rstrip().endswith("FAILS")


def test_labels_and_a_receiver_of_the_application(tmp_path: Path) -> None:
    (tmp_path / "app_receiver.py").write_text(APP, "utf-8")
    (tmp_path / "labels.json").write_text(json.dumps(OK_LABELS), "utf-8")
    code, report = _json("conform", "app_receiver:ok_or_not", "--labels", "labels.json", "--versions", OLDEST,
                         cwd=tmp_path)
    assert code == 0
    assert report["labels"] == OK_LABELS
    assert report["summary"]["fail"] == report["summary"]["error"] == 0


def test_a_raising_receiver_is_reported_per_case(tmp_path: Path) -> None:
    (tmp_path / "app_receiver.py").write_text(APP, "utf-8")
    code, report = _json("conform", "app_receiver:kaboom", "--versions", OLDEST, "--input", "raw", cwd=tmp_path)
    assert code == 1
    assert report["summary"]["error"] == report["summary"]["cases"] - report["summary"]["skip"] > 0
    assert {f["reason"] for f in report["failures"]} == {"the receiver raised RuntimeError: kaboom"}


USAGE = [
    (["conform", "nope:nothing"], "receiver 'nope:nothing': cannot import module 'nope'"),
    (["conform", "os:getcwd"], "os:getcwd() cannot be called as receiver(response)"),
    (["conform"], "give a receiver MODULE:FUNCTION or --builtin NAME"),
    (["conform", "mcp_verdict:classify", "--builtin", "sdk"], "give a receiver MODULE:FUNCTION or --builtin NAME"),
    (["conform", "--builtin", "minimal", "--versions", "1999"], "unknown versions ['1999']"),
    (["conform", "--builtin", "minimal", "--labels", "missing.json"], "label file 'missing.json'"),
    (["conform", "syntax_error:f"], "receiver 'syntax_error:f': cannot import module 'syntax_error': SyntaxError: "),
    (["conform", "raises_at_import:f"], "receiver 'raises_at_import:f': cannot import module 'raises_at_import': "
                                        "RuntimeError: boom at import"),
    (["conform", "exits_at_import:f"], "cannot import module 'exits_at_import': SystemExit: 3"),
    (["conform", ".foo:bar"], "receiver '.foo:bar': '.foo' is a relative module name"),
    (["conform", "--builtin", "minimal", "--labels", "deep.json"],
     "label file 'deep.json': line 1: not JSON: nested too deep to read"),
    (["conform", "--builtin", "minimal", "--labels", "latin.json"],
     "label file 'latin.json': line 1, column 22: not UTF-8 (invalid continuation byte)"),
    (["conform", "--builtin", "minimal", "--versions", ","], "versions ',': no protocol version named"),
    (["conform", "--builtin", "minimal", "--versions", ""], "versions '': no protocol version named"),
]
SETUP_FILES = {"syntax_error.py": "def f(:\n", "raises_at_import.py": "raise RuntimeError('boom at import')\n",
               "exits_at_import.py": "import sys\nsys.exit(3)\n", "deep.json": "[" * 200_000 + "]" * 200_000,
               "latin.json": '{"normal_complete": "\xe9"}'}


@pytest.mark.parametrize(("args", "message"), USAGE, ids=[" ".join(r[0]) for r in USAGE])
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    for name, text in SETUP_FILES.items():
        (tmp_path / name).write_text(text, "latin-1")
    done = _run(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr


def test_mutants_kill_table() -> None:
    code, table = _json("mutants")
    assert code == 0
    rows = table["rows"]
    assert rows[0] == {"receiver": "real classifier", "description": "mcp_verdict.classify", "failing": [],
                       "errors": [], "result": "passes all"}
    assert all(row["result"] == "killed" and "errors" in row for row in rows[1:])
    assert table["cases"] == len(corpus.load())


# --- the receiver's text on the terminal and in JSON (hunt D1, D2, D4, D10) -----------------------

SHOWN = [
    (["app_receiver:markup_raise"], "ERROR content/missing@2026-07-28 (2026-07-28): the receiver raised "
                                    "ValueError: [/]"),
    (["app_receiver:markup_label"], "FAIL  content/missing@2026-07-28 (2026-07-28): expected 'unclassified', got "
                                    "'[bold red]ok[/] \\x1b[2J\\x1b]0;pwned\\x07', which is not a label"),
    (["app_receiver:escape_raise"], "ERROR content/missing@2026-07-28 (2026-07-28): the receiver raised ValueError: "
                                    "\\x1b]0;TITLE\\a\\x1b[31mred\\u202e"),
    (["app_receiver:surrogate_raise"], "ERROR content/missing@2026-07-28 (2026-07-28): the receiver raised ValueError: "
                                       "\\udcff"),
    (["app_receiver:exits"], "ERROR content/missing@2026-07-28 (2026-07-28): the receiver raised SystemExit: 0"),
    (["app_receiver:always_ok", "-v"], '  response: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",'
                                       '"content":[null]}}'),
]


@pytest.mark.parametrize(("args", "line"), SHOWN, ids=[" ".join(r[0]) for r in SHOWN])
def test_the_receivers_text_is_shown_literally(tmp_path: Path, args: list[str], line: str) -> None:
    (tmp_path / "app_receiver.py").write_text(APP, "utf-8")
    done = _run_bytes("conform", *args, "--versions", "2026-07-28", cwd=tmp_path)
    out = done.stdout.decode("utf-8")  # strict: valid UTF-8
    assert (done.returncode, done.stderr) == (1, b"")
    assert any(shown.startswith(line) for shown in out.splitlines()), out[:2000]
    assert "\x1b" not in out and "\u202e" not in out
    assert out.rstrip().endswith("FAILS")


JSON_REPORTS = [
    ("surrogate_label", "fail", "\ud800", "expected 'unclassified', got '\\ud800', which is not a label "
                                           "(input_required, normal_complete, protocol_error, task, tool_error, "
                                           "unclassified)"),
    ("surrogate_raise", "error", None, "the receiver raised ValueError: \udcff"),
    ("exits", "error", None, "the receiver raised SystemExit: 0"),
    ("escape_raise", "error", None, "the receiver raised ValueError: \x1b]0;TITLE\x07\x1b[31mred\u202e"),
]


@pytest.mark.parametrize(("function", "status", "got", "reason"), JSON_REPORTS, ids=[r[0] for r in JSON_REPORTS])
def test_the_json_report_is_valid_utf8_json_with_the_receivers_text(tmp_path: Path, function: str, status: str,
                                                                     got: str | None, reason: str) -> None:
    (tmp_path / "app_receiver.py").write_text(APP, "utf-8")
    done = _run_bytes("conform", f"app_receiver:{function}", "--versions", "2026-07-28", "--json", cwd=tmp_path)
    report = json.loads(done.stdout.decode("utf-8"))
    assert (done.returncode, report["ok"]) == (1, False)
    first = report["failures"][0]
    assert (first["id"], first["status"], first["got"], first["reason"]) == ("content/missing@2026-07-28", status,
                                                                           got, reason)


def test_what_the_receiver_prints_goes_to_stderr_under_json(tmp_path: Path) -> None:
    (tmp_path / "app_receiver.py").write_text(APP, "utf-8")
    done = _run_bytes("conform", "app_receiver:prints", "--versions", OLDEST, "--json", cwd=tmp_path)
    report = json.loads(done.stdout.decode("utf-8"))
    assert (done.returncode, report["ok"], report["summary"]["error"]) == (0, True, 0)
    cases = report["summary"]["cases"]
    assert done.stderr.count(b"debug ") == done.stderr.count(b"raw\n") == cases - report["summary"]["skip"] > 0


def test_a_receiver_in_the_working_directory_imports_without_pythonpath(tmp_path: Path) -> None:
    (tmp_path / "cwd_receiver.py").write_text(APP, "utf-8")
    done = _run_bytes("conform", "cwd_receiver:ok_or_not", "--versions", OLDEST, "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # it ran: ok_or_not fails the cases of the kinds' own names
    assert json.loads(done.stdout)["receiver"] == "cwd_receiver:ok_or_not"


# The peak memory of `conform` under a receiver raising a fresh 1 MB message on every case, read
# by a parent that runs it alone (ru_maxrss of its one child, in KiB on Linux). The report shows
# each error's reason, one bounded line; it kept every exception too, with its message: 626
# errors of the 2026-07-28 cases held 640 MB (1.7 GB over the corpus), where a receiver that
# raises small messages peaks under 100 MB.
PEAK = '''
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
'''


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_a_receiver_raising_large_messages_does_not_hold_them(tmp_path: Path, flags: list[str]) -> None:
    (tmp_path / "large_raise.py").write_text('def f(response):\n    raise ValueError("x" * 1_000_000)\n', "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "mcp_verdict", "conform",
                           "large_raise:f", "--versions", "2026-07-28", *flags], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300, check=True)
    assert int(done.stdout) < 200_000  # KiB

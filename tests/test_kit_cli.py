"""``mcp-verdict conform`` and ``mcp-verdict mutants``, run for real in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import corpus

CLI = Path(sys.executable).with_name("mcp-verdict")
OLDEST = "2024-11-05"

APP = '''
from mcp_verdict import Kind, classify

def ok_or_not(response, version):
    return "ok" if classify(response, version=version).kind is Kind.NORMAL_COMPLETE else "not_ok"

def kaboom(response):
    raise RuntimeError("kaboom")
'''

OK_LABELS = {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok", "task": "not_ok",
             "protocol_error": "not_ok", "unclassified": "not_ok"}


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd) if cwd else "", "COLUMNS": "200"}
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
                          check=False)


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
]


@pytest.mark.parametrize(("args", "message"), USAGE, ids=[" ".join(r[0]) for r in USAGE])
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
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

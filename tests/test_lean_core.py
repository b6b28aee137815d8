"""The lean core, as a user installs it: `pip install .` alone, and beside the 1.x SDK.

`./run test` builds two virtualenvs beside the main one (README: "Two commands"):
``.venvs/core`` holds only the package and its core dependencies (plus pytest, to run the
plugin), ``.venvs/mcp1`` the same beside ``mcp`` 1.x. Each test runs the installed commands
as a user would, in a subprocess. Without those virtualenvs the tests skip (and fail under
``./run test``, which sets MCP_VERDICT_REQUIRE_INTEROP=1).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENVS = ROOT / ".venvs"

# Distributions the core must never bring (the SDK, HTTP stacks, servers, pydantic, crypto).
NOT_IN_CORE = ("mcp", "mcp-types", "httpx", "httpx2", "httpcore", "uvicorn", "starlette", "sse-starlette",
               "pydantic", "pydantic-core", "cryptography", "pyjwt", "python-multipart")

TOOL_ERROR = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":true}}'
STRING_FLAG = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}'


def venv(name: str) -> Path:
    path = VENVS / name / "bin"
    if not (path / "mcp-verdict").exists():
        message = f"the {name} virtualenv is missing at {path.parent}: ./run test builds it"
        if os.environ.get("MCP_VERDICT_REQUIRE_INTEROP") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def run(bin_dir: Path, *args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], input=stdin, capture_output=True, timeout=300,
                          cwd=cwd or ROOT / "tests", env=env, check=False)


def installed(bin_dir: Path) -> dict[str, str]:
    listed = run(bin_dir, "python", "-m", "pip", "list", "--format=json", "--disable-pip-version-check")
    return {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}


@pytest.mark.parametrize("name", ["core", "mcp1"])
def test_the_installed_package_comes_from_the_working_tree(name: str) -> None:
    bin_dir = venv(name)
    where = run(bin_dir, "python", "-c", "import mcp_verdict; print(mcp_verdict.__file__)")
    assert where.returncode == 0, where.stderr
    assert ".venvs" in where.stdout.decode(), "the package must be the installed copy, not the source tree"


def test_the_core_brings_no_sdk_http_stack_or_server() -> None:
    packages = installed(venv("core"))
    assert "mcp-verdict" in packages
    assert [p for p in NOT_IN_CORE if p in packages] == []


@pytest.mark.parametrize(("name", "stdin", "exit_code", "kind"), [
    ("core", TOOL_ERROR, 12, "tool_error"),
    ("core", STRING_FLAG, 20, "unclassified"),
    ("mcp1", TOOL_ERROR, 12, "tool_error"),
    ("mcp1", STRING_FLAG, 20, "unclassified"),
])
def test_classify_runs(name: str, stdin: bytes, exit_code: int, kind: str) -> None:
    done = run(venv(name), "mcp-verdict", "classify", "--json", "-", stdin=stdin)
    assert done.returncode == exit_code, done.stderr
    assert json.loads(done.stdout)["kind"] == kind


@pytest.mark.parametrize("name", ["core", "mcp1"])
def test_conform_runs_the_corpus(name: str) -> None:
    done = run(venv(name), "mcp-verdict", "conform", "--builtin", "mcp-verdict", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["ok"] is True


def test_the_pytest_plugin_runs_a_receiver(tmp_path: Path) -> None:
    (tmp_path / "receiver.py").write_text("from mcp_verdict import classify as receive\n")
    done = run(venv("core"), "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--mcp-receiver=receiver:receive", "--mcp-versions=2026-07-28", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    assert b" passed" in done.stdout


@pytest.mark.parametrize(("name", "why"), [
    ("core", "module 'mcp' is not installed"),
    ("mcp1", "mcp 2.x or later is needed"),
])
@pytest.mark.parametrize("command", [["call", "--stdio", "true", "x"], ["tools", "--url", "http://127.0.0.1:9/"],
                                     ["demo"]])
def test_a_command_of_the_client_extra_says_which_extra_to_install(name: str, why: str, command: list[str]) -> None:
    done = run(venv(name), "mcp-verdict", *command)
    assert done.returncode == 2
    assert done.stdout == b""
    message = done.stderr.decode()
    assert "pip install 'mcp-verdict[client]'" in message and why in message
    assert "Traceback" not in message and message.count("\n") == 1


@pytest.mark.parametrize("name", ["core", "mcp1"])
def test_the_client_from_python_says_which_extra_to_install(name: str) -> None:
    done = run(venv(name), "python", "-c", "import mcp_verdict\ntry:\n    mcp_verdict.VerdictClient\n"
               "except ImportError as exc:\n    print(type(exc).__name__, exc)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"MissingExtra mcp_verdict.client needs the [client] extra")


def test_the_1x_sdk_is_what_the_mcp1_environment_holds() -> None:
    assert installed(venv("mcp1"))["mcp"].startswith("1.")


# The start-up budget of a core command (issue #9: `classify FILE` ≤ 250 ms wall): a command that
# checks no extra's version reads no package metadata (`importlib.metadata` and the `email`
# package it brings cost 20-50 ms on this machine class). `--version` reads it, as it must.
@pytest.mark.parametrize("args", [("classify", "--json", "-"), ("--help",), ("conform", "--builtin", "mcp-verdict")])
def test_a_core_command_does_not_import_the_package_metadata_reader(args: tuple[str, ...]) -> None:
    done = run(venv("core"), "python", "-X", "importtime", "-m", "mcp_verdict", *args, stdin=TOOL_ERROR)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "mcp_verdict" in imported, done.stderr[-2000:]
    assert sorted(imported & {"importlib.metadata", "email"}) == []

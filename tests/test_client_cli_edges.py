"""The CLI at its edges: peer text on a terminal, JSON Lines, connection failures, noise on
stdio, tool lists the SDK cannot model, answers that fail their schema, the limits options.

Every command runs for real as a subprocess (piped, COLUMNS=80) against the raw handshake-era
server in tests/servers/raw_server.py or the demo server; expected values are stated by hand.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcp_verdict.demo import stdio_command

from .processes import free_port

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
RAW = [sys.executable, "-m", "tests.servers.raw_server"]
DEMO = shlex.join(stdio_command())
ESC = "\x1b"


def cli(*args: str, stdin: str | None = None, timeout: float = 60, columns: int = 80,
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False, cwd=ROOT,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": str(columns), "TERM": "xterm-256color"})


def raw(*flags: str) -> str:
    return shlex.join([*RAW, *flags])


def lines_fit(text: str, width: int = 80) -> bool:
    return all(len(line) <= width for line in text.splitlines())


# --- terminal truth -------------------------------------------------------------------------------

HOSTILE_SHOWN = ["[/]", "[bold]bold?[/bold]", "\\x1b]0;pwned\\a", "\\x1b[2J", "[blink]x"]


def test_classify_prints_peer_text_literally_and_folds_long_lines() -> None:
    message = "[/] [bold]bold?[/bold] \x1b]0;pwned\x07 \x1b[2J [blink]x " + "L" * 10_000
    response = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": message}})
    run = cli("classify", stdin=response)
    assert run.returncode == 13, run.stderr
    assert ESC not in run.stdout and "\x07" not in run.stdout
    for shown in HOSTILE_SHOWN:
        assert shown in run.stdout, shown
    assert run.stdout.count("L") == 10_000  # folded, never cut
    assert lines_fit(run.stdout)


@pytest.mark.parametrize(("tool", "status", "kind"), [("fail", 12, "tool_error"), ("invalid", 13, "protocol_error"),
                                                      ("echo", 0, "normal_complete")])
def test_call_prints_peer_text_literally(tool: str, status: int, kind: str) -> None:
    run = cli("call", "--stdio", raw("--hostile"), tool, '{"text": "[/]"}')
    assert run.returncode == status, run.stdout + run.stderr
    assert run.stdout.startswith(f"verdict   {kind}")
    assert ESC not in run.stdout and "\x07" not in run.stdout
    for shown in HOSTILE_SHOWN:
        assert shown in run.stdout.replace("\n", ""), shown
    assert lines_fit(run.stdout)


@pytest.mark.parametrize("columns", [80, 300])
def test_tools_prints_peer_text_literally(columns: int) -> None:
    run = cli("tools", "--stdio", raw("--hostile"), columns=columns)
    assert run.returncode == 0, run.stderr
    assert ESC not in run.stdout and "\x07" not in run.stdout
    assert lines_fit(run.stdout, columns)
    if columns == 300:  # wide enough for the name on one line: shown exactly
        assert "evil[/] [bold]bold?[/bold] \\x1b]0;pwned\\a \\x1b[2J [blink]x" in run.stdout


def test_json_stays_byte_faithful() -> None:
    run = cli("call", "--stdio", raw("--hostile"), "fail", "{}", "--json")
    data = json.loads(run.stdout)
    assert "\x1b]0;pwned\x07" in data["verdict"]["content"][0]["text"]
    assert json.loads(data["rounds"][0]["response"])["result"]["isError"] is True


# --- JSON Lines -------------------------------------------------------------------------------------

GOOD = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
STRING_FLAG = '{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[],"isError":"false"}}'


@pytest.mark.parametrize(("text", "expected"), [
    # (input, [(line or None, kind, first finding code or None)])
    (f"not json\n{GOOD}\n{STRING_FLAG}\n", [(1, "unclassified", "json.syntax"), (2, "normal_complete", None),
                                           (3, "unclassified", "result.is_error")]),
    (f"{GOOD}\n\n{{\"jsonrpc\": \"2.0\", \"id\": 3, \"result\": {{\"x\": NaN}}}}\n",
     [(1, "normal_complete", None), (3, "unclassified", "json.syntax")]),
    ("[" * 1000 + "]" * 1000 + "\n", [(None, "unclassified", "json.too_deep")]),
    ("[" * 1000 + "\n" + "]" * 1000 + "\n", [(None, "unclassified", "json.too_deep")]),
    (json.dumps(json.loads(GOOD), indent=2), [(None, "normal_complete", None)]),
    (f"{GOOD}\n{GOOD}", [(1, "normal_complete", None), (2, "normal_complete", None)]),
    # RFC 8259 s2: JSON's whitespace is space, tab, LF and CR; a line of FF or VT is no blank line
    # (Python's bytes.strip says it is) but a bad one, judged where it is.
    (f"{GOOD}\n{GOOD}\n\f\n", [(1, "normal_complete", None), (2, "normal_complete", None),
                                (3, "unclassified", "json.syntax")]),
    (f"{GOOD}\n \x0b\t\n{GOOD}\n \t\r\n", [(1, "normal_complete", None), (2, "unclassified", "json.syntax"),
                                           (3, "normal_complete", None)]),
])
def test_json_lines_detection_never_raises_and_keeps_every_line(
        text: str, expected: list[tuple[int | None, str, str | None]]) -> None:
    run = cli("classify", "--json", stdin=text)
    assert "Traceback" not in run.stderr, run.stderr
    got = []
    for line in run.stdout.splitlines():
        data = json.loads(line)
        got.append((data.get("line"), data["kind"], data["findings"][0]["code"] if data["findings"] else None))
    assert got == expected


def test_classify_limits_options() -> None:
    assert cli("classify", "--max-bytes", "20", stdin=GOOD).returncode == 20
    assert "json.too_large" in cli("classify", "--max-bytes", "20", stdin=GOOD).stdout
    deep = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"a":{"b":{}}}}}'
    assert "json.too_deep" in cli("classify", "--max-depth", "3", stdin=deep).stdout
    assert cli("classify", "--max-depth", "10", stdin=deep).returncode == 0
    assert cli("classify", "--max-depth", "201", stdin=GOOD).returncode == 2


# --- connection truth ----------------------------------------------------------------------------

EXITS = shlex.join([sys.executable, "-c", "import sys; print('config file missing', file=sys.stderr); sys.exit(4)"])
SILENT = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])


@pytest.mark.parametrize(("args", "says"), [
    (["--url", f"http://127.0.0.1:{free_port()}/mcp"], "connection refused"),
    (["--url", "127.0.0.1:8000/mcp"], "has no http:// or https:// scheme"),
    (["--url", "ftp://127.0.0.1/mcp"], "scheme 'ftp' is not http or https"),
    (["--stdio", "no-such-command-mcp-verdict"], "cannot start the server"),
    (["--stdio", EXITS], "exited with status 4; its stderr ends: config file missing"),
    (["--stdio", SILENT, "--timeout", "1", "--mode", "legacy"], "no answer within 1 s (during initialize)"),
    # What the server said is the cause; its exit when the client then closed its stdin is not
    # (this said "the server exited with status 0").
    (["--stdio", raw("--refuse-initialize"), "--mode", "legacy"],
     "the server answered initialize with error -32602: Unsupported protocol version (during initialize)"),
    (["--stdio", raw("--refuse-initialize")],  # auto: server/discover refused as well, then initialize
     "the server answered initialize with error -32602: Unsupported protocol version (during initialize)"),
    # (3 s: the server, a Python process, prints its line within the wait however loaded the machine: ~20-70 ms)
    (["--stdio", raw("--log-first"), "--timeout", "3", "--mode", "legacy"],
     "no answer within 3 s; the server wrote 1 line that is not a JSON-RPC message on its stdout"
     " (first: 'starting up...'): the likely cause (during initialize)"),
    # a line break in the command is shown as its escape: the message stays one line
    (["--stdio", shlex.join([sys.executable, "-c", "import time\ntime.sleep(60)"]), "--timeout", "1",
      "--mode", "legacy"], "-c 'import time\\ntime.sleep(60)': no answer within 1 s (during initialize)"),
])
def test_a_failed_connection_is_one_line_naming_its_cause(args: list[str], says: str) -> None:
    started = time.monotonic()
    run = cli("call", *args, "get_forecast", "{}")
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1, run.stderr  # one line, whatever the terminal's width
    first = run.stderr
    assert first.startswith("mcp-verdict: cannot connect to"), run.stderr
    assert says in first, run.stderr
    assert "Traceback" not in run.stderr and "ExceptionGroup" not in run.stderr
    assert time.monotonic() - started < 45  # (a wait not bounded runs into cli()'s 60 s: the servers sleep 60 s)


def test_the_timeout_bounds_connecting_in_auto_mode() -> None:
    started = time.monotonic()
    run = cli("call", "--stdio", SILENT, "--timeout", "1", "get_forecast", "{}")
    elapsed = time.monotonic() - started
    assert run.returncode == 3
    assert "no answer within 1 s" in " ".join(run.stderr.split())
    # discover 1 s + initialize 1 s + the stop grace, plus two interpreter starts (~2 s each on a
    # loaded machine: 12.3 s was seen at load 10); a wait the timeout did not bound runs into cli()'s 60 s
    assert elapsed < 30


def test_an_http_status_without_a_json_rpc_body() -> None:
    from mcp_verdict.demo import serve_http_in_thread

    with serve_http_in_thread() as url:
        run = cli("call", "--url", url.replace("/mcp", "/elsewhere"), "get_forecast", "{}")
    assert run.returncode == 3
    assert "HTTP 404" in run.stderr


# --- noise on stdio, lists the SDK cannot model, modes ----------------------------------------------

def test_a_debug_line_before_the_answer_is_a_warning_not_the_answer() -> None:
    run = cli("call", "--stdio", raw("--debug-line"), "echo", '{"text": "hi"}', "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["verdict"]["kind"] == "normal_complete" and data["decision"]["action"] == "accept"
    warnings = [f for f in data["verdict"]["findings"] if f["code"] == "transport.noise"]
    assert len(warnings) == 1 and warnings[0]["severity"] == "warning"
    assert "debug: handling tools/call" in warnings[0]["message"]
    frames = data["rounds"][0]["frames"]
    assert next(f["data"] for f in frames if f["direction"] == "in") == "debug: handling tools/call"


def test_noise_and_no_answer_names_the_noise_as_the_likely_cause() -> None:
    # (5 s: the timeout bounds connecting as well, a Python server's start and its handshake)
    run = cli("call", "--stdio", raw("--debug-only"), "echo", '{"text": "hi"}', "--timeout", "5", "--json")
    assert run.returncode == 20
    data = json.loads(run.stdout)
    codes = [f["code"] for f in data["verdict"]["findings"]]
    assert codes == ["transport.timeout", "transport.noise"]
    assert "the likely cause" in data["verdict"]["findings"][0]["message"]
    assert data["decision"]["action"] == "check_state"


def test_a_tool_list_the_sdk_cannot_model_is_a_warning_and_the_call_works() -> None:
    listed = cli("tools", "--stdio", raw("--untyped-schemas"), "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert [t["name"] for t in data["tools"]] == ["echo", "fail", "invalid"]
    assert data["tools"][0]["inputSchema"] == {"properties": {"text": {"type": "string"}}}  # as sent
    assert len(data["warnings"]) == 3 and "inputSchema.type" in data["warnings"][0]
    called = cli("call", "--stdio", raw("--untyped-schemas"), "echo", '{"text": "hi"}')
    assert called.returncode == 0, called.stdout + called.stderr
    assert "warning tool 'echo': the SDK cannot model it" in " ".join(called.stdout.split())


@pytest.mark.parametrize(("mode", "status", "version"), [("auto", 0, "2025-11-25"), ("legacy", 0, "2025-11-25"),
                                                         ("modern", 3, None)])
def test_modes_against_a_handshake_era_server(mode: str, status: int, version: str | None) -> None:
    run = cli("call", "--stdio", raw(), "echo", '{"text": "hi"}', "--mode", mode, "--json")
    assert run.returncode == status, run.stdout + run.stderr
    if version is not None:
        assert json.loads(run.stdout)["version"] == version
    else:
        assert "mode 'modern' does not fall back to initialize" in " ".join(run.stderr.split())


@pytest.mark.parametrize(("mode", "status", "version"), [("auto", 0, "2026-07-28"), ("modern", 0, "2026-07-28"),
                                                         ("legacy", 0, "2025-11-25")])
def test_modes_against_the_dual_era_demo_server(mode: str, status: int, version: str) -> None:
    run = cli("call", "--stdio", DEMO, "get_forecast", '{"city": "Oslo"}', "--mode", mode, "--json")
    assert run.returncode == status, run.stdout + run.stderr
    assert json.loads(run.stdout)["version"] == version


# --- answers, limits ------------------------------------------------------------------------------

def test_an_answer_that_fails_the_requested_schema_stops_the_call(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"form": {"*": {"confirm": "yes"}}}))
    run = cli("call", "--stdio", DEMO, "confirm_delete", '{"path": "/tmp/x"}', "--answers", str(answers))
    assert run.returncode == 2, run.stdout + run.stderr
    text = " ".join(run.stderr.split())
    assert "the answer for 'confirm_delete' in --answers does not fit the requested schema" in text
    assert "/confirm" in text and "boolean" in text
    assert "accept" not in run.stdout


def test_call_limits_options() -> None:
    run = cli("call", "--stdio", DEMO, "get_forecast", '{"city": "Oslo"}', "--max-bytes", "300", "--json")
    assert run.returncode == 20
    assert [f["code"] for f in json.loads(run.stdout)["verdict"]["findings"]] == ["json.too_large"]


def test_invalid_utf8_is_shown_as_base64_in_json() -> None:
    run = cli("call", "--stdio", DEMO, "invalid_utf8", "{}", "--json")
    data = json.loads(run.stdout)
    first = data["rounds"][0]
    assert "response" not in first and "response_base64" in first
    import base64

    assert b"caf\xe9" in base64.b64decode(first["response_base64"])

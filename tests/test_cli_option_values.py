"""The CLI's option and argument values at their edges: nesting too deep to read, numbers
standard JSON has no spelling for. Each runs the real CLI as a subprocess against a real server
(tests/servers/misbehaving.py) where one is needed; expected values are stated by hand.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "mcp_verdict"]
SERVER = shlex.join([sys.executable, "-m", "tests.servers.misbehaving", "stdio", "ok"])
DEEP = "[" * 100_000
GOOD = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, check=False, cwd=ROOT,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def _answers(tmp_path: Path) -> str:
    path = tmp_path / "answers.json"
    path.write_text(DEEP)
    return str(path)


# (name, arguments, the option the usage error names, what it says) - exit 2 for each: a usage
# error, never a RecursionError traceback (7), never NaN/Infinity/1e400 sent as null (8: RFC
# 8259 s6, "Numeric values that cannot be represented ... (such as Infinity and NaN) are not
# permitted").
USAGE_CASES: list[tuple[str, list[str], str, str]] = [
    ("classify --capabilities nested too deep", ["classify", "--capabilities", DEEP, "-"], "--capabilities",
     "nested too deeply to read"),
    ("classify --request-id nested too deep", ["classify", "--request-id", DEEP, "-"], "--request-id",
     "a request id is a string or an integer"),
    ("call ARGUMENTS nested too deep", ["call", "--stdio", SERVER, "t", DEEP], "ARGUMENTS",
     "nested too deeply to read"),
    ("call --answers nested too deep", ["call", "--stdio", SERVER, "t", "--answers", "ANSWERS"], "--answers",
     "nested too deeply to read"),
    ("call ARGUMENTS with NaN", ["call", "--stdio", SERVER, "t", '{"a": NaN}'], "ARGUMENTS",
     "NaN is not standard JSON"),
    ("call ARGUMENTS with -Infinity", ["call", "--stdio", SERVER, "t", '{"a": [1, -Infinity]}'], "ARGUMENTS",
     "-Infinity is not standard JSON"),
    ("call ARGUMENTS with 1e400", ["call", "--stdio", SERVER, "t", '{"b": 1e400}'], "ARGUMENTS",
     "1e400 is not standard JSON here: it overflows a double"),
    # RFC 9110 s5.1 (a field name is a token) and s5.5 (a field value: no CR, LF or NUL): the
    # request could not be sent as asked (it was "cannot connect", status 3)
    ("call --header with a line break", ["call", "--url", "http://127.0.0.1:9/mcp", "--header", "X-A: b\nc", "t"],
     "--header", "'X-A: b\\nc': a header value is visible ASCII, spaces and tabs, or Latin-1"),
    ("call --header with a space in its name", ["call", "--url", "http://127.0.0.1:9/mcp", "--header", "X A: b", "t"],
     "--header", "'X A: b': a header name is letters, digits"),
    # click's FloatRange lets nan and inf through; the client refused them without naming the option
    ("call --timeout nan", ["call", "--stdio", SERVER, "t", "--timeout", "nan"], "'--timeout'",
     "nan is not a finite number of seconds"),
    ("call --timeout inf", ["call", "--stdio", SERVER, "t", "--timeout", "inf"], "'--timeout'",
     "inf is not a finite number of seconds"),
    ("tools --timeout -inf", ["tools", "--stdio", SERVER, "--timeout", "-inf"], "'--timeout'",
     "-inf is not in the range x>0."),
    ("call --header beyond Latin-1", ["call", "--url", "http://127.0.0.1:9/mcp", "--header", "X-A: \u20ac", "t"],
     "--header", "'X-A: \u20ac': a header value is visible ASCII"),
]


@pytest.mark.parametrize(("name", "args", "option", "says"), USAGE_CASES, ids=[c[0] for c in USAGE_CASES])
def test_bad_option_values_are_usage_errors(name: str, args: list[str], option: str, says: str,
                                            tmp_path: Path) -> None:
    args = [_answers(tmp_path) if a == "ANSWERS" else a for a in args]
    done = cli(*args, stdin=GOOD)
    assert done.returncode == 2, done.stderr
    assert f"Invalid value for {option}: {says}" in done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr


def test_large_finite_numbers_in_arguments_are_sent_as_written() -> None:
    done = cli("call", "--json", "--stdio", SERVER, "t", '{"a": 1e300, "b": -0.5}')
    assert done.returncode == 0, done.stderr
    sent = json.loads(json.loads(done.stdout)["rounds"][0]["request"])
    assert sent["params"]["arguments"] == {"a": 1e300, "b": -0.5}


# --- classify reads a bounded amount --------------------------------------------------------------

PRETTY = json.dumps(json.loads(GOOD), indent=4)  # 160 bytes: past --max-bytes 100 whole
LONG = '{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"' + \
    "x" * 200 + '"}]}}'
STRING_FLAG = '{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[],"isError":"false"}}'

# (name, flags, input, exit, [(line, kind, first finding code)]) - by hand, with --max-bytes 100:
# an input past the limit is never read whole; judged whole it is json.too_large of its first
# 101 bytes (RFC 8259 s9: a parser may limit the size of texts); JSON Lines go a line at a time,
# an overlong line json.too_large where it is.
BOUNDED_CASES: list[tuple[str, list[str], str, int, list[tuple[int | None, str, str | None]]]] = [
    ("auto: one response past the limit", [], PRETTY, 20, [(None, "unclassified", "json.too_large")]),
    ("auto: JSON Lines past the limit in all, each line within it", [], f"{GOOD}\n\n{STRING_FLAG}\n{GOOD}", 20,
     [(1, "normal_complete", None), (3, "unclassified", "result.is_error"), (4, "normal_complete", None)]),
    ("auto: JSON Lines with an overlong line", [], f"{GOOD}\n{LONG}\r\n{GOOD}\n", 20,
     [(1, "normal_complete", None), (2, "unclassified", "json.too_large"), (3, "normal_complete", None)]),
    ("--lines: an overlong last line without its newline", ["--lines"], f"{GOOD}\r\n{LONG}", 20,
     [(1, "normal_complete", None), (2, "unclassified", "json.too_large")]),
    ("--lines: within the limit", ["--lines"], f"\n{GOOD}\n", 0, [(2, "normal_complete", None)]),
]


@pytest.mark.parametrize(("name", "flags", "text", "status", "expected"), BOUNDED_CASES,
                         ids=[c[0] for c in BOUNDED_CASES])
def test_classify_reads_a_bounded_amount(name: str, flags: list[str], text: str, status: int,
                                         expected: list[tuple[int | None, str, str | None]]) -> None:
    done = cli("classify", "--json", "--max-bytes", "100", *flags, "-", stdin=text)
    assert done.returncode == status, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r.get("line"), r["kind"], r["findings"][0]["code"] if r["findings"] else None) for r in rows] == expected


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_classify_of_an_endless_input_stops_at_the_limit() -> None:
    done = cli("classify", "--json", "--max-bytes", "1000", "/dev/zero")
    assert done.returncode == 20
    assert json.loads(done.stdout)["findings"][0]["code"] == "json.too_large"


# --- an absurd terminal width -----------------------------------------------------------------

@pytest.mark.parametrize("columns", ["0", "-5", "12"])
def test_an_absurd_columns_still_prints_the_verdict(columns: str) -> None:
    import os

    done = subprocess.run([*CLI, "classify", "-"], input=STRING_FLAG, capture_output=True, text=True, timeout=60,
                          check=False, cwd=ROOT, env={**os.environ, "COLUMNS": columns})
    assert done.returncode == 20
    assert "unclassified" in done.stdout and "result.is_error" in done.stdout


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:99999/mcp", "has a bad port (Port out of range 0-65535)"),
    ("http://127.0.0.1:abc/mcp", "has a bad port (Port could not be cast to integer value as 'abc')"),
])
def test_a_url_with_a_bad_port_is_a_bad_url(url: str, says: str) -> None:
    from mcp_verdict.client._connect import check_url

    assert check_url(url) == f"the URL {url!r} {says}"
    done = cli("call", "--url", url, "t")
    assert done.returncode == 3 and says in done.stderr and "Traceback" not in done.stderr, done.stderr

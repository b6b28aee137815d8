"""``mcp-verdict conform``: a receiver that hangs on a case, or ends its process during one, ends
that case, not the run (README "Receiver conformance kit").

The receiver runs in a process of its own. A case it has not answered within ``--timeout``
seconds is stopped: an ``error`` outcome naming the limit; a case during which its process ends
(``os._exit``, a signal) is an ``error`` outcome with the exit status or the signal. The run goes
on with the next case and ends with the whole report. Before, a hang hung ``conform`` for ever
and an ``os._exit`` ended it with the receiver's status and no report at all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mcp_verdict

CLI = [sys.executable, "-m", "mcp_verdict"]
SRC = str(Path(mcp_verdict.__file__).resolve().parents[1])
VERSION = "2024-11-05"
CASES = 222  # the corpus's cases of 2024-11-05
FIRST = "content/missing@2024-11-05"  # the first of them

RECEIVERS = '''
import os, signal, time
from mcp_verdict import classify

MARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mark")


def _first():
    """Whether this is the run's first call, in whichever process (a file marks it)."""
    try:
        os.close(os.open(MARK, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _receiver(misbehave, every=False):
    def receiver(response, **options):
        if every or _first():
            misbehave()
        return classify(response, **options)
    receiver.mcp_receiver_input = "both"
    return receiver


def _spin():
    while True:
        pass


sleeps = _receiver(lambda: time.sleep(3600))
spins = _receiver(_spin)
exits_3 = _receiver(lambda: os._exit(3))
exits_0 = _receiver(lambda: os._exit(0))
killed = _receiver(lambda: os.kill(os.getpid(), signal.SIGKILL))
segfault = _receiver(lambda: os.kill(os.getpid(), signal.SIGSEGV))
exits_always = _receiver(lambda: os._exit(3), every=True)
prints_then_exits = _receiver(lambda: (print("said before", flush=True), os._exit(5)))


def _forks_then_exits():
    """A process of its own, holding the answers' pipe, that outlives the receiver's."""
    if os.fork() == 0:
        with open(MARK + ".pid", "w") as file:
            file.write(str(os.getpid()))
        time.sleep(3600)
        os._exit(0)
    for _ in range(6000):
        if os.path.exists(MARK + ".pid") and open(MARK + ".pid").read():
            break
        time.sleep(0.01)
    os._exit(4)


forks_then_exits = _receiver(_forks_then_exits)


def _says_and_sleeps():
    with open(MARK + ".pid", "w") as file:
        file.write(str(os.getpid()))
    time.sleep(3600)


says_and_sleeps = _receiver(_says_and_sleeps)
'''

STOPPED = ("the receiver gave no answer within 2 s (the time limit per case): it was stopped, and the run went on "
           "with the next case")
HANGS = ("sleeps", "spins")  # (run with --timeout 2; the others with the default, 10 s)


def _exited(how: str) -> str:
    return f"the receiver's process {how} during this case; the run went on with the next case"


EXIT_3 = _exited("exited with status 3 (os._exit, or a crash of its code)")

# (receiver, status, {failing case id: reason} (None: every case, with the one reason), passed)
CASES_TABLE = [
    ("sleeps", 1, {FIRST: STOPPED}, CASES - 1),
    ("spins", 1, {FIRST: STOPPED}, CASES - 1),
    ("exits_3", 1, {FIRST: EXIT_3}, CASES - 1),
    ("exits_0", 1, {FIRST: _exited("exited with status 0 (os._exit, or a crash of its code)")}, CASES - 1),
    ("killed", 1, {FIRST: _exited("was killed by signal 9 (SIGKILL)")}, CASES - 1),
    ("segfault", 1, {FIRST: _exited("was killed by signal 11 (SIGSEGV)")}, CASES - 1),
    ("exits_always", 1, {None: EXIT_3}, 0),
    pytest.param("forks_then_exits", 1, {FIRST: _exited("exited with status 4 (os._exit, or a crash of its code)")},
                 CASES - 1, marks=pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")),
]


def _conform(tmp: Path, receiver: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp / "receivers.py").write_text(RECEIVERS, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp), SRC]), "COLUMNS": "300"}
    limit = ["--timeout", "2"] if receiver in HANGS else []
    return subprocess.run([*CLI, "conform", f"receivers:{receiver}", "--versions", VERSION, *limit, *args],
                          capture_output=True, text=True, cwd=tmp, env=env, stdin=subprocess.DEVNULL, timeout=300,
                          check=False)


@pytest.mark.skipif(os.name != "posix", reason="receivers run apart where there is fork (POSIX)")
@pytest.mark.parametrize(("receiver", "status", "failing", "passed"), CASES_TABLE)
def test_a_case_the_receiver_hangs_on_or_exits_during_is_an_error_and_the_run_goes_on(
        tmp_path: Path, receiver: str, status: int, failing: dict[str | None, str], passed: int) -> None:
    done = _conform(tmp_path, receiver, "--json")
    assert done.returncode == status, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"] == {"cases": CASES, "pass": passed, "fail": 0, "error": CASES - passed, "skip": 0}
    if None in failing:
        assert {f["reason"] for f in report["failures"]} == {failing[None]}
    else:
        assert {f["id"]: f["reason"] for f in report["failures"]} == failing
    assert all(f["status"] == "error" for f in report["failures"])
    if (tmp_path / "mark.pid").exists():  # what the receiver's process started is ended with it
        assert not _running(int((tmp_path / "mark.pid").read_text()))


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs: an ended one may wait a while for PID 1 to reap it (in a
    container), a zombie (Linux's /proc tells them apart)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(os.name != "posix", reason="receivers run apart where there is fork (POSIX)")
@pytest.mark.parametrize(("receiver", "lines"), [
    ("sleeps", [f"ERROR {FIRST} ({VERSION}): {STOPPED}"]),
    ("prints_then_exits", ["said before",
                           f"ERROR {FIRST} ({VERSION}): " + _exited("exited with status 5 (os._exit, or a crash of "
                                                                     "its code)")]),
])
def test_the_terminal_report_names_the_case(tmp_path: Path, receiver: str, lines: list[str]) -> None:
    done = _conform(tmp_path, receiver)
    assert done.returncode == 1, done.stderr
    out = done.stdout.splitlines()
    assert [line.split("  ")[0] for line in out[:len(lines)]] == lines  # (then the case's description)
    assert out[-1] == f"{CASES} cases: {CASES - 1} passed, 0 failed, 1 errors, 0 skipped: FAILS"


@pytest.mark.parametrize(("value", "said"), [
    ("0", "Invalid value for '--timeout': 0.0 is not in the range 0<x<=86400."),
    ("-1", "Invalid value for '--timeout': -1.0 is not in the range 0<x<=86400."),
    ("soon", "Invalid value for '--timeout': 'soon' is not a valid float range."),
])
def test_a_timeout_that_is_no_time_is_a_usage_error(tmp_path: Path, value: str, said: str) -> None:
    done = subprocess.run([*CLI, "conform", "--builtin", "minimal", "--timeout", value], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "300"}, timeout=60, check=False)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, f"Error: {said}")


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process is POSIX")
def test_ctrl_c_during_a_hung_case_stops_the_receivers_process(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) while the receiver hangs: ``conform`` ends as every command does (130, one
    line), and the receiver's process is ended with it, not left behind."""
    (tmp_path / "receivers.py").write_text(RECEIVERS, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), SRC])}
    args = ["conform", "receivers:says_and_sleeps", "--versions", VERSION, "--timeout", "600"]
    process = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=env, stdin=subprocess.DEVNULL)
    said = tmp_path / "mark.pid"
    for _ in range(6000):  # (at most 60 s: the receiver's process says it is in the case)
        if said.exists() and said.read_text():
            break
        time.sleep(0.01)
    receiver = int(said.read_text())
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "mcp-verdict: interrupted\n")
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(receiver, 0)

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
hangs_always = _receiver(lambda: time.sleep(3600), every=True)


def _call_number():
    """How many calls the receiver has had, this one included, in whichever process (a file counts)."""
    try:
        with open(MARK + ".calls") as file:
            calls = int(file.read()) + 1
    except FileNotFoundError:
        calls = 1
    with open(MARK + ".calls", "w") as file:
        file.write(str(calls))
    return calls


def hangs_but_third(response, **options):
    """Hangs on every call but the third."""
    if _call_number() != 3:
        time.sleep(3600)
    return classify(response, **options)


hangs_but_third.mcp_receiver_input = "both"


def hangs_every_other(response, **options):
    """Hangs on every odd call up to the 21st (eleven of them), answers every other call."""
    calls = _call_number()
    if calls % 2 and calls <= 21:
        time.sleep(3600)
    return classify(response, **options)


hangs_every_other.mcp_receiver_input = "both"


def _said(name, pid):
    """``pid`` in the file MARK.name, whole (written, then renamed: never read half written)."""
    with open(MARK + ".tmp", "w") as file:
        file.write(str(pid))
    os.replace(MARK + ".tmp", MARK + "." + name)


def _spawns_and_sleeps():
    """A process of its own started (a server the receiver talks to: here, ``sleep``), then the
    receiver sleeps for an hour; the child's pid is said first, then the receiver's."""
    import subprocess
    child = subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _said("child", child.pid)
    _said("pid", os.getpid())
    time.sleep(3600)


def _spawns_and_exits():
    import subprocess
    child = subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _said("child", child.pid)
    os._exit(6)


spawns_and_sleeps = _receiver(_spawns_and_sleeps)
spawns_and_exits = _receiver(_spawns_and_exits)
'''

THREADED = '''
import threading, time
from mcp_verdict import classify

_lock = threading.Lock()
_held = threading.Event()


def _hold():
    with _lock:
        _held.set()
        time.sleep(3600)


threading.Thread(target=_hold, name="holder", daemon=True).start()  # at import, as a client's pool may
_held.wait()


def answers(response, **options):
    return classify(response, **options)


def locked(response, **options):
    with _lock:  # held, in the receiver's process, by a thread that is not there
        return classify(response, **options)


answers.mcp_receiver_input = locked.mcp_receiver_input = "both"
'''

# The limit the receivers that hang are given. An answered case takes milliseconds (the rows
# passed, on a 2-core machine at load 7, with --timeout 0.1): 1 s is ten times that and more,
# and far below the hang (an hour). Each case stopped waits it out: 57 stops in this file.
LIMIT = "1"
STOPPED = (f"the receiver gave no answer within {LIMIT} s (the time limit per case): it was stopped, and the run "
           "went on with the next case")
HANGS = ("sleeps", "spins", "hangs_always", "hangs_but_third", "locked",
         "spawns_and_sleeps", "hangs_every_other")  # (--timeout LIMIT; the others: 10 s)


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
    # a child of its own (``sleep``) started, then stopped at the limit or ended: the child is ended too
    pytest.param("spawns_and_sleeps", 1, {FIRST: STOPPED}, CASES - 1,
                 marks=pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")),
    pytest.param("spawns_and_exits", 1, {FIRST: _exited("exited with status 6 (os._exit, or a crash of its code)")},
                 CASES - 1, marks=pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")),
]


def _conform(tmp: Path, receiver: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``conform`` on ``receiver`` (a function of RECEIVERS, or ``module:function``)."""
    (tmp / "receivers.py").write_text(RECEIVERS, "utf-8")
    (tmp / "threaded.py").write_text(THREADED, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp), SRC]), "COLUMNS": "300"}
    limit = ["--timeout", LIMIT] if receiver.rpartition(":")[2] in HANGS else []
    path = receiver if ":" in receiver else f"receivers:{receiver}"
    return subprocess.run([*CLI, "conform", path, "--versions", VERSION, *limit, *args],
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
    if (tmp_path / "mark.child").exists():
        assert _ends(int((tmp_path / "mark.child").read_text()))


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs: an ended one may wait a while for PID 1 to reap it (in a
    container), a zombie (Linux's /proc tells them apart)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _in_group(group: int) -> list[int]:
    """The processes running in process group ``group`` (from /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as file:
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:  # (ended meanwhile)
                continue
            if fields[0] != "Z" and int(fields[2]) == group:
                pids.append(int(name))
    return pids


def _ends(pid: int) -> bool:
    """Whether process ``pid`` ends within 20 s (a SIGKILL sent is not yet a process ended: no
    assertion on how soon); one still running then is killed, not left behind by the test."""
    for _ in range(2000):
        if not _running(pid):
            return True
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
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


def _in_a_hung_case(tmp_path: Path, out: int, receiver: str = "says_and_sleeps") -> tuple[subprocess.Popen[str], int]:
    """``conform`` started on a receiver that sleeps for an hour in its first case (its output
    to ``out``), and the pid of the receiver's process, once it is in that case."""
    (tmp_path / "receivers.py").write_text(RECEIVERS, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), SRC])}
    args = ["conform", f"receivers:{receiver}", "--versions", VERSION, "--timeout", "600"]
    process = subprocess.Popen([*CLI, *args], stdout=out, stderr=out, text=True, cwd=tmp_path, env=env,
                               stdin=subprocess.DEVNULL)
    said = tmp_path / "mark.pid"
    for _ in range(6000):  # (at most 60 s: the receiver's process says it is in the case)
        if said.exists() and said.read_text():
            break
        time.sleep(0.01)
    return process, int(said.read_text())


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a process is POSIX")
def test_ctrl_c_during_a_hung_case_stops_the_receivers_process(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) while the receiver hangs: ``conform`` ends as every command does (130, one
    line), and the receiver's process is ended with it, not left behind."""
    process, receiver = _in_a_hung_case(tmp_path, subprocess.PIPE)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "mcp-verdict: interrupted\n")
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(receiver, 0)


# --- a receiver that hangs on every case: the run gives up -----------------------------------------

IDS = [case.id for case in mcp_verdict.corpus.load(versions=[VERSION])]  # (the corpus's order)


def _gave_up(cases: int) -> str:
    return (f"the run gave up after {cases} case{'s' if cases > 1 else ''} in a row gave no answer within {LIMIT} s "
            f"(--timeout; --give-up-after {cases})")


def _gave_up_total(cases: int) -> str:
    return (f"the run gave up after {cases} case{'s' if cases > 1 else ''} in all gave no answer within {LIMIT} s "
            f"(--timeout; --give-up-total {cases})")


def _stopped_notice(index: int, then: str) -> str:
    return f"mcp-verdict: case {IDS[index]} ({VERSION}) gave no answer within {LIMIT} s: stopped; {then}"


# (receiver, arguments, exit status, summary (error: the rest), the cases not run, why)
GIVE_UP_TABLE = [
    ("hangs_always", [], 3, {"cases": 3, "pass": 0}, CASES - 3, _gave_up(3)),
    ("hangs_always", ["--give-up-after", "1"], 3, {"cases": 1, "pass": 0}, CASES - 1, _gave_up(1)),
    # stopped, stopped, answered (the count starts again), stopped three times: 6 cases run
    ("hangs_but_third", [], 3, {"cases": 6, "pass": 1}, CASES - 6, _gave_up(3)),
    ("sleeps", ["--give-up-after", "2"], 1, {"cases": CASES, "pass": CASES - 1}, 0, None),
]


@pytest.mark.skipif(os.name != "posix", reason="receivers run apart where there is fork (POSIX)")
@pytest.mark.parametrize(("receiver", "args", "status", "err", "last"), [
    ("hangs_always", [], 3, [
        _stopped_notice(0, "the run goes on in a new process (1 in a row; it gives up at 3)"),
        _stopped_notice(1, "the run goes on in a new process (2 in a row; it gives up at 3)"),
        _stopped_notice(2, f"3 in a row: the run gives up, {CASES - 3} cases not run"),
    ], [f"NOT RUN {CASES - 3} cases: {_gave_up(3)}",
        f"3 of {CASES} cases run: 0 passed, 0 failed, 3 errors, 0 skipped; {CASES - 3} not run: INCOMPLETE"]),
    ("sleeps", ["--give-up-after", "0"], 1, [_stopped_notice(0, "the run goes on in a new process")],
     [f"{CASES} cases: {CASES - 1} passed, 0 failed, 1 errors, 0 skipped: FAILS"]),
    # cases 0, 2, 4 and 6 stopped, none two in a row
    ("hangs_every_other", ["--give-up-total", "4"], 3, [
        _stopped_notice(0, "the run goes on in a new process (1 in a row; it gives up at 3)"),
        _stopped_notice(2, "the run goes on in a new process (1 in a row, 2 in all; it gives up at 3 in a row)"),
        _stopped_notice(4, "the run goes on in a new process (1 in a row, 3 in all; it gives up at 4 in all)"),
        _stopped_notice(6, f"4 in all: the run gives up, {CASES - 7} cases not run"),
    ], [f"NOT RUN {CASES - 7} cases: {_gave_up_total(4)}",
        f"7 of {CASES} cases run: 3 passed, 0 failed, 4 errors, 0 skipped; {CASES - 7} not run: INCOMPLETE"]),
    ("hangs_always", ["--give-up-after", "0", "--give-up-total", "2"], 3, [
        _stopped_notice(0, "the run goes on in a new process (1 in all; it gives up at 2 in all)"),
        _stopped_notice(1, f"2 in all: the run gives up, {CASES - 2} cases not run"),
    ], [f"NOT RUN {CASES - 2} cases: {_gave_up_total(2)}",
        f"2 of {CASES} cases run: 0 passed, 0 failed, 2 errors, 0 skipped; {CASES - 2} not run: INCOMPLETE"]),
])
def test_the_terminal_says_each_stop_on_stderr_and_the_cases_not_run(
        tmp_path: Path, receiver: str, args: list[str], status: int, err: list[str], last: list[str]) -> None:
    done = _conform(tmp_path, receiver, *args)
    assert done.returncode == status, done.stderr
    assert done.stderr.splitlines() == err
    assert done.stdout.splitlines()[-len(last):] == last


def test_help_names_the_give_up_option() -> None:
    done = subprocess.run([*CLI, "conform", "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "300"}, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert ("--give-up-after N Give the run up after N cases in a row stopped at --timeout (a receiver that "
            "hangs on every case): the cases left are reported as not run, exit status 3. 0: never give up. "
            "[default: 3; x>=0]") in " ".join(done.stdout.split())  # (folded as the width says)
    assert ("--give-up-total N Give the run up after N cases in all stopped at --timeout, in a row or not (a "
            "receiver that hangs on every other case): the cases left are reported as not run, exit status 3. 0: "
            "no such limit. Default 10, or 0 when --give-up-after is 0 (never give up). [x>=0]"
            ) in " ".join(done.stdout.split())


# --- a receiver that hangs on every other case: the run gives up after cases stopped in all -------

# (receiver, arguments, exit status, summary (error: the rest), the cases not run, why). Before, no
# count gave such a run up: hangs_every_other's 11 cases stopped, at 10 s each, were 110 s of waiting
# (half the 1,757 cases, had it hung on every other case of them all: 2⅓ hours).
GIVE_UP_TOTAL_TABLE = [
    # cases 0, 2, ..., 18 stopped (10 in all, none two in a row), cases 1, 3, ..., 17 passed: 19 cases run
    ("hangs_every_other", [], 3, {"cases": 19, "pass": 9}, CASES - 19, _gave_up_total(10)),
    ("hangs_every_other", ["--give-up-total", "4"], 3, {"cases": 7, "pass": 3}, CASES - 7, _gave_up_total(4)),
    ("hangs_every_other", ["--give-up-after", "0", "--give-up-total", "2"], 3, {"cases": 3, "pass": 1}, CASES - 3,
     _gave_up_total(2)),
    # the total reached first; both at once: the count in a row's reason
    ("hangs_always", ["--give-up-after", "5", "--give-up-total", "2"], 3, {"cases": 2, "pass": 0}, CASES - 2,
     _gave_up_total(2)),
    ("hangs_always", ["--give-up-total", "3"], 3, {"cases": 3, "pass": 0}, CASES - 3, _gave_up(3)),
    # --give-up-after 0 never gives up (as before), unless --give-up-total is given: its 11 stops, the whole run
    ("hangs_every_other", ["--give-up-after", "0"], 1, {"cases": CASES, "pass": CASES - 11}, 0, None),
]


@pytest.mark.skipif(os.name != "posix", reason="receivers run apart where there is fork (POSIX)")
@pytest.mark.parametrize(("receiver", "args", "status", "summary", "not_run", "reason"),
                         [*GIVE_UP_TABLE, *GIVE_UP_TOTAL_TABLE])
def test_a_run_gives_up_after_cases_stopped_at_the_limit(
        tmp_path: Path, receiver: str, args: list[str], status: int, summary: dict[str, int], not_run: int,
        reason: str | None) -> None:
    done = _conform(tmp_path, receiver, "--json", *args)
    assert done.returncode == status, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"] == {**summary, "fail": 0, "error": summary["cases"] - summary["pass"], "skip": 0}
    assert (report["ok"], report["complete"]) == (False, not_run == 0)
    assert report["not_run"] == {"cases": not_run, "reason": reason, "ids": IDS[CASES - not_run:] if not_run else []}
    assert [f["reason"] for f in report["failures"]] == [STOPPED] * (summary["cases"] - summary["pass"])


# --- the receiver's process ends with conform's --------------------------------------------------

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="at once on Linux (elsewhere: at its next write)")
@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
def test_the_receivers_process_ends_when_conform_is_killed(tmp_path: Path, sent: signal.Signals) -> None:
    """``conform`` killed (no time to stop anything) during a case the receiver hangs on: its
    process does not live on (it slept for an hour)."""
    process, receiver = _in_a_hung_case(tmp_path, subprocess.DEVNULL)
    try:
        process.send_signal(sent)
        assert process.wait(timeout=60) == -sent
        for _ in range(1000):  # (at most 10 s: no assertion on how soon)
            if not _running(receiver):
                break
            time.sleep(0.01)
        assert not _running(receiver)
    finally:
        if _running(receiver):
            os.kill(receiver, signal.SIGKILL)


# (the signal conform gets, its exit status)
ENDINGS = [(signal.SIGKILL, -signal.SIGKILL), (signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130)]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
@pytest.mark.parametrize(("sent", "status"), ENDINGS)
def test_what_the_receiver_started_ends_when_conform_is_killed(tmp_path: Path, sent: signal.Signals,
                                                               status: int) -> None:
    """``conform`` killed, or interrupted, while the receiver hangs in a case after it started a
    process of its own (a server it talks to: ``sleep 3600``): neither the receiver's process nor
    that child lives on. (Before, the receiver's process was ended at once, on Linux, and its
    child ran for the hour, re-parented to PID 1.)"""
    process, receiver = _in_a_hung_case(tmp_path, subprocess.DEVNULL, "spawns_and_sleeps")
    child = int((tmp_path / "mark.child").read_text())
    group = os.getpgid(receiver)
    try:
        assert _running(child) and os.getpgid(child) == group  # (the child runs, before, in the receiver's group)
        assert group != os.getpgid(process.pid)  # (not conform's)
        process.send_signal(sent)
        assert process.wait(timeout=60) == status
        assert (_ends(receiver), _ends(child)) == (True, True)
        for _ in range(2000):  # nothing of the group is left (the keeper that leads it included)
            if not _in_group(group):
                break
            time.sleep(0.01)
        assert _in_group(group) == []
    finally:
        for pid in (receiver, child):
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


# --- threads besides conform's at the fork --------------------------------------------------------

THREADS_WARNING = ("mcp-verdict: warning: this process runs 1 other thread (holder) as it forks the receiver's "
                   "process, which gets none of them: a lock one of them held at the fork (logging's, an import's, "
                   "a client's) stays held there, and a case that needs it hangs until the time limit ({}). Start "
                   "such threads in the receiver, on its first call, not when its module is imported")

THREADS_TABLE = [  # (receiver, arguments, exit status, stderr)
    ("threaded:answers", [], 0, [THREADS_WARNING.format("10 s")]),
    ("threaded:locked", ["--give-up-after", "1"], 3, [
        THREADS_WARNING.format(f"{LIMIT} s"),
        _stopped_notice(0, f"1 in a row: the run gives up, {CASES - 1} cases not run")]),
    ("exits_3", [], 1, []),  # no thread: nothing said
]


@pytest.mark.skipif(os.name != "posix", reason="receivers run apart where there is fork (POSIX)")
@pytest.mark.parametrize(("receiver", "args", "status", "err"), THREADS_TABLE)
def test_threads_at_the_fork_are_said(tmp_path: Path, receiver: str, args: list[str], status: int,
                                      err: list[str]) -> None:
    done = _conform(tmp_path, receiver, "--json", *args)
    assert done.returncode == status, done.stderr
    assert done.stderr.splitlines() == err

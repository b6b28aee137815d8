"""The pytest plugin (entry point ``pytest11``): every corpus case as a test of your receiver.

It does nothing unless ``--mcp-receiver`` is given. Then every selected corpus case becomes one
test item named by its case id (``mcp-receiver::design/string_flag``), which passes when the
receiver returns the case's label, fails with the case's reason and reference when it
returns another, fails with the exception when the receiver raises, and is skipped (with the
reason) when the case cannot be put to this receiver.

The items join a run that selects no test path (``pytest``, or ``testpaths``); when test paths
are given on the command line they join only if one of them names them: ``mcp-receiver`` (every
case) or ``mcp-receiver::CASE_ID`` (that case), e.g. ``pytest tests/test_a.py mcp-receiver``.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from .. import corpus
from ..verdict._peer_text import cut, neutral
from ..verdict._versions import VERSIONS
from ._builtins import BUILTINS
from ._labels import KIND_LABELS, Labels, load_labels
from ._load import load_receiver
from ._receiver import INPUT_MODES, Receiver
from ._run import check_case, describe, split_versions

_NODE = "mcp-receiver"
"""The node id of the kit's collector, and the test path that selects its items."""


@dataclass(frozen=True, slots=True)
class _Suite:
    receiver: Receiver
    labels: Labels
    cases: tuple[corpus.Case, ...]
    selected: frozenset[str] | None
    """The case ids named on the command line (``mcp-receiver::ID``); ``None`` for every case."""


_SUITE = pytest.StashKey[_Suite]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-verdict", "MCP receiver conformance kit (mcp-verdict)")
    group.addoption("--mcp-receiver", metavar="MODULE:FUNCTION", default=None,
                    help="run every corpus case against this receiver (package.module:function, or a built-in: "
                         f"{', '.join(BUILTINS)})")
    group.addoption("--mcp-receiver-labels", metavar="FILE", default=None,
                    help='JSON file mapping each kind to your label, e.g. {"normal_complete": "ok", ...}')
    group.addoption("--mcp-versions", metavar="V[,V...]", default=None,
                    help=f"only the cases of these protocol versions ({', '.join(VERSIONS)})")
    group.addoption("--mcp-receiver-input", choices=INPUT_MODES, default=None,
                    help="what the receiver takes: parsed JSON, raw wire bytes, or both (overrides its "
                         "mcp_receiver_input attribute; default parsed)")


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("mcp_receiver")
    if spec is None:
        given = [flag for flag, dest in (("--mcp-receiver-labels", "mcp_receiver_labels"),
                                         ("--mcp-versions", "mcp_versions"),
                                         ("--mcp-receiver-input", "mcp_receiver_input"))
                 if config.getoption(dest) is not None]
        if given:
            raise pytest.UsageError(f"{', '.join(given)} only apply with --mcp-receiver=MODULE:FUNCTION")
        return
    try:
        receiver = load_receiver(spec, input=config.getoption("mcp_receiver_input"))
        labels_file = config.getoption("mcp_receiver_labels")
        labels = KIND_LABELS if labels_file is None else load_labels(_labels_path(config, labels_file))
        versions = config.getoption("mcp_versions")
        cases = corpus.load(versions=split_versions([] if versions is None else [versions]))
    except ValueError as exc:  # a KitError too: the user's own setup, before any case runs
        raise pytest.UsageError(f"mcp-verdict: {neutral(str(exc))}") from None
    config.stash[_SUITE] = _Suite(receiver, labels, cases, _selection(config, cases))


def _labels_path(config: pytest.Config, given: str) -> Path:
    """A relative label file given on the command line is the working directory's; one given in the
    ini file's ``addopts`` (or ``PYTEST_ADDOPTS``) is the ini file's folder's (the rootdir's without one),
    wherever pytest runs from."""
    path = Path(given)
    args = config.invocation_params.args
    on_command_line = f"--mcp-receiver-labels={given}" in args or any(
        flag == "--mcp-receiver-labels" and value == given for flag, value in itertools.pairwise(args))
    if path.is_absolute() or on_command_line:
        return path
    return (config.inipath.parent if config.inipath is not None else config.rootpath) / path


def _selection(config: pytest.Config, cases: tuple[corpus.Case, ...]) -> frozenset[str] | None:
    """Which kit items the run selects: the test paths that name them are taken out of pytest's
    (they are no files); with other test paths given and none of these, no item."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return None
    named = [arg for arg in config.args if arg == _NODE or arg.startswith(f"{_NODE}::")]
    config.args[:] = [arg for arg in config.args if arg not in named]
    if not named and config.args:
        return frozenset()
    if not named or _NODE in named:
        return None
    ids = {arg.removeprefix(f"{_NODE}::") for arg in named}
    unknown = sorted(ids - {case.id for case in cases})
    if unknown:
        raise pytest.UsageError(f"mcp-verdict: no corpus case {', '.join(map(repr, unknown))} among the selected "
                                "versions")
    return frozenset(ids)


def pytest_report_header(config: pytest.Config) -> str | None:
    suite = config.stash.get(_SUITE, None)
    if suite is None:
        return None
    labels = "" if suite.labels is KIND_LABELS else ", with your labels"
    return (f"mcp-verdict conformance kit: receiver {suite.receiver.name} ({suite.receiver.input} input{labels}), "
            f"{len(suite.cases)} cases of corpus {corpus.CORPUS_VERSION}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    suite = config.stash.get(_SUITE, None)
    if suite is not None and suite.selected != frozenset():
        collector = _Conformance.from_parent(session, name=_NODE, nodeid=_NODE, suite=suite)
        items.extend(session.genitems(collector))  # through the collection hooks, so reports count them


class _Conformance(pytest.Collector):
    def __init__(self, *, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self) -> Iterator[pytest.Item]:
        for case in self.suite.cases:
            if self.suite.selected is None or case.id in self.suite.selected:
                yield CaseItem.from_parent(self, name=case.id, case=case, suite=self.suite)


TRACEBACK_PIECE: Final = 2000
"""Characters shown of each piece of a raising receiver's traceback (a frame's lines, an exception's
message with its type, a note): an exception of 1 MB would be 1 MB a case, 1.7 GB for the corpus."""


def _bounded(piece: str) -> str:
    """One piece of ``traceback.format_exception``, cut at :data:`TRACEBACK_PIECE` with how many
    characters it had, still ending its line."""
    if len(piece) <= TRACEBACK_PIECE:
        return piece
    return cut(piece.removesuffix("\n"), TRACEBACK_PIECE) + "\n"


class ConformanceFailure(AssertionError):
    """The receiver gave a case another label than the corpus."""


class CaseItem(pytest.Item):
    """One corpus case put to the receiver."""

    def __init__(self, *, case: corpus.Case, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.suite = suite

    def runtest(self) -> None:
        outcome = check_case(self.suite.receiver, self.case, self.suite.labels)
        if outcome.status == "skip":
            pytest.skip(neutral(outcome.reason))
        if outcome.status != "pass":
            raise ConformanceFailure(describe(outcome)) from outcome.exception

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        """A wrong label reads as the case and its reason; a raising receiver also shows its own
        traceback (from the receiver's frame down), each piece of it bounded (:data:`TRACEBACK_PIECE`)."""
        failure = excinfo.value
        if not isinstance(failure, ConformanceFailure):
            return super().repr_failure(excinfo, style=style)
        cause = failure.__cause__
        if cause is None:
            return str(failure)
        frames = cause.__traceback__.tb_next if cause.__traceback__ is not None else None
        try:
            shown = "".join(map(_bounded, traceback.format_exception(type(cause), cause, frames))).rstrip()
        except Exception:  # an exception whose __str__ raises in the traceback module's hands
            shown = f"{type(cause).__name__} (its traceback cannot be shown)"
        return f"{failure}\n\n" + neutral(shown)  # the receiver's text: shown, never obeyed by the terminal

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.case.id} ({self.case.source})"

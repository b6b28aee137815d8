"""The pytest plugin (entry point ``pytest11``): every corpus case as a test of your receiver.

It does nothing unless ``--mcp-receiver`` is given. Then every selected corpus case becomes one
test item named by its case id (``mcp-receiver::design/string_flag``), which passes when the
receiver returns the case's label, fails with the case's reason and reference when it
returns another, fails with the exception when the receiver raises, and is skipped (with the
reason) when the case cannot be put to this receiver.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .. import corpus
from ..verdict._versions import VERSIONS
from ._builtins import BUILTINS
from ._labels import KIND_LABELS, Labels, load_labels
from ._load import load_receiver
from ._receiver import INPUT_MODES, Receiver
from ._run import check_case, describe, split_versions


@dataclass(frozen=True, slots=True)
class _Suite:
    receiver: Receiver
    labels: Labels
    cases: tuple[corpus.Case, ...]


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
        labels = KIND_LABELS if labels_file is None else load_labels(labels_file)
        cases = corpus.load(versions=split_versions([config.getoption("mcp_versions") or ""]))
    except ValueError as exc:  # a KitError too: the user's own setup, before any case runs

        raise pytest.UsageError(f"mcp-verdict: {exc}") from None
    config.stash[_SUITE] = _Suite(receiver, labels, cases)


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
    if suite is not None:
        collector = _Conformance.from_parent(session, name="mcp-receiver", nodeid="mcp-receiver", suite=suite)
        items.extend(session.genitems(collector))  # through the collection hooks, so reports count them


class _Conformance(pytest.Collector):
    def __init__(self, *, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self) -> Iterator[pytest.Item]:
        for case in self.suite.cases:
            yield CaseItem.from_parent(self, name=case.id, case=case, suite=self.suite)


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
            pytest.skip(outcome.reason)
        if outcome.status != "pass":
            raise ConformanceFailure(describe(outcome)) from outcome.exception

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        """A wrong label reads as the case and its reason; a raising receiver also shows its own
        traceback (from the receiver's frame down)."""
        failure = excinfo.value
        if not isinstance(failure, ConformanceFailure):
            return super().repr_failure(excinfo, style=style)
        cause = failure.__cause__
        if cause is None:
            return str(failure)
        frames = cause.__traceback__.tb_next if cause.__traceback__ is not None else None
        return f"{failure}\n\n" + "".join(traceback.format_exception(type(cause), cause, frames)).rstrip()

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"{self.case.id} ({self.case.source})"

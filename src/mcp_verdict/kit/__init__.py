"""The receiver conformance kit: the labelled corpus and the mutants, for any application.

An application's *receiver* is the function that decides what a ``tools/call`` response
was. The kit puts every corpus case to it, one test per case, and compares its answer with
the hand-written label::

    pytest --mcp-receiver=myapp.mcp:receive [--mcp-receiver-labels=labels.json]
    mcp-verdict conform myapp.mcp:receive [--labels labels.json] [--json]

From Python::

    from mcp_verdict import corpus, kit
    report = kit.run(kit.load_receiver("myapp.mcp:receive"), corpus.load(versions=["2026-07-28"]))
    report.ok, report.counts(), [kit.describe(o) for o in report.with_status("fail", "error")]

See :mod:`mcp_verdict.kit._receiver` for the calling convention and
:mod:`mcp_verdict.kit._labels` for the label file format.
"""

from ._builtins import BUILTINS, builtin, minimal, sdk_receiver
from ._killtable import KillRow, kill_table
from ._labels import KIND_LABELS, Labels, labels_from, load_labels
from ._load import load_receiver
from ._receiver import (
    INPUT_ATTRIBUTE,
    INPUT_MODES,
    OPTION_NAMES,
    InputMode,
    KitError,
    Receiver,
    receiver_from,
)
from ._run import STATUSES, Outcome, Report, Status, check_case, describe, run, split_versions

LAYER_CONTRACT = {"layers": ("verdict", "judgement", "corpus"), "libraries": ("pytest", "mcp_types", "pydantic")}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = [
    "BUILTINS",
    "INPUT_ATTRIBUTE",
    "INPUT_MODES",
    "KIND_LABELS",
    "OPTION_NAMES",
    "STATUSES",
    "InputMode",
    "KillRow",
    "KitError",
    "Labels",
    "Outcome",
    "Receiver",
    "Report",
    "Status",
    "builtin",
    "check_case",
    "describe",
    "kill_table",
    "labels_from",
    "load_labels",
    "load_receiver",
    "minimal",
    "receiver_from",
    "run",
    "sdk_receiver",
    "split_versions",
]

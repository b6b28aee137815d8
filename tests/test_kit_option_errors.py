"""The kit's public functions refuse what is not theirs to take with a :class:`KitError` (a
ValueError) naming the argument, its value written bounded, before any case runs. Before:
``load_receiver(5)``/``load_receiver(None)`` were a ``TypeError`` (``in`` on no string), a spec of
10 MB was written whole in the message, ``builtin`` of a list nested deep a ``RecursionError``,
``run``/``kill_table`` given no iterable a ``TypeError`` and an endless iterable of no cases read
for ever, ``split_versions`` given a number a ``TypeError`` and a list of numbers an
``AttributeError``. The messages are written by hand."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict import kit

from .hostile import nested_list

SPEC = "receiver: expected a string (package.module:function, or a built-in receiver: mcp-verdict, minimal, sdk)"
CASES = "cases: expected an iterable of corpus.Case objects (as corpus.load() gives them)"
WRONG: list[tuple[str, Callable[[], Any], str]] = [
    ("load_receiver: a number", lambda: kit.load_receiver(5), f"{SPEC}, got 5"),  # type: ignore[arg-type]
    ("load_receiver: None", lambda: kit.load_receiver(None), f"{SPEC}, got None"),  # type: ignore[arg-type]
    ("load_receiver: a spec of 10 MB", lambda: kit.load_receiver("m:" + "x" * 10_000_000),
     "receiver 'm:" + "x" * 74 + "...: expected package.module:function, not 10,000,002 characters"),
    ("builtin: nested deep", lambda: kit.builtin(nested_list()),  # type: ignore[arg-type]
     "unknown built-in receiver " + "[" * 77 + "...; the built-ins are mcp-verdict, minimal, sdk"),
    ("builtin: past the digit limit", lambda: kit.builtin(10**5000),  # type: ignore[arg-type]
     "unknown built-in receiver <an integer of about 5000 digits>; the built-ins are mcp-verdict, minimal, sdk"),
    ("receiver_from: name a number", lambda: kit.receiver_from(kit.minimal, name=5),  # type: ignore[arg-type]
     "name: expected a string or None, got 5"),
    ("receiver_from: input nested deep", lambda: kit.receiver_from(kit.minimal, input=nested_list()),  # type: ignore[arg-type]
     "mcp_verdict.kit._builtins:minimal: input mode must be one of parsed, raw, both, not " + "[" * 77 + "..."),
    ("run: cases a number", lambda: kit.run(kit.builtin("minimal"), 5), f"{CASES}, got 5"),  # type: ignore[arg-type]
    ("run: cases that never end", lambda: kit.run(kit.builtin("minimal"), itertools.repeat("case")),  # type: ignore[arg-type]
     "cases: expected corpus.Case objects (as corpus.load() gives them), got a str"),
    ("kill_table: cases a str", lambda: kit.kill_table("cases"),  # type: ignore[arg-type]
     f"{CASES}, got 'cases'"),
    ("split_versions: a number", lambda: kit.split_versions(5),  # type: ignore[arg-type]
     "versions: expected a list or tuple of strings, got 5"),
    ("split_versions: a list of numbers", lambda: kit.split_versions([1]),  # type: ignore[list-item]
     "versions: expected strings, got 1"),
]


@pytest.mark.parametrize(("case", "call", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_argument_is_a_kit_error(case: str, call: Callable[[], Any], message: str) -> None:
    with pytest.raises(kit.KitError) as caught:
        call()
    assert str(caught.value) == message

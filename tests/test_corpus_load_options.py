"""``corpus.load``'s options are checked before the corpus is read: an ``OptionError`` naming
the option, its value written bounded. Before, ``versions=5`` or ``kinds=5`` were a
``TypeError``, ``kinds`` nested deep a ``RecursionError`` (the Kind enum's own message), a
``versions`` that never ends was read for ever, ``raw="yes"`` selected nothing. By hand."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from mcp_verdict import OptionError, corpus

KINDS = "a Kind or one of protocol_error, tool_error, input_required, normal_complete, task, unclassified"
WRONG: list[tuple[str, dict[str, Any], str, str]] = [
    ("versions a number", {"versions": 5}, "versions",
     "versions must be a list, tuple or set of strings, or None, not 5"),
    ("versions that never end", {"versions": itertools.repeat("2025-06-18")}, "versions",
     "versions must be a list, tuple or set of strings, or None, not repeat('2025-06-18')"),
    ("versions holding a list", {"versions": [["2025-06-18"]]}, "versions",
     "versions must hold strings, not ['2025-06-18']"),
    ("kinds past the digit limit", {"kinds": 10**5000}, "kinds",
     "kinds must be a list, tuple or set of strings, or None, not <an integer of about 5000 digits>"),
    ("kinds holding an unknown kind", {"kinds": ["fine"]}, "kinds", f"kinds must hold {KINDS}, not 'fine'"),
    ("raw a string", {"raw": "yes"}, "raw", "raw must be True, False or None, not 'yes'"),
]


@pytest.mark.parametrize(("case", "given", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_load_option_is_refused(case: str, given: dict[str, Any], option: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        corpus.load(**given)
    assert (caught.value.option, str(caught.value)) == (option, message)

"""``Limits`` as a value: built, compared, hashed, written, copied and pickled by its bounds, and
immutable. Since stop 48 it is a plain class (``_frozen.Frozen``), no msgspec Struct, so that an
import of classify does not load msgspec; these rows hold what the Struct did, and pass on both.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable

import pytest

from mcp_verdict import DEFAULT_LIMITS, Limits, OptionError


def _matched(limits: Limits) -> tuple[int, int, int]:
    match limits:
        case Limits(max_bytes, max_depth, max_nodes):
            return (max_bytes, max_depth, max_nodes)
    raise AssertionError("no match")


ROWS: list[tuple[str, Callable[[], object], object]] = [
    ("the defaults", lambda: (DEFAULT_LIMITS.max_bytes, DEFAULT_LIMITS.max_depth, DEFAULT_LIMITS.max_nodes),
     (67_108_864, 64, 10_000_000)),
    ("built by place", lambda: Limits(1, 2, 3) == Limits(max_bytes=1, max_depth=2, max_nodes=3), True),
    ("equal bounds, equal values", lambda: Limits() == DEFAULT_LIMITS, True),
    ("another bound, another value", lambda: Limits(max_depth=16) == Limits(max_depth=17), False),
    ("no tuple of the bounds", lambda: Limits(1, 2, 3) == (1, 2, 3), False),
    ("hashed by the bounds", lambda: len({Limits(max_depth=16), Limits(max_depth=16), Limits()}), 2),
    ("written", lambda: repr(Limits(1, 2, 3)), "Limits(max_bytes=1, max_depth=2, max_nodes=3)"),
    ("pickled", lambda: pickle.loads(pickle.dumps(Limits(5, 6, 7))) == Limits(5, 6, 7), True),
    ("copied", lambda: copy.deepcopy(Limits(5, 6, 7)) == Limits(5, 6, 7), True),
    ("matched by place", lambda: _matched(Limits(8, 9, 10)), (8, 9, 10)),
]


@pytest.mark.parametrize(("name", "expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_limits_is_a_value(name: str, expression: Callable[[], object], expected: object) -> None:
    assert expression() == expected


@pytest.mark.parametrize("change", [
    lambda limits: setattr(limits, "max_depth", 1),
    lambda limits: delattr(limits, "max_depth"),
    lambda limits: setattr(limits, "other", 1),
])
def test_limits_is_immutable(change: Callable[[Limits], None]) -> None:
    limits = Limits(max_depth=16)
    with pytest.raises(AttributeError, match="immutable type: 'Limits'"):
        change(limits)
    assert limits == Limits(max_depth=16)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_depth": 201}, "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not 201"),
    ({"max_bytes": 0}, "Limits.max_bytes must be a positive integer, not 0"),
    ({"max_nodes": True}, "Limits.max_nodes must be a positive integer, not True"),
])
def test_a_bad_bound_is_an_option_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError) as raised:
        Limits(**kwargs)  # type: ignore[arg-type]
    assert str(raised.value) == message

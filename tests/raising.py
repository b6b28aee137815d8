"""Caller objects whose own methods raise, for the option tables: a value the caller hands in
is caller code, and its ``__iter__``, ``__len__``, ``__eq__``, ``__hash__``, comparisons or
``repr`` may raise. A public entry point answers such a value with an ``OptionError`` (or its
documented error), never the object's own exception."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NoReturn


class Boom(Exception):
    """What the objects below raise."""


def _boom(*_: object) -> NoReturn:
    raise Boom("boom")


class RaisingMapping(Mapping[str, Any]):
    """A mapping (by the ABC) every one of whose methods raises, its ``repr`` included."""

    __getitem__ = _boom
    __iter__ = _boom
    __len__ = _boom
    __contains__ = _boom
    __eq__ = _boom
    __hash__ = _boom
    __repr__ = _boom
    keys = _boom
    items = _boom
    values = _boom
    get = _boom


class RaisingDict(dict[str, Any]):
    """A dict subclass whose reading raises (``dict(it)`` calls ``keys``)."""

    def keys(self) -> NoReturn:
        _boom()

    def __iter__(self) -> Iterator[str]:
        _boom()

    def __len__(self) -> int:  # noqa: PLE0303 - it raises
        _boom()


class RaisingList(list[Any]):
    """A list subclass whose iteration, equality and hash raise."""

    def __iter__(self) -> Iterator[Any]:
        _boom()

    __eq__ = _boom
    __hash__ = _boom  # type: ignore[assignment]


class RaisingInt(int):
    """An int subclass whose comparisons and arithmetic raise (its value is a plain int's)."""

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __add__ = __radd__ = _boom
    __hash__ = int.__hash__


class RaisingFloat(float):
    """A float subclass whose comparisons and arithmetic raise (its value is a plain float's)."""

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __add__ = __mul__ = __rmul__ = _boom
    __hash__ = float.__hash__


class RaisingBool:
    """A value whose truth and equality raise."""

    __bool__ = _boom
    __eq__ = _boom
    __hash__ = _boom

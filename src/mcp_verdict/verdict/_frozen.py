"""Immutable values of plain classes, for what an import of classify loads.

``Limits`` (``_classify``) and ``VersionRules`` (``_versions``) are built at import; as msgspec
Structs, as the verdict is, they would load msgspec with them (~20 ms of this machine's import
of classify). Their instances are few and built once, so a Python ``__init__`` costs nothing
that counts, and reading a member of a ``__slots__`` class is as fast as a Struct's.
"""

from __future__ import annotations

from typing import Any, ClassVar


class Frozen:
    """A value whose members are its class's ``__match_args__`` (its ``__slots__``): set once,
    by ``_hold`` in ``__init__``; compared, hashed, written and pickled by them."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def _hold(self, **members: Any) -> None:
        for name, value in members.items():
            object.__setattr__(self, name, value)

    def _members(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"immutable type: {type(self).__name__!r} (build another to change {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"immutable type: {type(self).__name__!r} (build another to change {name})")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._members() == other._members()

    def __hash__(self) -> int:
        return hash(self._members())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in self.__match_args__)})"

    def __reduce__(self) -> tuple[type[Frozen], tuple[Any, ...]]:
        return (type(self), self._members())

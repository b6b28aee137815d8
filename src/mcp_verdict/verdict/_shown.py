"""A value written for a message, at a bounded cost: ``shown`` (the one writer of a value of
unknown size, depth or kind into a message: a wrong option's value in an ``OptionError``, the
evidence of a content-check match, whatever caller code returned), ``described`` (an
exception caller code raised), and ``unreadable`` (the one ``OptionError`` for a caller's value
whose reading raised)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._classify import OptionError


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)``, or its first ``limit - 3`` characters and ``...`` when longer, at a cost
    bounded by ``limit`` rather than by the value's size or depth (a dict, list or tuple is
    written only as far as the limit; a str only its head). Never raises: an object whose
    ``repr`` raises is named by its type. For server data (the evidence of a match) and for
    whatever caller code returned (a read, a predicate, an expectation), and for the value of a
    wrong option in an ``OptionError``'s message (an integer past Python's digit limit for
    ``str()`` is named by its size; a value nested past the recursion limit is cut, as any)."""
    parts: list[str] = []
    room = limit + 1  # one more than the limit: enough to tell that the text was cut

    def put(text: str) -> None:
        nonlocal room
        parts.append(text[:room])
        room -= len(text)

    def walk(item: Any) -> None:  # each level writes at least one character: depth <= limit
        kind = type(item)
        if kind is dict:
            put("{")
            for number, (key, member) in enumerate(item.items()):
                if room <= 0:
                    return
                if number:
                    put(", ")
                walk(key)
                put(": ")
                walk(member)
            put("}")
        elif kind is list or kind is tuple:
            put("[" if kind is list else "(")
            for number, member in enumerate(item):
                if room <= 0:
                    return
                if number:
                    put(", ")
                walk(member)
            put("]" if kind is list else ("," if len(item) == 1 else "") + ")")
        elif kind is str:
            put(repr(item[:room]) if len(item) > room else repr(item))
        else:
            try:
                text = repr(item)
                if type(text) is not str:  # pragma: no cover - repr() itself refuses anything else
                    raise TypeError("repr returned no str")
            except Exception as exc:
                text = f"<an integer of about {item.bit_length() * 0.30103:.0f} digits>" if isinstance(item, int) \
                    else f"<{type(item).__name__} object; its repr raised {type(exc).__name__}>"
            put(text)

    walk(value)
    text = "".join(parts)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def described(exc: BaseException, limit: int = 300) -> str:
    """``"TypeName: message"`` of an exception raised by caller code, its message cut to about
    ``limit`` characters; never raises (an exception whose ``str`` raises is named alone)."""
    try:
        message = str(exc)
        if type(message) is not str:  # pragma: no cover - str() itself refuses anything else
            raise TypeError("str returned no str")
    except Exception:
        return f"{type(exc).__name__} (its message could not be read)"
    if len(message) > limit:
        message = message[:limit - 3] + "..."
    return f"{type(exc).__name__}: {message}"


def unreadable(option: str, expected: str, value: object, exc: BaseException) -> OptionError:
    """The ``OptionError`` for a caller's ``value`` (given as ``option``) whose reading raised
    ``exc``: caller code (a mapping's ``__getitem__``, ``keys`` or ``__iter__``, a property, an
    ``__eq__``...) that the library read. One wording wherever it is raised:
    ``"{option} must be {expected}; reading {shown(value)} raised {described(exc)}"``. Returned,
    for the caller to raise ``from None`` (the caller's exception is in the message, not the
    traceback) or to hand on; never raises itself."""
    from ._classify import OptionError  # loaded already by any caller that checks options

    return OptionError(option, expected, value, f"{option} must be {expected}; reading {shown(value)} raised "
                                                f"{described(exc)}")

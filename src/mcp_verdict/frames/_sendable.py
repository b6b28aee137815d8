"""What a client sends that came from its caller, checked before anything is written: a tool
call's name and arguments, and the application's answers to input requests.

MCP carries ``arguments`` as a JSON object (the schema's ``{ [key: string]: unknown }``), which
the SDK writes with its serializer. That serializer writes some Python values no JSON holds as
something else, without a word: NaN and the infinities as ``null``, a ``Decimal`` as a string,
a set as an array, a key that is no string as a string, bytes as text. Others it refuses deep in
the SDK, with its own exceptions: an object of any other class, bytes that are not UTF-8,
nesting past its 255 levels. A server would act on the changed values as if they were the
caller's. So the client and the tap refuse all of them first, as the caller's own mistake: an
``OptionError`` naming where the value sits (``arguments['rows'][3]``), and nothing is sent.

Accepted: ``None``, ``bool``, ``int``, a finite ``float``, a ``str`` that UTF-8 can carry (no
lone surrogate), a ``list`` or ``tuple`` of such values, and a mapping of strings to such
values (subclasses included: an ``IntEnum``, a ``StrEnum``), nested at most :data:`MAX_DEPTH`
deep. The walk is iterative: a mapping that holds itself is refused for its depth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from ..verdict._classify import OptionError
from ..verdict._shown import shown, unreadable

MAX_DEPTH: Final = 200
"""The deepest nesting of a value inside ``arguments`` (the SDK writes no message nested past
255 levels, the request's own among them)."""

_JSON: Final = ("a JSON value: None, a bool, an int, a finite float, a string, a list or tuple, "
                "or a mapping with string keys")


def _where(option: str, path: list[Any]) -> str:
    """Where a value sits: ``arguments['rows'][3]`` (a path past six steps shown by its ends)."""
    steps = [f"[{shown(step, 40)}]" for step in (path if len(path) <= 6 else [*path[:3], *path[-2:]])]
    if len(path) > 6:
        steps.insert(3, f"...({len(path) - 5} more)...")
    return option + "".join(steps)


def _refused(item: Any) -> str | None:
    """What a value that holds no other is not, or None when it is fine (or a container)."""
    if isinstance(item, str):
        if not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "a string UTF-8 can carry (this one holds a lone surrogate)"
        return None
    if item is None or isinstance(item, int):  # (bool is an int)
        return None
    if isinstance(item, float):
        return None if math.isfinite(item) else "a finite number (JSON has no NaN or infinity)"
    if isinstance(item, (bytes, bytearray, memoryview)):
        return f"{_JSON} (JSON has no bytes: decode them, or encode them as base64 text)"
    if isinstance(item, (Mapping, list, tuple)):
        return None
    return _JSON


def refusal(value: object, option: str) -> OptionError | None:
    """Why ``value`` (given as ``option``) cannot be sent as JSON, naming where the first value
    that cannot sits; None when it can. Reading it never raises: a mapping or list whose own
    reading raises (caller code) is refused too."""
    stack: list[tuple[Any, list[Any]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        why = _refused(item)
        if why is not None:
            return OptionError(_where(option, path), why, item)
        if isinstance(item, str) or not isinstance(item, (Mapping, list, tuple)):
            continue
        where = _where(option, path)
        if len(path) >= MAX_DEPTH:
            return OptionError(where, f"nested at most {MAX_DEPTH} deep (a value that holds itself never ends)",
                               item, f"{where} is nested more than {MAX_DEPTH} deep (or holds itself): "
                               "the SDK cannot write it")
        try:
            pairs = list(item.items()) if isinstance(item, Mapping) else list(enumerate(item))
        except Exception as exc:  # caller code (a mapping's items, a list subclass's iteration)
            return unreadable(where, "a mapping or list", item, exc)
        if isinstance(item, Mapping):
            for key, _ in pairs:
                if not isinstance(key, str):
                    return OptionError(where, "a mapping with string keys (JSON has no other)", key,
                                       f"{where} must have string keys (JSON has no other), not {shown(key)}")
        stack.extend((member, [*path, key]) for key, member in reversed(pairs))
    return None


def check_call(name: object, arguments: object, prefix: str = "") -> dict[str, Any]:
    """``arguments`` as a dict (``{}`` for None), once ``name`` and every value in them are
    what a tool call can carry; else the ``OptionError`` that names the first value that is
    not (its option ``name``, ``arguments`` or where in them, after ``prefix``: an Observe's
    read tool is ``Observe.tool_call.``)."""
    option = f"{prefix}arguments"
    if not isinstance(name, str) or not name:
        raise OptionError(f"{prefix}name", "a tool's name (a non-empty string)", name)
    unsendable = _refused(name)
    if unsendable is not None:  # a lone surrogate: the SDK's serializer would fail deep inside
        raise OptionError(f"{prefix}name", unsendable, name)
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise OptionError(option, "the tool's arguments (a mapping with string keys) or None", arguments)
    problem = refusal(arguments, option)
    if problem is not None:
        raise problem
    try:
        return dict(arguments)
    except Exception as exc:  # (read once above: a mapping whose second reading raises)
        raise unreadable(option, "the tool's arguments (a mapping with string keys) or None", arguments, exc) from None

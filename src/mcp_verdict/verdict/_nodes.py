"""How many values a parsed value holds, counted as its JSON text would hold them.

The node budget (``Limits.max_nodes``) counts each value a walk meets: a container the value
refers to twice is met twice, as its text would write it twice, so 60 levels of ``[x, x]`` are
2**60 values in a handful of objects. The walks (``_walk.check_value``, its explanation and the
fast path's ``_common_kind._open_value``) charge the budget value by value; past
:data:`LOOKED` values they ask :func:`more_values` once, which counts each distinct container
once, so that a value of shared references is refused at the cost of its own objects, not of the
text it would make (``json.too_many_nodes``).
"""

from __future__ import annotations

from typing import Any, Final

LOOKED: Final = 1 << 16
"""Values a walk meets before it asks :func:`more_values` whether the budget will hold."""


def more_values(value: object, limit: int) -> bool:
    """Whether ``value`` written as a JSON text holds more than ``limit`` values (each object,
    array, string, number, boolean and null one; a member name none), a container counted each
    time the text would repeat it, and a cyclic value endless. Costs one look at each distinct
    container, however often it is shared. Containers are exact dicts and lists; anything else
    counts one (the walks name what is no JSON value)."""
    if type(value) is not dict and type(value) is not list:
        return limit < 1
    counted: dict[int, int] = {}
    """A container's values, by its id (each is alive: ``value`` holds it)."""
    opened: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, closing = stack.pop()
        members = item.values() if type(item) is dict else item
        if closing:
            total = 1
            for member in members:
                kind = type(member)
                total += counted[id(member)] if kind is dict or kind is list else 1
            if total > limit:
                return True
            counted[id(item)] = total
            opened.discard(id(item))
            continue
        key = id(item)
        if key in counted:
            continue
        if key in opened:  # met again inside itself: a cycle, which no text can write
            return True
        opened.add(key)
        stack.append((item, True))
        for member in members:
            kind = type(member)
            if (kind is dict or kind is list) and id(member) not in counted:
                stack.append((member, False))
    return False

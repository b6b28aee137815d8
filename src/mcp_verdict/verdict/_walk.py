"""Per-call checking state, and the walk over values the protocol leaves open.

Members whose shape MCP does not fix (``structuredContent``, ``_meta``, ``error.data``,
unknown members, elicitation schemas...) are still held to three rules: they are JSON
values (a parsed response handed in by the caller may contain anything Python allows),
numbers are finite, and nesting stays within ``Limits.max_depth`` and ``Limits.max_nodes``
(shared or cyclic references in a parsed value cannot loop forever). The walk is iterative,
so no depth of input can exhaust the Python stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._findings import Finding, describe, finding, pointer
from ._options import Options


class Context:
    """What one ``classify`` call checks against, and what it has found so far."""

    __slots__ = ("errors", "findings", "nodes_left", "options", "rules")

    def __init__(self, options: Options) -> None:
        self.options = options
        self.rules = options.rules
        self.findings: list[Finding] = []
        self.errors = 0
        self.nodes_left = options.max_nodes

    def add(self, path: str, code: str, message: str, value: object = None) -> None:
        """Record a finding; ``value`` is the offending value of a type check, if any.

        A type check that meets a float that is not finite reports the real problem: the
        wire held a number no double can carry (1e400), whatever member it sits in.
        """
        if type(value) is float and value - value != 0.0:
            code = "json.number_out_of_range"
            message = f"{value!r} is not a finite JSON number (a number like 1e400 on the wire)"
        item = finding(path, code, message)
        if item.severity == "error":
            self.errors += 1
        self.findings.append(item)

    def add_member(self, container: Mapping[str, Any], key: str, path: str, code: str, wrong: str, missing: str,
                   *, number: bool = False) -> None:
        """Record that member ``key`` of ``container`` (at ``path``) is not what it must be. When
        present, the finding sits on the member and says what it is, then ``wrong``; when absent,
        on ``path``, saying ``missing``. ``number``: the member is a number (see :meth:`add`)."""
        if key in container:
            value = container[key]
            self.add(pointer(path, key), code, f"{key} is {describe(value)}{wrong}", value if number else None)
        else:
            self.add(path, code, missing)


_NOT_JSON: Final = "json.not_json_value"


def check_value(ctx: Context, value: object, path: str, depth: int) -> bool:
    """Hold an open-shaped value to the JSON rules; ``depth`` is its own nesting level.

    Returns True when it passes; otherwise records one finding (the first problem met).
    """
    stack: list[tuple[object, int]] = [(value, depth)]
    pop = stack.pop
    push = stack.append
    max_depth = ctx.options.max_depth
    budget = ctx.nodes_left
    while stack:
        item, level = pop()
        budget -= 1
        if budget < 0:
            break
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            if level > max_depth:
                break
            for key, member in item.items():  # type: ignore[attr-defined]
                if type(key) is not str:
                    break
                push((member, level + 1))
            else:
                continue
            break
        if kind is list:
            if level > max_depth:
                break
            for member in item:  # type: ignore[attr-defined]
                push((member, level + 1))
            continue
        if kind is float:
            if item - item == 0.0:  # type: ignore[operator]  # false for NaN and infinities
                continue
            break
        plain = _plain(item)
        if plain is None:
            break
        push((plain, level))
        budget += 1
    else:
        ctx.nodes_left = budget
        return True
    ctx.nodes_left = budget
    _explain(ctx, value, path, depth)
    return False


def check_extras(ctx: Context, obj: Mapping[Any, Any], known: frozenset[str], path: str,
                 depth: int) -> None:
    """Hold the members of ``obj`` (at nesting ``depth``) that no rule names to the JSON rules."""
    for key, value in obj.items():
        if key in known:
            continue
        if not isinstance(key, str):
            ctx.add(path, _NOT_JSON, f"member name {key!r} is not a string")
            return
        if not check_value(ctx, value, pointer(path, key), depth + 1):
            return


def _plain(item: object) -> object:
    """A subclass of a JSON type, seen as that type (bool is never read as an integer)."""
    if isinstance(item, bool):
        return bool(item)
    if isinstance(item, str):
        return str(item)
    if isinstance(item, int):
        return int(item)
    if isinstance(item, float):
        return float(item)
    if isinstance(item, dict):
        return dict(item)
    if isinstance(item, list):
        return list(item)
    return None


def _explain(ctx: Context, value: object, path: str, depth: int) -> None:
    """Slow second walk that names the first offending value (error path only)."""
    stack: list[tuple[object, int, str]] = [(value, depth, path)]
    seen = 0
    while stack:
        item, level, where = stack.pop()
        seen += 1
        if seen > ctx.options.max_nodes:
            ctx.add(path, "json.too_many_nodes",
                    f"the value holds more than {ctx.options.max_nodes} nodes (shared or cyclic references?)")
            return
        if item is None or isinstance(item, (str, bool)):
            continue
        if isinstance(item, int):
            continue
        if isinstance(item, float):
            if item - item == 0.0:
                continue
            ctx.add(where, "json.number_out_of_range", f"{item!r} is not a finite JSON number")
            return
        if isinstance(item, (dict, list)):
            if level > ctx.options.max_depth:
                ctx.add(where, "json.too_deep", f"the value nests deeper than {ctx.options.max_depth} levels")
                return
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        ctx.add(where, _NOT_JSON, f"member name {key!r} is not a string")
                        return
                stack.extend((member, level + 1, pointer(where, key)) for key, member in reversed(item.items()))
            else:
                stack.extend((member, level + 1, pointer(where, index))
                             for index, member in reversed(list(enumerate(item))))
            continue
        ctx.add(where, _NOT_JSON, f"a {type(item).__name__} is not a JSON value")
        return
    # The fast walk ran out of node budget over several values: blame this one.
    ctx.add(path, "json.too_many_nodes",
            f"the response holds more than {ctx.options.max_nodes} values (shared or cyclic references?)")


__all__ = ["Context", "Options", "check_extras", "check_value"]  # Options: read here by the proxy and the tap

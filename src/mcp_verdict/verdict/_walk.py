"""Per-call checking state, and the walk over values the protocol leaves open.

Members whose shape MCP does not fix (``structuredContent``, ``_meta``, ``error.data``,
unknown members, elicitation schemas...) are still held to three rules: they are JSON
values (a parsed response handed in by the caller may contain anything Python allows),
numbers are finite, and nesting stays within ``Limits.max_depth`` and ``Limits.max_nodes``
(shared or cyclic references in a parsed value cannot loop forever). The walk is iterative,
so no depth of input can exhaust the Python stack.

A parsed value handed in by the caller is first looked through for a string, anywhere and
member names included, that holds a surrogate code point (:func:`unencodable`): no JSON text
in UTF-8 carries one (RFC 8259 section 8.1), so such a value is the wire's lone surrogate
escape, which the strict reader refuses (``json.encoding``), and gets the same finding.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping
from typing import Any, Final

from ._findings import Finding, describe, finding, pointer, pointer_of
from ._nodes import LOOKED, more_values
from ._options import Options
from ._shown import shown


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
            message = f"{float.__repr__(value)} is not a finite JSON number (a number like 1e400 on the wire)"
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

    def check_choice(self, container: Mapping[str, Any], key: str, choices: frozenset[str], path: str, code: str,
                     expected: str) -> None:
        """Member ``key`` of ``container`` (at ``path``), when present, is one of the strings
        ``choices`` (an enum of the schema); else a finding on it, saying what it is and
        ``expected`` (the choices in words)."""
        if key in container:
            value = container[key]
            if not isinstance(value, str) or value not in choices:
                self.add(pointer(path, key), code, f"{key} is {describe(value)}; expected {expected}")


_NOT_JSON: Final = "json.not_json_value"
_marshal: Final = marshal.dumps
_SURROGATE_UTF8: Final = re.compile(b"\xed[\xa0-\xbf]").search
"""A surrogate code point as UTF-8 with ``surrogatepass`` writes it: ED A0..BF (U+D800..U+DFFF)."""


def is_strings(value: object) -> bool:
    """An array of strings (the schemas' ``string[]``)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def check_value(ctx: Context, value: object, path: str, depth: int) -> bool:
    """Hold an open-shaped value to the JSON rules; ``depth`` is its own nesting level.

    Returns True when it passes; otherwise records one finding (the first problem met).
    """
    stack: list[tuple[object, int]] = [(value, depth)]
    pop = stack.pop
    push = stack.append
    max_depth = ctx.options.max_depth
    budget = ctx.nodes_left
    looked = budget - LOOKED  # (past it, one count of the distinct containers says if the budget holds)
    while stack:
        item, level = pop()
        budget -= 1
        if budget <= looked:
            if budget < 0 or more_values(value, ctx.nodes_left):
                budget = -1
                break
            looked = -1
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
    if budget < 0:  # the budget ran out, no problem met before: no second walk to name one
        limit = ctx.options.max_nodes
        ctx.add(path, "json.too_many_nodes", _too_many(limit, more_values(value, limit)))
        return False
    _explain(ctx, value, path, depth)
    return False


def _too_many(max_nodes: int, alone: bool) -> str:
    """The message of ``json.too_many_nodes``: ``alone``, the value holds more than the budget
    by itself; else with the values met before it."""
    return (f"the value holds more than {max_nodes} nodes (shared or cyclic references?)" if alone else
            f"the response holds more than {max_nodes} values (shared or cyclic references?)")


def check_extras(ctx: Context, obj: Mapping[Any, Any], known: frozenset[str], path: str,
                 depth: int) -> None:
    """Hold the members of ``obj`` (at nesting ``depth``) that no rule names to the JSON rules."""
    for key, value in obj.items():
        if key in known:
            continue
        if not isinstance(key, str):
            ctx.add(path, _NOT_JSON, f"member name {shown(key)} is not a string")
            return
        if not check_value(ctx, value, pointer(path, key), depth + 1):
            return


def unencodable(value: object, max_depth: int, max_nodes: int) -> Finding | None:
    """``json.encoding`` at the first string of a parsed value that holds a surrogate code point
    (U+D800..U+DFFF), in the order a JSON text of it is written: a string's own place, a
    member name's object (where the strict reader names a lone surrogate's escape on the wire).
    None when no string holds one, or none within ``max_nodes`` values and ``max_depth`` levels
    (the value itself is level 1; past them the value's walks report it: ``json.too_many_nodes``,
    ``json.too_deep``).

    The proof first, in C: ``marshal`` writes a value of the built-in types with every string,
    member names included, as UTF-8 with its surrogates kept (``surrogatepass``: ED A0..BF xx),
    and each object once however often the value refers to it (a shared or cyclic value costs
    what its objects do). A text with no such two bytes holds no surrogate (an ASCII string is
    copied as it is; a text with no ED byte at all is told by ``memchr``). Such bytes where no
    string put them (in a number's binary), a value ``marshal`` does not write (a subclass, an
    object: refused before any code of the caller's runs) or one nested past its 2,000 levels
    are looked through in Python (:func:`_first_unencodable`), as a value that holds one is, to
    name it."""
    try:
        written = _marshal(value, 4)  # type: ignore[arg-type]  # (what it does not write, it refuses)
    except Exception:  # ValueError: something it does not write, or nested past its 2,000 levels
        written = None
    if written is not None and (written.find(b"\xed") < 0 or _SURROGATE_UTF8(written) is None):
        return None
    return _first_unencodable(value, max_depth, max_nodes)


def _unencodable(text: str) -> bool:
    """Whether ``text``, a string (of a subclass too), holds a surrogate code point, which UTF-8
    cannot carry: an ASCII one is told at once (``str.isascii`` reads a flag CPython keeps), any
    other is encoded in C (to UTF-32: the quickest of its encoders to refuse a surrogate)."""
    if str.isascii(text):
        return False
    try:
        str.encode(text, "utf-32-le")
    except UnicodeEncodeError:
        return True
    return False


def _first_unencodable(value: object, max_depth: int, budget: int) -> Finding | None:
    """:func:`unencodable`'s finding, for a value its proof did not clear: each string with its
    place, in the order the text is written (a member name, then its value), within ``budget``
    values and ``max_depth`` levels. A container met again (shared, or cyclic) is not looked
    through again: its strings were looked at the first time, so a value of shared references
    costs what its own objects do, not what its text would (2**60 strings for 60 levels of
    ``[x, x]``). Strings and containers of a subclass are read as what they are (through ``str``,
    ``dict`` and ``list`` themselves: nothing of the caller's runs); anything else is no JSON
    value, which the rules name, and holds no string here."""
    stack: list[tuple[object, Any, int]] = [(value, None, 1)]
    """(a value or a member name, its place: None for the value itself, else (its container's
    place, its member name or index), its level: 0 for a member name)."""
    pop = stack.pop
    push = stack.append
    seen: set[int] = set()
    while stack:
        item, place, level = pop()
        if isinstance(item, str):
            if _unencodable(item):
                at = _first_surrogate(item)
                what = "a member name" if level == 0 else "a string"
                return finding(_place(place), "json.encoding",
                               f"{what} holds a lone surrogate (U+{ord(str.__getitem__(item, at)):04X}) at character "
                               f"{at}, which UTF-8 cannot carry: no JSON text holds this value")
            continue
        if level == 0:  # a member name that is no string: no JSON value, which the rules name
            continue
        budget -= 1
        if budget < 0:
            return None
        if level > max_depth or id(item) in seen:
            continue
        if isinstance(item, (dict, list)):
            seen.add(id(item))
        if isinstance(item, dict):
            for key, member in reversed(list(dict.items(item))):  # (the first member on top: its name, its value)
                push((member, (place, key), level + 1))
                push((key, place, 0))
        elif isinstance(item, list):
            members = item if type(item) is list else list(list.__iter__(item))
            for index in range(len(members) - 1, -1, -1):
                push((members[index], (place, index), level + 1))
    return None


def _first_surrogate(text: str) -> int:
    """Where the first surrogate code point of ``text`` (one it holds) sits."""
    try:
        str.encode(text, "utf-32-le")
    except UnicodeEncodeError as exc:
        return exc.start
    return 0  # (not reached: the caller found one)


def _place(place: Any, path: str = "") -> str:
    """The JSON pointer of a place of a walk (:func:`unencodable`'s, :func:`_explain`'s): None,
    the value at ``path`` itself, else (its container's place, its member name or index). A
    walk keeps places, not paths: a path is built for the one value a finding names, not for
    each value the walk passes."""
    tokens = []
    while place is not None:
        place, token = place
        tokens.append(token)
    # (a name of a subclass read as the string it is; one that is no string, by type)
    return pointer_of(path, [str.__str__(token) if isinstance(token, str) else token if type(token) is int
                             else f"<{type(token).__name__}>" for token in reversed(tokens)])


def exact_value(value: object, max_nodes: int) -> object:
    """A caller's parsed value as the rules may read it: ``value`` itself when it holds only the
    built-in types (``marshal`` writes it: proven in C, nothing of the caller's run), else a copy
    in which every subclass of dict, list, str, int and float, at any depth, is the value it holds
    of that type, read through the type's own methods (:func:`_plain`): the rules call ``get``,
    ``items``, ``in``, ``==`` and ``hash`` on what they read, which a subclass may answer by
    raising or otherwise than its contents say. Each container is copied once: a shared one stays shared
    (it costs what its objects do), a cycle stays a cycle. Past ``max_nodes`` containers the value
    is left as it is: the walks name it (``json.too_many_nodes``)."""
    try:
        _marshal(value, 4)  # type: ignore[arg-type]  # (what it does not write, it refuses)
    except Exception:  # ValueError: a subclass or an object, or nested past its 2,000 levels
        return _exact(value, max_nodes)
    return value


def _exact(value: object, budget: int) -> object:
    """:func:`exact_value`'s copy, for a value ``marshal`` refused: each container copied once,
    as an exact dict or list, so that a shared one stays shared and a cycle stays a cycle (of
    exact containers, which the walks name as they name any)."""
    if not isinstance(value, (dict, list)):
        return _scalar(value)
    copies: dict[int, Any] = {id(value): {} if isinstance(value, dict) else []}
    """Each container met, by its id (alive: ``value`` holds it), and its copy, filled when popped."""
    stack: list[Any] = [value]

    def copy_of(member: object) -> object:
        if not isinstance(member, (dict, list)):
            return _scalar(member)
        copy = copies.get(id(member))
        if copy is None:
            copy = copies[id(member)] = {} if isinstance(member, dict) else []
            stack.append(member)
        return copy

    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:  # (the walks then say json.too_many_nodes, past the same budget)
            return value
        copy = copies[id(item)]
        if isinstance(item, dict):
            for name, member in dict.items(item):
                copy[_scalar(name)] = copy_of(member)
        else:
            copy.extend([copy_of(member) for member in list.copy(item)])
    return copies[id(value)]


def _scalar(item: object) -> object:
    """A subclass of str, int or float as the value of that type it holds (bool and the exact
    types as they are; anything else as it is: the rules name it as no JSON value)."""
    kind = type(item)
    if kind is str or kind is int or kind is float or kind is bool or item is None:
        return item
    if isinstance(item, (str, int, float)):
        return _plain(item)
    return item


def _plain(item: object) -> object:
    """A subclass of a JSON type, seen as that type (bool is never read as an integer), through
    the type's own methods: none of the subclass's runs (its ``__iter__``, ``keys``,
    ``__getitem__`` or ``__int__`` may raise, or answer something else than what it holds)."""
    if isinstance(item, bool):
        return bool(item)
    if isinstance(item, str):
        return str.__str__(item)
    if isinstance(item, int):
        return int.__int__(item)
    if isinstance(item, float):
        return float.__float__(item)
    if isinstance(item, dict):
        return dict(dict.items(item))
    if isinstance(item, list):
        return list.copy(item)
    return None


def _explain(ctx: Context, value: object, path: str, depth: int) -> None:
    """Slow second walk that names the first offending value (error path only)."""
    stack: list[tuple[object, int, Any]] = [(value, depth, None)]  # (a value, its level, its place: _place)
    seen = 0
    while stack:
        item, level, place = stack.pop()
        seen += 1
        if seen > ctx.options.max_nodes or (seen == LOOKED and more_values(value, ctx.options.max_nodes)):
            ctx.add(path, "json.too_many_nodes", _too_many(ctx.options.max_nodes, True))
            return
        if item is None or isinstance(item, (str, bool)):
            continue
        if isinstance(item, int):
            continue
        if isinstance(item, float):
            if item - item == 0.0:
                continue
            ctx.add(_place(place, path), "json.number_out_of_range",
                    f"{float.__repr__(item)} is not a finite JSON number")
            return
        if isinstance(item, (dict, list)):
            if level > ctx.options.max_depth:
                ctx.add(_place(place, path), "json.too_deep",
                        f"the value nests deeper than {ctx.options.max_depth} levels")
                return
            # (a subclass read through dict's and list's own methods: none of its runs, as _plain)
            if isinstance(item, dict):
                for key in dict.keys(item):
                    if not isinstance(key, str):
                        ctx.add(_place(place, path), _NOT_JSON, f"member name {shown(key)} is not a string")
                        return
                stack.extend((member, level + 1, (place, key)) for key, member in reversed(dict.items(item)))
            else:
                stack.extend((member, level + 1, (place, index))
                             for index, member in reversed(list(enumerate(list.copy(item)))))
            continue
        ctx.add(_place(place, path), _NOT_JSON, f"a {type(item).__name__} is not a JSON value")
        return
    # Nothing found here that the fast walk met (it calls this only for a problem, not for its
    # budget running out): blame the budget over the response, as a walk that met none would.
    ctx.add(path, "json.too_many_nodes", _too_many(ctx.options.max_nodes, False))


__all__ = ["Context", "Options", "check_extras", "check_value",  # Options: read here by the proxy and the tap
           "unencodable"]

"""Label files: how an application's own labels map onto the six kinds.

A label file is a JSON object with one member per kind, whose value is the application's
label for it; several kinds may share a label, but no other kind may share the success
label (the one ``normal_complete`` maps to)::

    {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok",
     "task": "not_ok", "protocol_error": "not_ok", "unclassified": "not_ok"}

Without a label file the labels are the kinds' own names.

A label is a non-empty string of at most :data:`LABEL_MAX_CHARS` characters, a label file at most
:data:`LABEL_FILE_MAX_BYTES` of UTF-8 JSON (no NaN, no name given twice). A file that breaks
a rule is refused with every problem in it (the first 20 shown), each with its line and its
member; what the file holds is shown literally, its control and bidi characters as escapes.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..corpus import _SHOWN_PROBLEMS, _did_you_mean, _listing, _shown
from ..verdict._kind import Kind
from ._receiver import KitError

LABEL_MAX_CHARS: Final = 200
"""The longest label: a label is a name, and every failing case's reason quotes it."""
LABEL_FILE_MAX_BYTES: Final = 1 << 20
"""The largest label file read (six members need far less); a larger one, or an endless stream
such as ``/dev/zero``, is refused after this many bytes."""

_KINDS: Final = tuple(kind.value for kind in Kind)
_OBJECT: Final = ('expected a JSON object mapping each kind to your label, e.g. {"normal_complete": "ok", '
                  '"tool_error": "not_ok", ...}')
_LABEL: Final = f"expected a label, a non-empty string (at most {LABEL_MAX_CHARS} characters)"
_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_WRITTEN_PROBLEMS: Final = _SHOWN_PROBLEMS + len(_KINDS)
"""Problems written out in full, in the members' order: enough for the listing's first ones
wherever the (at most five, always written) success clashes, found last, sort among them."""


@dataclass(frozen=True, slots=True)
class Labels:
    """The application's label for each kind (checked as :func:`labels_from` checks a mapping)."""

    by_kind: Mapping[Kind, str]

    def __post_init__(self) -> None:
        if not isinstance(self.by_kind, Mapping):
            raise KitError(f"labels: expected a mapping of each Kind to its label, got {_shown(self.by_kind)}")
        problems = [f"{_shown(key)}: not a Kind; a Labels maps each Kind to its label"
                    for key in self.by_kind if not isinstance(key, Kind)]
        _, more = _checked([(key.value, label) for key, label in self.by_kind.items() if isinstance(key, Kind)])
        _raise("labels", problems + more)

    def __getitem__(self, kind: Kind) -> str:
        return self.by_kind[kind]

    @property
    def success(self) -> str:
        """The label of ``normal_complete``, which no other kind may carry."""
        return self.by_kind[Kind.NORMAL_COMPLETE]

    @property
    def identity(self) -> bool:
        return all(label == kind.value for kind, label in self.by_kind.items())

    def kinds_of(self, label: str) -> tuple[Kind, ...]:
        return tuple(kind for kind, own in self.by_kind.items() if own == label)

    def to_dict(self) -> dict[str, str]:
        return {kind.value: label for kind, label in self.by_kind.items()}


class _NotJSON(float):
    """NaN or an infinity where a label file has one (JSON has none): a float, so that a value
    holding it is still shown (``[NaN]``), and named by the token the file wrote."""

    token: str


def _not_json(token: str) -> _NotJSON:
    value = _NotJSON(token)
    value.token = token
    return value


_Member = tuple[object, object]
"""A member of a label file or mapping: its name and its value, in the file's order."""


def _no_line(order: int) -> int | None:
    return None


def _checked(members: Sequence[_Member], line_of: Callable[[int], int | None] = _no_line,
             ) -> tuple[dict[Kind, str], list[str]]:
    """The labels of the members, and every problem with them in the members' order (the kinds
    left unmapped last); ``line_of`` gives a member's line by its place. Past the first problems
    only their number matters: they are counted, not written (nor their lines looked for)."""
    problems: list[tuple[int, str]] = []
    by_kind: dict[Kind, str] = {}

    def problem(order: int, name: object, text: str, *, written: bool = False) -> None:
        if len(problems) >= _WRITTEN_PROBLEMS and not written:
            problems.append((order, ""))
        else:
            line = line_of(order)
            problems.append((order, f"{'' if line is None else f'line {line}, '}{_shown(name)}: {text}"))

    first: dict[str, int] = {}
    for order, (name, value) in enumerate(members):
        if not isinstance(name, str) or name not in _KINDS:
            hint = _did_you_mean(name, _KINDS, quoted=True) if len(problems) < _WRITTEN_PROBLEMS else ""
            problem(order, name, f"unknown kind{hint}; the kinds are {', '.join(_KINDS)}")
        elif name in first:
            problem(order, name, f"given twice (first on line {line_of(first[name])}); a kind has one label")
        else:
            first[name] = order
            if isinstance(value, _NotJSON):
                problem(order, name, f"not JSON: {value.token}")
            elif not isinstance(value, str) or not value or len(value) > LABEL_MAX_CHARS:
                got = f"a string of {len(value)} characters" if isinstance(value, str) and value else _shown(value)
                problem(order, name, f"{_LABEL}, got {got}")
            else:
                by_kind[Kind(name)] = value
    success = by_kind.get(Kind.NORMAL_COMPLETE)
    for kind, label in by_kind.items():
        if label == success and kind is not Kind.NORMAL_COMPLETE:
            problem(first[kind.value], kind.value, f"mapped to {_shown(success)}, the success label of "
                    "normal_complete: a non-success kind must never read as success", written=True)
    problems.sort(key=lambda entry: entry[0])
    shown = [text for _, text in problems]
    unmapped = [kind for kind in _KINDS if kind not in first]
    if unmapped:
        shown.append(f"unmapped kind{'s' if len(unmapped) > 1 else ''} {', '.join(unmapped)}: give every kind a label "
                     "(several kinds may share one)")
    return by_kind, shown


def _raise(source: str, problems: list[str]) -> None:
    if len(problems) == 1:
        raise KitError(f"{source}: {problems[0]}")
    if problems:
        raise KitError(_listing(f"{source}: {len(problems)} problems:", problems))


KIND_LABELS: Labels = Labels({kind: kind.value for kind in Kind})
"""The default: every kind is its own label."""


def labels_from(mapping: object, *, source: str = "labels") -> Labels:
    """Check a mapping of kind names to labels (see the module doc); raises :class:`KitError`
    naming every problem."""
    if not isinstance(mapping, Mapping):
        raise KitError(f"{source}: {_OBJECT}, got {_shown(mapping)}")
    by_kind, problems = _checked(list(mapping.items()))
    _raise(source, problems)
    return Labels(by_kind)


def load_labels(path: str | Path) -> Labels:
    """Read and check a label file; raises :class:`KitError` with the file's name, and the line
    and member of every problem."""
    source = f"label file {str(path)!r}"
    try:
        with open(path, "rb") as file:
            data = file.read(LABEL_FILE_MAX_BYTES + 1)
    except OSError as exc:
        raise KitError(f"{source}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > LABEL_FILE_MAX_BYTES:
        raise KitError(f"{source}: larger than 1 MiB; a label file is one small JSON object")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1:exc.start].decode("utf-8")) + 1
        raise KitError(f"{source}: line {line}, column {column}: not UTF-8 ({exc.reason})") from None
    if text.startswith("\ufeff"):
        raise KitError(f"{source}: line 1, column 1: not JSON: a byte order mark (U+FEFF) begins the file; save it "
                       "as UTF-8 without one")
    if not _skip(text, 0) < len(text):
        raise KitError(f"{source}: line 1: no JSON value; {_OBJECT}")
    top: list[list[tuple[str, Any]]] = [[]]

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        top[0] = items  # the last object read is the outermost: the file's members, twice-given names kept
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise KitError(f"{source}: line {exc.lineno}, column {exc.colno}: not JSON: {exc.msg}") from None
    except RecursionError:
        raise KitError(f"{source}: {_deep_place(text)}: not JSON: nested too deep to read") from None
    if not isinstance(value, dict):
        line = text.count("\n", 0, _skip(text, 0)) + 1
        shown = f"not JSON: {value.token}" if isinstance(value, _NotJSON) else f"{_OBJECT}, got {_shown(value)}"
        raise KitError(f"{source}: line {line}: {shown}")
    by_kind, problems = _checked(top[0], _MemberLines(text).line)
    _raise(source, problems)
    return Labels(by_kind)


def _skip(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace."""
    return _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]  # it matches the empty string too


class _MemberLines:
    """The line of each member of the JSON object a label file holds, found when asked (a file
    of many bad members is walked only as far as the problems that are shown)."""

    __slots__ = ("at", "counted", "decoder", "lines", "name", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = _skip(text, 0) + 1  # past the opening brace
        self.counted = (0, 1)  # (position, its line): lines are counted onwards
        self.lines: list[int] = []
        self.name: object = None
        self.decoder = json.JSONDecoder()

    def line(self, order: int) -> int:
        while len(self.lines) <= order:
            self._next()
        return self.lines[order]

    def _next(self) -> None:
        text = self.text
        at = _skip(text, self.at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        position, line = self.counted
        line += text.count("\n", position, at)
        self.counted = (at, line)
        self.lines.append(line)
        self.name, at = self.decoder.raw_decode(text, at)
        _, self.at = self.decoder.raw_decode(text, _skip(text, _skip(text, at) + 1))


def _deep_place(text: str) -> str:
    """Where a value nested too deep to read starts: its member and line."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return f"line {text.count(chr(10), 0, at) + 1}"
    members = _MemberLines(text)
    try:
        for order in itertools.count():
            members.line(order)
    except RecursionError:
        return f"line {members.lines[-1]}, {_shown(members.name)}"
    except ValueError:  # not reached: the reader met the depth before any other fault
        pass
    return "line 1"


__all__ = ["KIND_LABELS", "LABEL_FILE_MAX_BYTES", "LABEL_MAX_CHARS", "Labels", "labels_from", "load_labels"]

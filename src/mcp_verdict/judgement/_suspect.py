"""Error-shaped success: failures reported inside a normal result.

Many servers report a failure without ``isError: true`` — a structuredContent such as
``{"status": "error"}`` or ``{"success": false}``, or text that starts with ``Error:`` or a
Python traceback (kimai_mcp, kubeflow/mcp-server, winremote-mcp and n8n's MCP trigger all
shipped this bug). The default content check flags such results as ``content.suspect_error``
with the evidence; a flagged result is never accepted unless a caller expectation explicitly
passes it.

The heuristics are this one table (``DEFAULT_SUSPECTS``); pass ``suspects=()`` to turn them
off, or ``DEFAULT_SUSPECTS + (Suspect(...),)`` to extend them.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import FunctionType, MethodType
from typing import Any, Final

from ..verdict._classify import OptionError
from ..verdict._kind import Kind
from ..verdict._shown import described, shown, unreadable
from ..verdict._verdict import Verdict


@dataclass(frozen=True, slots=True)
class Suspect:
    """One heuristic: ``test`` returns ``(JSON pointer, evidence)`` when the result looks failed,
    else ``None`` (or ``False``). A test that raises or answers anything else cannot clear the
    result: the check reports it as a match saying so."""

    id: str
    description: str
    test: Callable[[Verdict], tuple[str, str] | None]

    def __post_init__(self) -> None:
        """A heuristic is a non-empty id string, a description string and a plain (not async)
        callable: anything else is the caller's mistake, an ``OptionError`` when it is made."""
        if not isinstance(self.id, str) or not self.id:
            raise OptionError("Suspect.id", "a non-empty string", self.id,
                              f"Suspect.id must be a non-empty string, not {shown(self.id)}")
        if not isinstance(self.description, str):
            raise OptionError("Suspect.description", "a string", self.description,
                              f"Suspect.description must be a string, not {shown(self.description)}")
        if not callable(self.test) or is_async(self.test):
            raise OptionError("Suspect.test", _TEST, self.test, f"Suspect.test must be {_TEST}, not {shown(self.test)}")
        problem = call_problem(self.test)
        if problem is not None:
            raise OptionError("Suspect.test", _TEST, self.test,
                              f"Suspect.test must be {_TEST}; {shown(self.test)} cannot take it: {problem}")


_TEST: Final = "a plain (not async) callable taking the verdict"


_COMPLETE: Final = frozenset({Kind.NORMAL_COMPLETE, Kind.TOOL_ERROR})
"""The kinds whose verdict has content (``Verdict.content`` is empty for the others)."""
_NORMAL_COMPLETE: Final = Kind.NORMAL_COMPLETE
_TOOL_ERROR: Final = Kind.TOOL_ERROR
_FAILED_STATUS: Final = frozenset({"error", "failed", "failure", "fail"})
_ERROR_KEYS: Final = ("error", "error_code", "errorCode", "errors", "exception")
_TRACEBACK: Final = "Traceback (most recent call last):"
_ERROR_PREFIX: Final = re.compile(r"\s*(error|fatal)\s*[:!]", re.IGNORECASE)
_EXCEPTION_PREFIX: Final = re.compile(r"\s*((?i:exception)\b|[A-Za-z_][\w.]*(Error|Exception)\s*:)")


def is_async(function: object) -> bool:
    """Whether caller code is an ``async def`` function (an answer to await, never a value);
    False when telling raises (an attribute read that raises is caller code too)."""
    try:
        return inspect.iscoroutinefunction(function)
    except Exception:
        return False


def call_problem(function: object, arguments: int = 1) -> str | None:
    """Why caller code cannot be called with the positional arguments it is documented to take
    (one: the verdict, or what a read returned), as its signature says (``"too many positional
    arguments"``, ``"missing a required argument: 'b'"``); None when it can, or when its
    signature cannot be read (a builtin without one, a callable whose ``__signature__`` raises):
    such a callable is taken, and what it raises when called is reported as any raise is."""
    if _takes(function, arguments):  # (a plain function's code says so at once)
        return None
    try:
        signature = inspect.signature(function)  # type: ignore[arg-type]
    except Exception:
        return None
    try:
        signature.bind(*(None,) * arguments)
    except TypeError as exc:
        return described(exc, 200).partition(": ")[2]
    except Exception:  # a signature object of the caller's own making
        return None
    return None


def _takes(function: object, arguments: int) -> bool:
    """Whether a plain Python function (or a method bound to one) can take ``arguments``
    positional arguments, read from its code: what ``inspect.signature(...).bind`` says of it,
    at a twentieth of the cost (an expectation is given on each call judged, often as a fresh
    lambda). False when its code does not say (anything else; a function whose ``__dict__``
    holds anything, such as ``__wrapped__`` or ``__signature__``, which ``inspect`` follows):
    then ``inspect`` decides."""
    if type(function) is MethodType:
        function, arguments = function.__func__, arguments + 1
    if type(function) is not FunctionType or function.__dict__:
        return False
    code = function.__code__
    defaults = function.__defaults__
    kwonly = function.__kwdefaults__
    if code.co_kwonlyargcount > (len(kwonly) if kwonly else 0):
        return False  # a keyword-only parameter without a default
    positional = code.co_argcount
    return positional - (len(defaults) if defaults else 0) <= arguments and (
        arguments <= positional or bool(code.co_flags & inspect.CO_VARARGS))


_TOOL: Final = "the tool as listed (a mapping) or None"


def readable_tool(option: str, tool: Mapping[str, Any]) -> None:
    """A tool given as a mapping that is no dict, read as the judgement reads it (its members,
    ``outputSchema``, ``name``, ``annotations``) once, where it is given: a mapping whose reading
    raises (its ``__iter__``, ``__getitem__``, ``keys``: caller code) is an OptionError naming
    ``option``, not an exception out of a content check or a decision."""
    try:
        dict(tool)
        "outputSchema" in tool  # noqa: B015 - read for what it raises
        tool.get("name")
        tool.get("annotations")
    except Exception as exc:
        raise unreadable(option, _TOOL, tool, exc) from None


def _structured(verdict: Verdict) -> Mapping[str, Any] | None:
    value = verdict.structured_content
    return value if isinstance(value, dict) else None


def _status_error(verdict: Verdict) -> tuple[str, str] | None:
    data = _structured(verdict)
    if data is None:
        return None
    for key in ("status", "state", "result"):
        value = data.get(key)
        if isinstance(value, str) and value.strip().lower() in _FAILED_STATUS:
            return f"/result/structuredContent/{key}", f"{key}: {value!r}"
    return None


def _success_false(verdict: Verdict) -> tuple[str, str] | None:
    data = _structured(verdict)
    if data is None:
        return None
    for key in ("success", "ok", "succeeded"):
        if data.get(key) is False:
            return f"/result/structuredContent/{key}", f"{key}: false"
    return None


def _error_key(verdict: Verdict) -> tuple[str, str] | None:
    data = _structured(verdict)
    if data is None:
        return None
    for key in _ERROR_KEYS:
        value = data.get(key)
        if value is None:  # absent or null: what the test below also skips, without building its tuple
            continue
        if value not in (None, False, "", [], {}) and key in data:
            return f"/result/structuredContent/{key}", f"{key}: {shown(value, 60)}"
    return None


def _text_blocks(verdict: Verdict) -> list[tuple[int, str]]:
    """(index, text) of each text block: ``verdict.content``'s TextBlocks, read from the message
    the verdict checked without building a block value for each (three heuristics read them)."""
    if verdict.kind not in _COMPLETE:
        return []
    message: Any = verdict.message
    return [(i, raw["text"]) for i, raw in enumerate(message["result"]["content"]) if raw["type"] == "text"]


def _error_text(verdict: Verdict) -> tuple[str, str] | None:
    for index, text in _text_blocks(verdict):
        if _ERROR_PREFIX.match(text):
            return f"/result/content/{index}/text", text.strip().splitlines()[0][:80]
    return None


def _exception_text(verdict: Verdict) -> tuple[str, str] | None:
    for index, text in _text_blocks(verdict):
        if _EXCEPTION_PREFIX.match(text):
            return f"/result/content/{index}/text", text.strip().splitlines()[0][:80]
    return None


def _traceback_text(verdict: Verdict) -> tuple[str, str] | None:
    for index, text in _text_blocks(verdict):
        if _TRACEBACK in text:
            return f"/result/content/{index}/text", _TRACEBACK
    return None


_error_prefix: Final = _ERROR_PREFIX.match
_exception_prefix: Final = _EXCEPTION_PREFIX.match
_STRUCTURED_TESTS: Final = (("structured.status_error", _status_error), ("structured.success_false", _success_false),
                             ("structured.error_key", _error_key))
_STRUCTURED_KEYS: Final = frozenset({"status", "state", "result", "success", "ok", "succeeded", *_ERROR_KEYS})
"""Every member the three structuredContent heuristics read: a dict holding none of them
trips none of them."""
_MAY_START: Final = frozenset(c for c in map(chr, range(128)) if c.isspace() or c.isalpha() or c == "_")
"""The ASCII characters a text either prefix pattern can match must start with: whitespace
(``str.isspace``, which is ``\\s``), a letter or ``_``; a character past ASCII only when it is
whitespace (one set test where three ``str`` methods were called)."""


def default_matches(verdict: Verdict) -> list[tuple[str, str, str]]:
    """What the heuristics of ``DEFAULT_SUSPECTS`` find, as (id, path, evidence) in the table's
    order: the same as running each row's ``test``, in one pass over the result.

    The content check runs it on every judged call, so the common case is short: a
    structuredContent holding none of the members the heuristics read is skipped with one set
    test, and each text block is read once for the three text heuristics (each still reports
    the first block it fires on). Both prefix patterns start with ``\\s*`` and then an ASCII
    letter or ``_`` (``[A-Za-z_]``, or the first letter of error, fatal or exception, which no
    other character matches even ignoring case), so a text whose first character is neither
    whitespace (``str.isspace`` is ``\\s``) nor one of those is not matched against them (a text
    holding JSON starts with ``{``): each match costs more than the rest of the block's reading."""
    kind = verdict.kind
    if kind is not _NORMAL_COMPLETE and kind is not _TOOL_ERROR:  # not in _COMPLETE (an Enum hashes in Python)
        return []
    found: list[tuple[str, str, str]] = []
    result: Any = verdict.message["result"]
    data = result.get("structuredContent")
    if isinstance(data, dict) and (type(data) is not dict or not _STRUCTURED_KEYS.isdisjoint(data)):  # (its keys)
        for name, test in _STRUCTURED_TESTS:
            hit = test(verdict)
            if hit is not None:
                found.append((name, hit[0], hit[1]))
    error = exception = traceback = None
    index = -1  # (counted here: an enumerate object costs more than the rest of a short block's reading)
    for raw in result["content"]:
        index += 1
        if raw["type"] != "text":
            continue
        text = raw["text"]
        first = text[:1]
        if first in _MAY_START or (first > "\x7f" and first.isspace()):  # else neither can match
            if error is None and _error_prefix(text):
                error = ("text.error_prefix", f"/result/content/{index}/text", text.strip().splitlines()[0][:80])
            if exception is None and _exception_prefix(text):
                exception = ("text.exception", f"/result/content/{index}/text", text.strip().splitlines()[0][:80])
        if traceback is None and _TRACEBACK in text:
            traceback = ("text.traceback", f"/result/content/{index}/text", _TRACEBACK)
    if error is not None:
        found.append(error)
    if exception is not None:
        found.append(exception)
    if traceback is not None:
        found.append(traceback)
    return found


DEFAULT_SUSPECTS: Final[tuple[Suspect, ...]] = (
    Suspect("structured.status_error", 'structuredContent has status/state/result "error", "failed", '
            '"failure" or "fail" (any case)', _status_error),
    Suspect("structured.success_false", "structuredContent has success, ok or succeeded = false", _success_false),
    Suspect("structured.error_key", "structuredContent has a non-empty error, error_code, errorCode, errors "
            "or exception member", _error_key),
    Suspect("text.error_prefix", 'a text block starts with "Error:" or "Fatal:" (any case)', _error_text),
    Suspect("text.exception", 'a text block starts with "Exception" or "SomethingError:"', _exception_text),
    Suspect("text.traceback", "a text block holds a Python traceback", _traceback_text),
)

"""``classify``: one ``tools/call`` response in, one verdict out.

Two kinds of error are kept apart, as h11 keeps local and remote protocol errors apart:

- a malformed *response* is the peer's problem: ``classify`` never raises for any
  ``response``; it returns an ``unclassified`` verdict whose findings say why;
- a bad *option* (unknown version, a bool request id, extensions given as one string...)
  is the caller's own mistake: ``classify`` raises ``ValueError`` at once.

This module is what an import of classify loads: the function, its options' types and its
errors, and nothing that needs msgspec (whose import, with its ``typing_extensions``,
``inspect``, ``uuid``, ``datetime`` and ``decimal``, costs more than all the rest of the
import). The options' checks, the readers and the verdict value (``_judge``, ``_fastpath``,
``_verdict``, msgspec) are loaded by the first call, which builds its version's readers then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from ._frozen import Frozen
from ._versions import LATEST_VERSION

if TYPE_CHECKING:
    from ._options import Options
    from ._verdict import Verdict

OPTION_NAMES: Final = ("request_id", "client_capabilities", "extensions", "absent_result_type", "limits")
"""``classify``'s options besides the version (each checked alone by :func:`check_option`)."""


def _shown(value: object) -> str:
    """A wrong option's value written for its message, bounded (``_shown.shown``, imported by
    the first wrong option: an import of classify does not load it)."""
    from ._shown import shown

    return shown(value)


def _unreadable(option: str, expected: str, value: object, exc: BaseException) -> OptionError:
    """``_shown.unreadable``: the OptionError of an option whose reading raised (imported then)."""
    from ._shown import unreadable

    return unreadable(option, expected, value, exc)


class OptionError(ValueError):
    """A bad option of ``classify`` (its message says which and why), and where it is, for a
    caller that names places its own way (the corpus loader names a data line's member):
    ``option`` is the option or the member of it that is wrong (``limits.max_depth``,
    ``client_capabilities.sampling``, ``extensions[1]``), ``expected`` what it must be, in words,
    and ``value`` what was given there."""

    def __init__(self, option: str, expected: str, value: object, message: str | None = None) -> None:
        self.option = option
        self.expected = expected
        self.value = value
        super().__init__(message if message is not None else f"{option} must be {expected}, not {_shown(value)}")

    def __reduce__(self) -> tuple[type[OptionError], tuple[str, str, object, str]]:
        return (type(self), (self.option, self.expected, self.value, str(self)))


PARSER_MAX_DEPTH: Final = 200
"""jiter's own nesting limit; ``Limits.max_depth`` cannot be set above it."""


class Limits(Frozen):
    """Bounds on what one response may cost to read.

    ``max_bytes`` bounds the wire text; ``max_depth`` the nesting of objects and arrays (the
    envelope object is depth 1; at most 200, the wire parser's own bound); ``max_nodes`` the
    number of values a walk over a parsed value may visit (shared or cyclic references in a
    value handed in by the caller).

    Immutable; compared, hashed and pickled by its bounds.
    """

    __match_args__ = ("max_bytes", "max_depth", "max_nodes")
    __slots__ = __match_args__

    max_bytes: int
    max_depth: int
    max_nodes: int

    def __init__(self, max_bytes: int = 64 * 1024 * 1024, max_depth: int = 64, max_nodes: int = 10_000_000) -> None:
        for name, value in (("max_bytes", max_bytes), ("max_depth", max_depth), ("max_nodes", max_nodes)):
            deep = name == "max_depth"  # bounded by the wire parser's own bound
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 \
                    or (deep and value > PARSER_MAX_DEPTH):
                expected = f"a positive integer of at most {PARSER_MAX_DEPTH}" if deep else "a positive integer"
                raise OptionError(f"limits.{name}", expected, value, f"Limits.{name} must be {expected}"
                                  f"{' (the wire parser bound)' if deep else ''}, not {_shown(value)}")
        self._hold(max_bytes=max_bytes, max_depth=max_depth, max_nodes=max_nodes)


DEFAULT_LIMITS: Final = Limits()

AbsentResultType = Literal["invalid", "complete"]

_PLAIN: Final[dict[str, Options]] = {}
"""Options of a call that sets nothing but the version, by version: filled by ``_options``
on the version's first such call (a memo; the options are a pure function of the version)."""


class _KeywordsOnly:
    """The type of :data:`_KEYWORDS`, which nothing else is: a type checker refuses an option
    given to ``classify`` by its place (``classify(wire, "2025-06-18")``), as Python does."""

    __slots__ = ()


_KEYWORDS: Final = _KeywordsOnly()
"""``classify``'s second parameter when it is not given, which it must not be: the options
follow it, by keyword only. They are not declared keyword-only (after ``*``) because CPython
3.11 calls a function with keyword-only parameters by its generic path (no specialised call,
a dictionary lookup for each default): ~780 more instructions a call, ~5% of a short answer's
(callgrind)."""


_NONE: Final = ()
"""classify's default extensions (the one empty tuple: ``()`` is it)."""
_COLLECTIONS: Final = frozenset({frozenset, tuple, list, set})
"""The built-in collections ``extensions`` may be without the ABC tests."""


def classify(
    response: object,
    _keywords: _KeywordsOnly = _KEYWORDS,
    version: str = LATEST_VERSION,
    request_id: str | int | None = None,
    client_capabilities: Mapping[str, Any] | None = None,
    extensions: Iterable[str] = (),
    absent_result_type: AbsentResultType = "invalid",
    limits: Limits = DEFAULT_LIMITS,
) -> Verdict:
    """Classify one JSON-RPC response to ``tools/call``.

    ``response`` is the raw wire text (``bytes``, ``bytearray``, ``memoryview`` or ``str``,
    read strictly: UTF-8, standard JSON, no duplicate keys) or an already parsed JSON value.

    ``version`` is the negotiated protocol version. ``request_id``, when given, must equal the
    response id with the same JSON type. ``client_capabilities`` is the capabilities object the
    client declared; with it, input requests the client cannot serve are refused.
    ``extensions`` lists the negotiated extensions (``"io.modelcontextprotocol/tasks"`` enables
    task results; on 2025-11-25 it means the request was task-augmented).
    ``absent_result_type="complete"`` opts in to reading a 2026-07-28 result without
    resultType as complete (the specification's back-compat rule); the default is strict.

    Never raises for any ``response``; raises ``ValueError`` for a bad option.
    """
    if _keywords is not _KEYWORDS:
        raise TypeError("classify() takes 1 positional argument (the response); its options are given by keyword")
    try:
        options = _PLAIN[version]
    except Exception:  # a version not yet seen plainly, or not a version at all: _options says
        options = None
    if (options is None or client_capabilities is not None
            or (extensions is not _NONE and (extensions or type(extensions) not in _COLLECTIONS))
            or absent_result_type != "invalid" or limits is not DEFAULT_LIMITS):
        options = _options(version, client_capabilities, extensions, absent_result_type, limits)
    if request_id is not None and type(request_id) is not int and type(request_id) is not str:
        request_id = _check_request_id(request_id)  # the rule, for anything but a plain integer or string
    if type(response) is bytes:
        # judge's first step, taken here: most answers are short texts the fast path knows
        if len(response) <= options.quick_typed:
            verdict = read_typed(response, options, request_id)
        elif len(response) <= options.quick_short:
            verdict = read_common(response, options, request_id)
        else:
            return judge(response, options, request_id)
        return verdict if verdict else judge(response, options, request_id, fast=False, not_utf8=verdict is False)
    return judge(response, options, request_id)


def _as_called(
    response: object,
    *,
    version: str = LATEST_VERSION,
    request_id: str | int | None = None,
    client_capabilities: Mapping[str, Any] | None = None,
    extensions: Iterable[str] = (),
    absent_result_type: AbsentResultType = "invalid",
    limits: Limits = DEFAULT_LIMITS,
) -> Verdict:
    """``classify``'s signature as callers see it (never called): the response by its place,
    then the options by keyword only. ``classify`` names it as the function it presents
    (``__wrapped__``), so ``inspect.signature`` and ``help`` show this one, without the guard
    ``_keywords``; building that signature with ``inspect`` would load ``inspect`` on import
    (~7 ms). A test holds the two parameter lists equal."""
    raise NotImplementedError("classify's signature alone; call classify")


classify.__wrapped__ = _as_called  # type: ignore[attr-defined]


def check_option(name: str, value: object) -> None:
    """One of ``classify``'s options (:data:`OPTION_NAMES`) checked alone by the checks
    ``classify`` runs on it: an :class:`OptionError` naming the first wrong member of a bad one."""
    if name == "request_id":
        if value is not None:
            _check_request_id(value)
    elif name in OPTION_NAMES:
        _options(LATEST_VERSION, **{name: value})
    else:
        raise ValueError(f"unknown option {name!r}; classify's options are {', '.join(OPTION_NAMES)}")


def on_first_use(namespace: dict[str, Any], slot: str, module: str, name: str) -> Callable[..., Any]:
    """A stand-in for the function ``name`` of the sibling module ``module``, held in the slot
    ``slot`` of a module's ``namespace`` (its ``globals()``): its first call imports the module,
    binds ``slot`` to the function itself for the calls after it, and calls it. An import of
    classify does not load what its first call needs, nor what the common answers, proven by
    the fast path, never reach."""
    def first(*args: Any, **kwargs: Any) -> Any:
        function = getattr(__import__(f"{__package__}.{module}", fromlist=[name]), name)  # (no importlib to load)
        namespace[slot] = function  # replaced once, by the module's own function
        return function(*args, **kwargs)

    return first


_options: Callable[..., Options] = on_first_use(globals(), "_options", "_judge", "_options")
"""The options checked and built (``_judge._options``, with the readers' module and msgspec),
bound by classify's first call, on any version."""
_check_request_id: Callable[[object], str | int] = on_first_use(globals(), "_check_request_id", "_judge",
                                                                "_check_request_id")
"""The request id's rule, ``_judge._check_request_id``, bound by its first use."""
read_typed: Callable[[bytes, Options, str | int | None], Verdict | Literal[False] | None] = on_first_use(
    globals(), "read_typed", "_fastpath", "read_typed")
"""The fast path's typed read, ``_fastpath.read_typed``, bound by the first short text."""
read_common: Callable[..., Verdict | Literal[False] | None] = on_first_use(
    globals(), "read_common", "_fastpath", "read_common")
"""The fast path's reader of the common shapes, ``_fastpath.read_common``."""
judge: Callable[..., Verdict] = on_first_use(globals(), "judge", "_judge", "judge")
"""The judging of what the fast path does not take, ``_judge.judge``."""


__all__ = ["DEFAULT_LIMITS", "OPTION_NAMES", "PARSER_MAX_DEPTH", "AbsentResultType", "Limits", "OptionError",
           "check_option", "classify"]

"""Receivers: the application's function under test, found by name and called by convention.

A receiver is called ``receiver(response, **options)``. ``response`` is what the receiver
declared it takes (see :data:`InputMode`); ``options`` are those of the case's ``version``,
``request_id``, ``client_capabilities``, ``extensions``, ``absent_result_type`` and ``limits``
that its signature accepts (a ``**kwargs`` receiver accepts them all). It returns a label
string, a :class:`~mcp_verdict.Kind`, or any object with a ``.kind`` (a ``Verdict``).

This module is at the edge: it imports the application's code and inspects it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, cast, get_args

from ..verdict._classify import classify
from ..verdict._shown import shown

InputMode = Literal["parsed", "raw", "both"]
"""What a receiver takes as ``response``:

- ``parsed``: the parsed JSON value (a fresh copy per call). Raw-only cases whose bytes are
  not strict JSON (duplicate keys, NaN, bad UTF-8, ...) are skipped: no parsed value exists;
- ``raw``: the wire bytes (``Case.wire()``: raw cases as they are, parsed cases serialised);
- ``both``: each case's input as the corpus holds it, wire bytes or a parsed value.

A receiver declares it with an ``mcp_receiver_input`` attribute (``"raw"``...); without one it
takes ``parsed``. The ``--mcp-receiver-input`` / ``--input`` options override both.
"""

INPUT_MODES: Final[tuple[str, ...]] = get_args(InputMode)

INPUT_ATTRIBUTE: Final = "mcp_receiver_input"
"""The attribute by which a receiver function declares its :data:`InputMode`."""

OPTION_NAMES: Final = ("version", "request_id", "client_capabilities", "extensions",
                       "absent_result_type", "limits")
"""The options the kit may pass, by keyword, when the receiver's signature accepts them."""


class KitError(ValueError):
    """A receiver spec, a receiver's signature or a label file is unusable (the user's own
    setup, reported before any case runs)."""


@dataclass(frozen=True, slots=True)
class Receiver:
    """A function under test, with what it takes."""

    name: str
    function: Callable[..., Any]
    input: InputMode = "parsed"
    accepts: frozenset[str] | None = frozenset()
    """The option names it accepts by keyword; ``None`` when it takes ``**kwargs``."""

    def takes(self, option: str) -> bool:
        return self.accepts is None or option in self.accepts


def receiver_from(function: Callable[..., Any], *, name: str | None = None,
                  input: InputMode | None = None) -> Receiver:
    """Wrap a callable as a receiver, checking that the kit can call it.

    ``input`` overrides the function's ``mcp_receiver_input`` declaration (default parsed).
    Raises :class:`KitError` when the signature cannot take ``receiver(response, **options)``.
    """
    if name is not None and not isinstance(name, str):
        raise KitError(f"name: expected a string or None, got {shown(name)}")
    label = name or _name_of(function)
    if not callable(function):
        raise KitError(f"{label} is not callable (it is {type(function).__name__})")
    mode = input if input is not None else _declared_input(function)
    if mode not in INPUT_MODES:
        raise KitError(f"{label}: input mode must be one of {', '.join(INPUT_MODES)}, not {shown(mode)}")
    return Receiver(label, function, cast(InputMode, mode), _accepted_options(function, label))


def _declared_input(function: object) -> object:
    declared = getattr(function, INPUT_ATTRIBUTE, None)
    if declared is None and function is classify:
        return "both"  # classify reads wire bytes and parsed values alike (the core carries no kit attribute)
    return "parsed" if declared is None else declared


def _name_of(function: object) -> str:
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
    return f"{module}:{qualname}" if module else str(qualname)


def _accepted_options(function: Callable[..., Any], label: str) -> frozenset[str] | None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as exc:
        raise KitError(f"{label}: cannot read its signature ({exc}); wrap it in a Python function "
                       "def receiver(response, version): ...") from None
    params = list(signature.parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not params or (params[0].kind not in positional and params[0].kind is not inspect.Parameter.VAR_POSITIONAL):
        raise KitError(f"{label}{signature} cannot be called as receiver(response): it takes no positional "
                       "argument for the response")
    accepted: set[str] = set()
    var_keyword = False
    for param in params[1:]:
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            var_keyword = True
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        elif param.kind is inspect.Parameter.POSITIONAL_ONLY:
            if param.default is inspect.Parameter.empty:
                raise KitError(f"{label}{signature}: the kit passes one positional argument (the response); "
                               f"{param.name!r} would be missing")
        elif param.name in OPTION_NAMES:
            if param.default is inspect.Parameter.empty and param.name != "version":
                raise KitError(f"{label}{signature}: {param.name!r} needs a default, since the kit passes it "
                               "only for the cases that set it")
            accepted.add(param.name)
        elif param.default is inspect.Parameter.empty:
            raise KitError(f"{label}{signature}: the kit never passes {param.name!r} (it passes the response "
                           f"and, by keyword, any of {', '.join(OPTION_NAMES)})")
    return None if var_keyword else frozenset(accepted)


__all__ = ["INPUT_ATTRIBUTE", "INPUT_MODES", "OPTION_NAMES", "InputMode", "KitError", "Receiver",
           "receiver_from"]

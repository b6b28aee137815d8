"""Finding a receiver by name: ``package.module:function`` or a built-in receiver's name.

Kept apart from ``_receiver`` (the calling convention) so that the built-in receivers, which
are receivers like any other, can use that convention without a circle of imports.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from typing import Any, Final

from ..verdict._shown import shown
from ._builtins import BUILTINS, builtin
from ._receiver import InputMode, KitError, Receiver, receiver_from

MAX_SPEC: Final = 1000
"""The longest receiver spec taken (a dotted module path and attribute): the messages write it whole."""


def load_receiver(spec: str, *, input: InputMode | None = None) -> Receiver:
    """Find a receiver by ``package.module:function`` (the attribute may be dotted, e.g.
    ``module:Class.method``) or by the name of a built-in receiver (:data:`BUILTINS`). A
    ``spec`` of no string is a :class:`KitError`; the spec is written bounded in every message."""
    if not isinstance(spec, str):
        raise KitError(f"receiver: expected a string (package.module:function, or a built-in receiver: "
                       f"{', '.join(BUILTINS)}), got {shown(spec)}")
    if len(spec) > MAX_SPEC:  # every message below writes it whole
        raise KitError(f"receiver {shown(spec)}: expected package.module:function, not {len(spec):,} characters")
    if ":" not in spec:
        if spec in BUILTINS:
            found = builtin(spec)
            return found if input is None else dataclasses.replace(found, input=input)
        raise KitError(f"receiver {spec!r}: expected package.module:function, or a built-in receiver "
                       f"({', '.join(BUILTINS)})")
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise KitError(f"receiver {spec!r}: expected package.module:function")
    if module_name.startswith("."):
        raise KitError(f"receiver {spec!r}: {module_name!r} is a relative module name; give the module's full "
                       "dotted name")
    _working_directory_importable()
    try:
        target: Any = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SyntaxError, whatever it raises at import, SystemExit: all the user's setup
        raise KitError(f"receiver {spec!r}: cannot import module {module_name!r}: {_exception_text(exc)}") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise KitError(f"receiver {spec!r}: {module_name}.{attribute} does not exist "
                           f"(no attribute {part!r})") from None
        except Exception as exc:  # a module __getattr__ or a property that raises
            raise KitError(f"receiver {spec!r}: reading {part!r} raised {_exception_text(exc)}") from None
    return receiver_from(target, name=spec, input=input)


def _working_directory_importable() -> None:
    """A receiver module in the working directory imports, as with ``python -m``: console scripts
    (``mcp-verdict``, ``pytest``) do not put the working directory on ``sys.path``."""
    cwd = os.getcwd()
    present = {os.path.abspath(entry or os.curdir) for entry in sys.path if isinstance(entry, str)}
    if cwd not in present:
        sys.path.insert(0, cwd)


def _exception_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["load_receiver"]

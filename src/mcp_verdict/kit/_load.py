"""Finding a receiver by name: ``package.module:function`` or a built-in receiver's name.

Kept apart from ``_receiver`` (the calling convention) so that the built-in receivers, which
are receivers like any other, can use that convention without a circle of imports.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from ._builtins import BUILTINS, builtin
from ._receiver import InputMode, KitError, Receiver, receiver_from


def load_receiver(spec: str, *, input: InputMode | None = None) -> Receiver:
    """Find a receiver by ``package.module:function`` (the attribute may be dotted, e.g.
    ``module:Class.method``) or by the name of a built-in receiver (:data:`BUILTINS`)."""
    if ":" not in spec:
        if spec in BUILTINS:
            found = builtin(spec)
            return found if input is None else dataclasses.replace(found, input=input)
        raise KitError(f"receiver {spec!r}: expected package.module:function, or a built-in receiver "
                       f"({', '.join(BUILTINS)})")
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise KitError(f"receiver {spec!r}: expected package.module:function")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise KitError(f"receiver {spec!r}: cannot import module {module_name!r}: {exc}") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise KitError(f"receiver {spec!r}: {module_name}.{attribute} does not exist "
                           f"(no attribute {part!r})") from None
    return receiver_from(target, name=spec, input=input)


__all__ = ["load_receiver"]

"""Label files: how an application's own labels map onto the six kinds.

A label file is a JSON object with one member per kind, whose value is the application's
label for it; several kinds may share a label, but no other kind may share the success
label (the one ``normal_complete`` maps to)::

    {"normal_complete": "ok", "tool_error": "not_ok", "input_required": "not_ok",
     "task": "not_ok", "protocol_error": "not_ok", "unclassified": "not_ok"}

Without a label file the labels are the kinds' own names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..verdict._kind import Kind
from ._receiver import KitError


@dataclass(frozen=True, slots=True)
class Labels:
    """The application's label for each kind."""

    by_kind: Mapping[Kind, str]

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


KIND_LABELS: Labels = Labels({kind: kind.value for kind in Kind})
"""The default: every kind is its own label."""


def labels_from(mapping: object, *, source: str = "labels") -> Labels:
    """Check a mapping of kind names to labels (see the module doc); raises :class:`KitError`."""
    if not isinstance(mapping, Mapping):
        raise KitError(f"{source}: a label file is a JSON object mapping each kind to your label, e.g. "
                       '{"normal_complete": "ok", "tool_error": "not_ok", ...}')
    known = {kind.value for kind in Kind}
    unknown = sorted(str(key) for key in mapping if key not in known)
    if unknown:
        raise KitError(f"{source}: unknown kinds {', '.join(map(repr, unknown))}; the kinds are "
                       f"{', '.join(kind.value for kind in Kind)}")
    missing = [kind.value for kind in Kind if kind.value not in mapping]
    if missing:
        raise KitError(f"{source}: unmapped kinds {', '.join(missing)}: give every kind a label "
                       "(several kinds may share one)")
    by_kind: dict[Kind, str] = {}
    for kind in Kind:
        label: Any = mapping[kind.value]
        if not isinstance(label, str) or not label:
            raise KitError(f"{source}: the label of {kind.value} must be a non-empty string, not {label!r}")
        by_kind[kind] = label
    success = by_kind[Kind.NORMAL_COMPLETE]
    unsafe = [kind.value for kind, label in by_kind.items() if label == success and kind is not Kind.NORMAL_COMPLETE]
    if unsafe:
        raise KitError(f"{source}: {', '.join(unsafe)} mapped to {success!r}, the success label of "
                       "normal_complete: a non-success kind must never read as success")
    return Labels(by_kind)


def load_labels(path: str | Path) -> Labels:
    """Read and check a label file; raises :class:`KitError` with the file's name."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise KitError(f"label file {str(path)!r}: cannot read it: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KitError(f"label file {str(path)!r}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        mapping = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError as exc:
        raise KitError(f"label file {str(path)!r}: not JSON: {exc}") from None
    except RecursionError:
        raise KitError(f"label file {str(path)!r}: not a label file: RecursionError (nested too deep to "
                       "read)") from None
    return labels_from(mapping, source=f"label file {str(path)!r}")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


__all__ = ["KIND_LABELS", "Labels", "labels_from", "load_labels"]

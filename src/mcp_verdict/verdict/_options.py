"""The checked options of a ``classify`` call, and the skim's bound they are held to.

``_judge`` checks a call's options once and builds their :class:`Options` (a memo holds them
per version); the fast path, the full checker (``_walk.Context``) and the edges (the proxy, the
tap) read them. The skim's bound lives here, beside the options held to it, so that the first
call does not load the strict reader (``_parser``), which reads it too; the nesting bound
(``PARSER_MAX_DEPTH``) lives with the ``Limits`` it bounds, in ``_classify``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import msgspec

from ._versions import VersionRules

SKIM_BYTES: Final = 1 << 18
"""Texts longer than this, of dense tokens, are skimmed for syntax errors before any value is built."""


class Options(msgspec.Struct, frozen=True):  # a frozen Struct: defined in C, unlike a dataclass (~0.5 ms)
    """The checked options of a ``classify`` call (built once, shared by every call alike)."""

    rules: VersionRules
    max_bytes: int
    max_depth: int
    max_nodes: int
    client_capabilities: Mapping[str, Any] | None
    extensions: frozenset[str]
    absent_is_complete: bool
    read_common: Callable[[bytes], Any] | None = None
    """msgspec's reader of the common response shapes under these options (``_fastpath``);
    ``None`` where the depth limit leaves no room for them."""
    quick_bytes: int = -1
    """The longest wire text the fast path reads without counting values against
    ``max_nodes`` (no text holds more values than bytes); -1 without ``read_common``."""
    form_elicitation: bool = True
    """A form-mode elicitation may be asked of the client: no capabilities are given, or they
    declare elicitation with form mode (``_input._require_capability``'s rule, read once here
    for the fast path)."""
    quick_short: int = -1
    """The longest wire text ``classify`` hands the fast path itself, before ``judge``: within
    ``quick_bytes`` and too short to be skimmed (:data:`SKIM_BYTES`)."""
    quick_typed: int = -1
    """The longest wire text ``classify`` hands the fast path's typed read itself
    (``_fastpath.read_typed``): within ``quick_short`` and too short for the routing of long
    texts (``_fastpath._WIDE_BYTES``)."""

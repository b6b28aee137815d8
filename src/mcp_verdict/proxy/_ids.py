"""The id of a frame cut short, for the proxy's answer to it.

The frames layer reads every id exactly (``frames.peek``: an integer past the 64-bit range is an
``int``, a string escaping a lone surrogate is kept, and a number no int or float holds, such as
``1e400``, is *unheld*: ``Peek.unheld``, the id as written) and writes one back exactly
(``frames.id_json``, which the tap uses too). What is the proxy's own is the id of a too-large
frame's first bytes, unheld ones included, so that its request is still answered
(:func:`recover`).
"""

from __future__ import annotations

from ..frames._jsonrpc import Id, peek


def recover(data: bytes) -> tuple[bool, Id | bytes]:
    """The id of a frame cut short (a too-large frame's first bytes) whose request must still be
    answered, read as ``frames.peek`` reads it; an unheld number as written (``bytes``:
    ``frames.id_json`` writes it back as it is). Returns (found, id)."""
    look = peek(data)
    if look.unheld is not None:
        return True, look.unheld
    return look.has_id, look.id


__all__ = ["recover"]

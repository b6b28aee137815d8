"""Request ids as the proxy writes them back, and the id of a frame cut short.

The frames layer reads every id exactly (``frames.peek``: an integer past the 64-bit range is an
``int``, a string escaping a lone surrogate is kept, and a number no int or float holds, such as
``1e400``, is *unheld*: ``Peek.unheld``, the id as written). What is the proxy's own is writing
an id back into the answers it makes, exactly as the host wrote it (:func:`id_json`), and the id
of a too-large frame's first bytes, unheld ones included, so that its request is still answered
(:func:`recover`).
"""

from __future__ import annotations

import json

import orjson

from ..frames._jsonrpc import Id, peek


def recover(data: bytes) -> tuple[bool, Id | bytes]:
    """The id of a frame cut short (a too-large frame's first bytes) whose request must still be
    answered, read as ``frames.peek`` reads it; an unheld number as written (``bytes``:
    :func:`id_json` writes it back as it is). Returns (found, id)."""
    look = peek(data)
    if look.unheld is not None:
        return True, look.unheld
    return look.has_id, look.id


def id_json(request_id: object) -> bytes:
    """An id as JSON, exactly: orjson, else (an int past 64 bits, a string with a lone
    surrogate) Python's json; ``bytes``: an id already written (an unheld one), as they are."""
    if isinstance(request_id, bytes):
        return bytes(request_id)
    try:
        return orjson.dumps(request_id)
    except TypeError:
        return json.dumps(request_id).encode()


__all__ = ["id_json", "recover"]

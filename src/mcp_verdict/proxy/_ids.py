"""The ids the proxy writes itself, in the answers and cancellations it sends a host or a server
(JSON-RPC 2.0 s5: a response's id is the same as the request's).

The frames layer reads every id exactly (``frames.peek``: an integer past the 64-bit range is an
``int``, a string escaping a lone surrogate is kept, and a number no int or float holds, such as
``1e400``, is *unheld*: ``Peek.unheld``, the id as written) and writes one back exactly
(``frames.id_json``, which the tap uses too). What is the proxy's own: the id of a too-large
frame's first bytes, unheld ones included, so that its request is still answered
(:func:`recover`); a host request's id as its frame writes it (:func:`as_written`,
:func:`_reply_id`), the id keys of every id that reads as a text (:func:`_same_text`), whether a
frame's string id is one no parser reads (:func:`_unreadable_string_id`), and a number id no int
or float holds, shown cut short (:func:`_shown`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..frames import Exchange
from ..frames._jsonrpc import Id, id_text, peek

if TYPE_CHECKING:
    from ._relay import Key


def recover(data: bytes) -> tuple[bool, Id | bytes]:
    """The id of a frame cut short (a too-large frame's first bytes) whose request must still be
    answered, read as ``frames.peek`` reads it; an unheld number as written (``bytes``:
    ``frames.id_json`` writes it back as it is). Returns (found, id)."""
    look = peek(data)
    if look.unheld is not None:
        return True, look.unheld
    return look.has_id, look.id



def as_written(request_id: Id | bytes, data: bytes) -> Id | bytes:
    """``request_id`` as the frame ``data`` writes it: the text of its last top-level ``"id"``
    member (the member orjson keeps), for the answers and cancellations the proxy writes itself.
    JSON-RPC 2.0 s5: a response's id is the same as the request's, and a host may compare them
    as text (``1E2`` is not ``100.0``, ``-0`` not ``0``, ``"\\u0041"`` not ``"A"``).
    ``request_id`` itself when that text does not read as it (the member orjson kept is named
    with an escape, ``"\\u0069d"``, which the scan does not see) or there is none; ``bytes``
    (an id already as written) as they are. Linear in the frame's size: for the proxy's own
    answers only."""
    if isinstance(request_id, bytes):
        return request_id
    text = id_text(data)
    if text is None:
        return request_id
    try:  # (Python's json: integers exact, a lone surrogate kept)
        value = json.loads(text.decode("utf-8", "surrogatepass"))
    except ValueError:  # (invalid UTF-8, a bad escape, more digits than Python converts)
        return request_id
    return text if type(value) is type(request_id) and value == request_id else request_id


def _same_text(text: str) -> list[Key]:
    """The id keys of every id that reads as ``text`` (``str`` of it): the string, and the
    integer, float, null or boolean it spells exactly (``"7"``: ``7``; ``"7.0"``: ``7.0``)."""
    keys: list[Key] = [("str", text)]
    if text == "None":
        keys.append(("NoneType", None))
    elif text in ("True", "False"):
        keys.append(("bool", text == "True"))
    else:
        try:
            number = int(text)
        except ValueError:  # (no integer, or past the digits Python converts)
            pass
        else:
            if str(number) == text:
                keys.append(("int", number))
        try:
            real = float(text)
        except ValueError:
            pass
        else:
            if str(real) == text:
                keys.append(("float", real))
    return keys


def _reply_id(exchange: Exchange) -> Id | bytes:
    """The id of the host's request ``exchange``, as the host wrote it (:func:`as_written`)."""
    return as_written(exchange.request_id, exchange.request.data)


def _unreadable_string_id(data: bytes) -> bool:
    """The frame's (last top-level) id member is a string no JSON parser reads — invalid UTF-8,
    a bad escape, a raw control character —: a request with an id that cannot be told."""
    text = id_text(data)
    if text is None or text[:1] != b'"':
        return False
    try:
        json.loads(text.decode("utf-8", "surrogatepass"))
    except ValueError:
        return True
    return False


def _shown(raw: bytes) -> str:
    """A number as the peer wrote it (digits, sign, point, exponent only: ``Peek.unheld``), cut short."""
    text = raw.decode("ascii", "replace")
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text)} characters)"


__all__ = ["as_written", "recover"]

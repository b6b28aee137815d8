"""Request ids as the peer wrote them, where the fast read (orjson) does not give them.

orjson reads an integer past the 64-bit range as a float (``18446744073709551616`` becomes
``1.8446744073709552e+19``: another id, and 2**64 and 2**64 + 1 become the same one), and
cannot read a frame whose id is ``1e400`` or a string escaping a lone surrogate at all
(:func:`frames.recover_id` finds only integers of at most 20 digits and plain strings). The proxy
then reads the id again from the frame's bytes — only then: a frame whose fast read gives an
``int`` or a ``str`` id (every ordinary one) costs the caller one type test.

What the bytes give, from the last top-level ``"id"`` member (the one orjson and Python's json
keep when there are several):

- an integer: a Python ``int``, exactly (the verdict's strict parser reads the answer's id the
  same way, so a server that rounds it is caught);
- a string: as Python's json reads it (a lone surrogate kept; written back escaped);
- a fraction or exponent that a float holds (``1.5``, ``1E2``): that float, as orjson reads a
  readable one;
- a number no float or int holds (``1e400``, an integer of more digits than Python converts,
  ``sys.get_int_max_str_digits``) is *unheld* (:func:`unheld_id`): the proxy cannot follow its
  request and answers it at once (``Relay``), under the id written as the host wrote it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Final

import orjson

from ..frames._jsonrpc import Id, Peek, id_values, peek, recover_id

_NUMBER: Final = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_VALUE: Final = re.compile(rb'\s*:\s*(' + _NUMBER + rb'|"(?:[^"\\]|\\.)*"|null)(?=\s*[,}])', re.DOTALL)
_INTEGER: Final = re.compile(rb"-?(?:0|[1-9][0-9]*)")
_UNHELD: Final = object()


def id_spans(data: bytes) -> list[tuple[int, int]]:
    """Where the value of each top-level ``"id"`` member is in ``data`` (a number, a string or
    null), in order. Linear time (a step per string or bracket); never raises."""
    return [value.span(1) for value in id_values(data, _VALUE)]


def id_text(data: bytes) -> bytes | None:
    """The text of the last top-level ``"id"`` member's value, as written (None: none shows)."""
    spans = id_spans(data)
    if not spans:
        return None
    start, end = spans[-1]
    return data[start:end]


def _value(text: bytes) -> object:
    """The id ``text`` holds: an int, a str, a float, None; ``_UNHELD``: a number no int or
    float holds; ``...``: no id (a string that does not decode)."""
    if text[:1] == b'"':
        try:
            value = json.loads(text.decode("utf-8", "surrogatepass"))
        except (ValueError, UnicodeDecodeError):
            return ...
        return value if isinstance(value, str) else ...
    if text == b"null":
        return None
    if _INTEGER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # past sys.get_int_max_str_digits
            return _UNHELD
    number = float(text)
    return number if math.isfinite(number) else _UNHELD


def exact(look: Peek, data: bytes) -> Peek:
    """``look`` (``peek(data)``) with its id read from the bytes, for a caller that found it a
    float, or absent from a frame no parser reads. Unchanged when the bytes give nothing better
    (an unheld id is left absent: :func:`unheld_id`)."""
    text = id_text(bytes(data))
    if text is None:
        return look
    value = _value(text)
    if value is ... or value is _UNHELD:
        return look
    if look.kind != "unreadable" and type(value) is not int:
        return look  # a readable frame: orjson loses only integers
    assert value is None or isinstance(value, (str, int, float))
    held: Id = value
    return Peek(look.kind, held, True, look.method, look.message, look.problem)


def exact_peek(data: bytes) -> Peek:
    """``peek(data)`` with the id exact (for the paths that are not per frame)."""
    look = peek(data)
    if type(look.id) is float or (look.kind == "unreadable" and not look.has_id):
        return exact(look, data)
    return look


def unheld_id(data: bytes) -> bytes | None:
    """The id of a frame, as written, when it is a number that neither an int nor a float holds
    (``1e400``; an integer of more digits than Python converts). None otherwise."""
    text = id_text(bytes(data))
    if text is None or text[:1] == b'"' or text == b"null":
        return None
    return text if _value(text) is _UNHELD else None


def recover(data: bytes) -> tuple[bool, Id | bytes]:
    """``frames.recover_id``, else the id read from the bytes as :func:`exact` reads it (an
    integer past 20 digits, a string with a lone surrogate, a float), else an unheld number as
    written (``bytes``: :func:`id_json` writes it back as it is). For a frame cut short (a
    too-large frame's first bytes) whose request must still be answered."""
    found, value = recover_id(data)
    if found:
        return found, value
    text = id_text(bytes(data))
    if text is None:
        return False, None
    held = _value(text)
    if held is ...:
        return False, None
    if held is _UNHELD:
        return True, text
    assert held is None or isinstance(held, (str, int, float))
    return True, held


def id_json(request_id: object) -> bytes:
    """An id as JSON, exactly: orjson, else (an int past 64 bits, a string with a lone
    surrogate) Python's json; ``bytes``: an id already written (an unheld one), as they are."""
    if isinstance(request_id, bytes):
        return bytes(request_id)
    try:
        return orjson.dumps(request_id)
    except TypeError:
        return json.dumps(request_id).encode()


__all__ = ["exact", "exact_peek", "id_json", "id_spans", "id_text", "recover", "unheld_id"]

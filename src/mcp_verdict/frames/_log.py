"""The frame log: what crossed a connection, frame by frame, with the exact bytes (format v1).

One format for everything that records MCP traffic (the tap, the proxy) and everything that
reads it (the audit). It is JSON Lines, one record per frame, each record a JSON object:

=================  ===========================================================================
``v``              ``1``, the format version (a reader refuses a version it does not know).
``conn``           the connection the frame belongs to (a string, unique within the log).
``seq``            the frame's position on its connection (0, 1, 2...; both directions count).
``t``              when the frame was seen, Unix time in seconds (a number).
``dir``            ``"c2s"`` (client to server) or ``"s2c"`` (server to client).
``kind``           ``"message"`` (one JSON-RPC message: a stdio line without its line end, an
                   HTTP JSON body, or one server-sent event's data), ``"noise"`` (a stdio line
                   that is not a JSON-RPC message), ``"refused"`` (a frame refused by a limit),
                   ``"eof"`` (the stream ended), ``"error"`` (a transport failure), ``"open"``
                   and ``"close"`` (the connection's life).
``data``           the frame's bytes as text, when they are valid UTF-8; else
``b64``            the frame's bytes in base64 (standard alphabet, padded); else
``redacted``       ``{"sha256": hex digest, "size": byte count}`` when payloads are not logged.
``note``           (optional) what an ``eof``, ``error``, ``refused``, ``open`` or ``close``
                   record says, in words.
``transport``      (optional) ``"stdio"`` or ``"http"``.
``http``           (optional) the HTTP exchange: ``exchange`` (a number per POST/GET), ``method``,
                   ``status``, ``content_type``, ``session`` (Mcp-Session-Id),
                   ``protocol_version`` (the MCP-Protocol-Version header), ``event_id`` (the SSE
                   event's id).
=================  ===========================================================================

``message``, ``noise`` and ``refused`` records carry exactly one of ``data``, ``b64`` and
``redacted``; the other kinds carry none. The bytes are the frame's exact bytes: duplicate
keys, NaN, invalid UTF-8 all survive (as ``b64`` when they are not UTF-8), so a reader sees the
wire as the receiver did. No header of the HTTP exchange beyond those named is ever recorded
(``Authorization`` and cookies never are). The JSON Schema of a record is
``framelog-v1.schema.json`` beside this module (:func:`schema`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any, Final, Literal

import msgspec
import orjson

from ..verdict._classify import OptionError
from ..verdict._peer_text import cut, utf8_text
from ..verdict._shown import shown

FORMAT_VERSION: Final = 1
Direction = Literal["c2s", "s2c"]
RecordKind = Literal["message", "noise", "refused", "eof", "error", "open", "close"]
DIRECTIONS: Final = ("c2s", "s2c")
KINDS: Final = ("message", "noise", "refused", "eof", "error", "open", "close")
_PAYLOAD_KINDS: Final = frozenset({"message", "noise", "refused"})
_HTTP_FIELDS: Final = {"exchange": int, "method": str, "status": int, "content_type": str, "session": str,
                       "protocol_version": str, "event_id": str}


class FrameRecord(msgspec.Struct, frozen=True):
    """One record of the frame log (a frozen msgspec struct: built in C, as every line read is)."""

    conn: str
    seq: int
    t: float
    dir: Direction
    kind: RecordKind
    data: bytes | None = None
    """The exact bytes (None for a redacted payload and for kinds without one)."""
    redacted: tuple[str, int] | None = None
    """(sha256 hex digest, size) of a payload that was not logged."""
    note: str | None = None
    transport: Literal["stdio", "http"] | None = None
    http: Mapping[str, Any] | None = None

    @property
    def size(self) -> int:
        if self.data is not None:
            return len(self.data)
        return self.redacted[1] if self.redacted is not None else 0


def redact(record: FrameRecord) -> FrameRecord:
    """The record with its payload replaced by its digest and size."""
    if record.data is None:
        return record
    digest = hashlib.sha256(record.data).hexdigest()
    return FrameRecord(record.conn, record.seq, record.t, record.dir, record.kind, None, (digest, len(record.data)),
                       record.note, record.transport, record.http)


LINE_START: Final = b'{"v":%d,"conn":"' % FORMAT_VERSION
"""How :func:`encode` begins every line (its members in this order, orjson's compact form): a
reader may take the ``conn`` of such a line in place (:func:`mcp_verdict.audit._formats.framelog_conn`)."""


def encode(record: FrameRecord) -> bytes:
    """One log line (with its trailing LF), beginning with :data:`LINE_START`."""
    out: dict[str, Any] = {"v": FORMAT_VERSION, "conn": record.conn, "seq": record.seq, "t": record.t,
                           "dir": record.dir, "kind": record.kind}
    if record.data is not None:
        try:
            out["data"] = record.data.decode("utf-8")
        except UnicodeDecodeError:
            out["b64"] = base64.b64encode(record.data).decode("ascii")
    elif record.redacted is not None:
        out["redacted"] = {"sha256": record.redacted[0], "size": record.redacted[1]}
    if record.note is not None:
        out["note"] = record.note
    if record.transport is not None:
        out["transport"] = record.transport
    if record.http:
        out["http"] = dict(record.http)
    try:
        return orjson.dumps(out, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # a lone surrogate in a text member (a header's bytes that are no UTF-8)
        return orjson.dumps({key: _utf8(value) for key, value in out.items()}, option=orjson.OPT_APPEND_NEWLINE)


def _utf8(value: Any) -> Any:
    """A record's member as UTF-8 can hold it: a lone surrogate in its text as its escape
    (``\\udcff``, :func:`verdict._peer_text.utf8_text`). aiohttp reads a header's bytes that are no
    UTF-8 (obs-text, RFC 9110 s5.5: an ``Mcp-Session-Id`` of ``\\xff``) with ``surrogateescape``;
    no JSON text holds such a string, and the record would be lost with the frame it records."""
    if isinstance(value, str):
        return utf8_text(value)
    if isinstance(value, dict):
        return {key: _utf8(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class LogProblem:
    """A log line that is not a record of this format, and why."""

    line: int
    """1-based line number in its file."""
    reason: str
    text: bytes
    """The line's first 200 bytes."""


_INT64: Final = msgspec.Meta(ge=-(2 ** 63), le=2 ** 63 - 1)
"""Integers orjson reads as integers too (past 64 bits it reads a float, which the format refuses;
from 2**63 to 2**64 the checked path decides)."""
Count = Annotated[int, msgspec.Meta(ge=0, le=2 ** 63 - 1)]


class _Redacted(msgspec.Struct, forbid_unknown_fields=True):
    sha256: str
    size: Count


class _Line(msgspec.Struct, forbid_unknown_fields=True):
    """A record as the writer writes it, typed: what ``_check`` checks member by member, checked
    by msgspec in C. Anything else (an unknown member, a null, a long integer...) is read by the
    checked path, which says what is wrong."""

    v: Literal[1]
    conn: str
    seq: Count
    t: float
    dir: Direction
    kind: RecordKind
    data: str | msgspec.UnsetType = msgspec.UNSET
    b64: str | msgspec.UnsetType = msgspec.UNSET
    redacted: _Redacted | msgspec.UnsetType = msgspec.UNSET
    note: str | msgspec.UnsetType = msgspec.UNSET
    transport: Literal["stdio", "http"] | msgspec.UnsetType = msgspec.UNSET
    http: dict[str, Annotated[int, _INT64] | str] | msgspec.UnsetType = msgspec.UNSET


_READ_LINE: Final = msgspec.json.Decoder(_Line)


def decode(line: bytes | str, number: int = 0) -> FrameRecord | LogProblem:
    """Read one log line. Never raises: a line that is not a valid record is a LogProblem.

    A line as the writer writes it is read by a typed msgspec decoder (~4× faster than the
    checked path, which reads it with orjson and checks each member in Python); any other line
    takes the checked path, whose result the fast one equals wherever both read a line (a test
    holds them equal). A ``line`` of no text (nor bytes) is the caller's mistake: an OptionError."""
    if not isinstance(line, (bytes, bytearray, memoryview, str)):
        raise OptionError("line", "bytes or a str", line)
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 2 ** 63:
        expected = "a line number (an integer from 0 to 2**63 - 1)"
        raise OptionError("number", expected, number)
    return decode_line(line, number)


def decode_line(line: bytes | str, number: int = 0) -> FrameRecord | LogProblem:
    """:func:`decode` of a line its caller read itself (bytes or a str, and a line number it
    counted): the same reading without the checks of the caller's arguments, for readers that
    decode every line of a log (:func:`read`, the audit)."""
    try:
        value = _READ_LINE.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return _decode_checked(line, number)
    unset = msgspec.UNSET
    data: bytes | None = None
    redacted = None
    kind = value.kind
    text = value.data
    if kind in _PAYLOAD_KINDS:
        if text is not unset:
            if value.b64 is not unset or value.redacted is not unset:
                return _decode_checked(line, number)
            data = text.encode("utf-8", "surrogatepass")
        elif value.redacted is not unset and value.b64 is unset:
            redacted = (value.redacted.sha256, value.redacted.size)
        else:  # base64, or no payload: the checked path
            return _decode_checked(line, number)
    elif text is not unset or value.b64 is not unset or value.redacted is not unset:
        return _decode_checked(line, number)
    http: dict[str, int | str] | None = None
    if value.http is not unset:
        http = value.http
        for key, item in http.items():
            if _HTTP_FIELDS.get(key) is not type(item):
                return _decode_checked(line, number)
    note = value.note
    transport = value.transport
    return FrameRecord(value.conn, value.seq, value.t, value.dir, kind, data, redacted,
                       None if note is unset else note, None if transport is unset else transport, http)


def _decode_checked(line: bytes | str, number: int) -> FrameRecord | LogProblem:
    """The checked path of :func:`decode`: orjson, then each member checked in Python."""
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else bytes(line)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return LogProblem(number, f"not JSON: {exc}", raw[:200])
    problem = _check(value)
    if problem is not None:
        return LogProblem(number, problem, raw[:200])
    data: bytes | None = None
    redacted = None
    if "data" in value:
        data = value["data"].encode("utf-8", "surrogatepass")
    elif "b64" in value:
        data = base64.b64decode(value["b64"], validate=True)
    elif "redacted" in value:
        redacted = (value["redacted"]["sha256"], value["redacted"]["size"])
    return FrameRecord(value["conn"], value["seq"], float(value["t"]), value["dir"], value["kind"], data, redacted,
                       value.get("note"), value.get("transport"), value.get("http"))


def _is_int(value: object) -> bool:
    return type(value) is int and value >= 0


_QUOTED: Final = 60
"""The characters of a record's own value a problem's reason quotes (a version, an ``http`` key):
a log line may hold a value of any size, and the reason is shown whole in every report."""


def _check(value: Any) -> str | None:
    if not isinstance(value, dict):
        return "a record is a JSON object"
    if value.get("v") != FORMAT_VERSION or type(value.get("v")) is not int:
        return f"unknown format version {shown(value.get('v'), _QUOTED)} (this reader knows {FORMAT_VERSION})"
    if not isinstance(value.get("conn"), str):
        return "conn must be a string"
    if not _is_int(value.get("seq")):
        return "seq must be a non-negative integer"
    t = value.get("t")
    if type(t) not in (int, float):
        return "t must be a number"
    if value.get("dir") not in DIRECTIONS:
        return f"dir must be one of {', '.join(DIRECTIONS)}"
    kind = value.get("kind")
    if kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}"
    payloads = [k for k in ("data", "b64", "redacted") if k in value]
    if kind in _PAYLOAD_KINDS and len(payloads) != 1:
        return f"a {kind} record carries exactly one of data, b64 and redacted"
    if kind not in _PAYLOAD_KINDS and payloads:
        return f"a {kind} record carries no payload"
    if "data" in value and not isinstance(value["data"], str):
        return "data must be a string"
    if "b64" in value:
        if not isinstance(value["b64"], str):
            return "b64 must be a string"
        try:
            base64.b64decode(value["b64"], validate=True)
        except (binascii.Error, ValueError):
            return "b64 is not valid base64"
    if "redacted" in value:
        red = value["redacted"]
        if not (isinstance(red, dict) and set(red) == {"sha256", "size"} and isinstance(red["sha256"], str)
                and _is_int(red["size"])):
            return "redacted must be {sha256, size}"
    if "note" in value and not isinstance(value["note"], str):
        return "note must be a string"
    if "transport" in value and value["transport"] not in ("stdio", "http"):
        return "transport must be stdio or http"
    if "http" in value:
        http = value["http"]
        if not isinstance(http, dict):
            return "http must be an object"
        for key, item in http.items():
            expected = _HTTP_FIELDS.get(key)
            if expected is None:
                return f"http.{cut(key, _QUOTED)} is not a field of the format"
            if type(item) is not expected:
                return f"http.{key} must be a {expected.__name__}"
    return None


def read(lines: Iterable[bytes | str]) -> Iterator[FrameRecord | LogProblem]:
    """Every record of a log (an open binary file, or any iterable of lines), in order; a blank
    line is skipped, a bad line is a LogProblem with its line number. ``lines`` of no iterable, or
    a str or bytes (one line, not lines), is an OptionError when ``read`` is called; a line of no
    text (nor bytes) one when it is reached."""
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise OptionError("lines", "an iterable of lines (bytes or str)", lines)
    return _read(lines)


def _read(lines: Iterable[bytes | str]) -> Iterator[FrameRecord | LogProblem]:
    for number, line in enumerate(lines, 1):
        if not isinstance(line, (bytes, str)):
            raise OptionError(f"lines[{number - 1}]", "bytes or a str", line)
        if not line.strip():
            continue
        yield decode_line(line.rstrip(b"\r\n") if isinstance(line, bytes) else line.rstrip("\r\n"), number)


def schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one record."""
    text = resources.files(__package__).joinpath("framelog-v1.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded

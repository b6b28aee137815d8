"""The connection a frame log line is dealt by: one reader (``_formats.framelog_conn``) for
``--jobs`` dealing (``_deal._Share.mine``) and the Spark partitioner (``spark._split``,
``spark._keyed``). A record's key is the connection the audit reads (``frames.decode``: the
last ``conn`` member where a line names two); a line that is no record is unreadable wherever it
is audited (in no connection), keyed by a ``conn`` it names, else None (the first process; a
Spark bucket by line number). The writer's lines are read in place (``frames._log.LINE_START``)."""

from __future__ import annotations

import zlib
from typing import Any

import pytest

from mcp_verdict.audit import _deal, _formats
from mcp_verdict.audit._formats import framelog_conn
from mcp_verdict.frames import FrameRecord, encode
from mcp_verdict.frames._log import LINE_START

DEEP = b'{"v":1,"conn":"srv-1","x":' + b"[" * 3_000 + b"]" * 3_000 + b"}"
OPEN = b',"seq":0,"t":1.5,"dir":"c2s","kind":"open"}'

# (name, line without its end, the connection it is dealt by, read in place)
LINES: list[tuple[str, bytes, bytes | None, bool]] = [
    ("writer: open", b'{"v":1,"conn":"srv-1","seq":0,"t":1.5,"dir":"c2s","kind":"open","transport":"stdio"}',
     b"srv-1", True),
    ("writer: a message whose data names a conn",
     b'{"v":1,"conn":"a","seq":1,"t":1.5,"dir":"c2s","kind":"message","data":"{\\"conn\\":\\"b\\"}"}', b"a", True),
    ("writer: an empty conn", b'{"v":1,"conn":""' + OPEN, b"", True),
    ("writer: a non-ASCII conn", '{"v":1,"conn":"sérv"'.encode() + OPEN, "sérv".encode(), False),
    ("writer: an escaped quote in the conn", b'{"v":1,"conn":"q\\"d"' + OPEN, b'q"d', False),
    ("the conn written with a \\u escape", b'{"v":1,"conn":"srv\\u002d1"' + OPEN, b"srv-1", False),
    ("a \\u escape in the data", b'{"v":1,"conn":"a","seq":1,"t":1.5,"dir":"c2s","kind":"message","data":"\\u00e9"}',
     b"a", True),
    ("a \\u escape of n in the data",
     b'{"v":1,"conn":"a","seq":1,"t":1.5,"dir":"c2s","kind":"message","data":"\\u006e"}', b"a", False),
    ("two conns, the last escaped (\\u0063onn)",
     b'{"v":1,"conn":"a","seq":0,"t":1.5,"dir":"c2s","kind":"open","\\u0063onn":"b"}', b"b", False),
    ("two conns, the last escaped (c\\u006Fnn)",
     b'{"v":1,"conn":"a","seq":0,"t":1.5,"dir":"c2s","kind":"open","c\\u006Fnn":"b"}', b"b", False),
    ("two conns: the last", b'{"v":1,"conn":"a","seq":0,"t":1.5,"dir":"c2s","kind":"open","conn":"b"}', b"b", False),
    ("two conns, the last escaped (con\\u006e)",
     b'{"v":1,"conn":"a","seq":0,"t":1.5,"dir":"c2s","kind":"open","con\\u006e":"b"}', b"b", False),
    ("another key order", b'{"conn":"x","v":1,"seq":0,"t":1.5,"dir":"c2s","kind":"open"}', b"x", False),
    ("spaced JSON", b'{"v": 1, "conn": "x", "seq": 0, "t": 1.5, "dir": "c2s", "kind": "open"}', b"x", False),
    ("a lone surrogate escape in the conn", b'{"v":1,"conn":"a\\udcff"' + OPEN, None, False),
    ("no UTF-8 in the conn", b'{"v":1,"conn":"a\xffb"' + OPEN, None, False),
    ("no UTF-8 in the conn, another key order", b'{"conn":"a\xffb","v":1,"seq":0,"t":1.5,"dir":"c2s","kind":"open"}',
     None, False),
    ("no UTF-8 in the data (no record)",
     b'{"v":1,"conn":"a","seq":1,"t":1.5,"dir":"c2s","kind":"message","data":"\xff"}', b"a", True),
    ("no record, two conns (seq -1)",
     b'{"v":1,"conn":"a","seq":-1,"t":1.5,"dir":"c2s","kind":"open","conn":"b"}', b"b", False),
    ("cut off after the conn", b'{"v":1,"conn":"srv-1","dir":', b"srv-1", True),
    ("cut off in the conn", b'{"v":1,"conn":"srv', None, False),
    ("cut off, another key order", b'{"seq":0,"conn":"x",', None, False),
    ("nested too deep, the writer's start", DEEP, b"srv-1", True),
    ("nested too deep, another key order", b'{"conn":"a","x":' + b"[" * 3_000 + b"]" * 3_000 + b"}", None, False),
    ("a conn that is a number", b'{"v":1,"conn":5' + OPEN, None, False),
    ("not JSON", b"not json at all", None, False),
    ("a JSON array", b'[{"v":1,"conn":"a"}]', None, False),
]
IDS = [row[0] for row in LINES]


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The lines read other than in place."""
    fell: list[bytes] = []
    conn_of, decode_line = _formats.conn_of, _formats.decode_line  # type: ignore[attr-defined]

    def counted_conn_of(line: bytes) -> Any:
        fell.append(line)
        return conn_of(line)

    def counted_decode(line: bytes | str, number: int = 0) -> Any:
        fell.append(bytes(line) if isinstance(line, bytes) else line.encode())
        return decode_line(line, number)

    monkeypatch.setattr(_formats, "conn_of", counted_conn_of)
    monkeypatch.setattr(_formats, "decode_line", counted_decode)
    return fell


@pytest.mark.parametrize("end", [b"", b"\n", b"\r\n"], ids=["no end", "LF", "CRLF"])
@pytest.mark.parametrize(("name", "line", "conn", "in_place"), LINES, ids=IDS)
def test_a_lines_key_is_the_connection_the_audit_reads(name: str, line: bytes, conn: bytes | None, in_place: bool,
                                                        end: bytes, no_fallback: list[bytes]) -> None:
    assert framelog_conn(line + end) == conn
    assert (no_fallback == []) == in_place


@pytest.mark.parametrize(("name", "line", "conn", "in_place"), LINES, ids=IDS)
def test_a_process_of_a_dealing_takes_the_lines_of_its_connections(name: str, line: bytes, conn: bytes | None,
                                                                   in_place: bool) -> None:
    jobs = 1 << 30  # (a connection in no dealing goes to its crc32's process: hardly ever 0 or 1)
    owners = {} if conn is None else {conn: 1}
    assert _deal._Share(1, jobs, owners).mine(line + b"\n") == (conn is not None)
    assert _deal._Share(0, jobs, owners).mine(line + b"\n") == (conn is None)  # (no conn: the first process's)


@pytest.mark.parametrize(("name", "line", "conn", "in_place"), LINES, ids=IDS)
def test_spark_keys_a_line_by_its_connection(name: str, line: bytes, conn: bytes | None, in_place: bool) -> None:
    pa = pytest.importorskip("pyarrow")
    from mcp_verdict.audit._arrow import FRAME_SCHEMA
    from mcp_verdict.audit.spark import _BUCKETS, _keyed, _split

    expected = [zlib.crc32(b"a"), zlib.crc32(conn) if conn is not None else _BUCKETS + 2]  # (line 2)
    first = b'{"v":1,"conn":"a"' + OPEN
    files = pa.RecordBatch.from_pylist([{"path": "file:/logs/frames.jsonl", "content": first + b"\n" + line + b"\n"}])
    split = list(_split(iter([files])))
    assert [key for batch in split for key in batch.column("key").to_pylist()] == expected
    rows = [{"recording": "r", "source": "s", "file_order": 0, "line": n, "text": text}
            for n, text in ((1, first), (2, line))]
    keyed = list(_keyed(iter([pa.RecordBatch.from_pylist(rows, schema=FRAME_SCHEMA)])))
    assert [key for batch in keyed for key in batch.column("key").to_pylist()] == expected


RECORDS = [FrameRecord("srv-1", 0, 1.5, "c2s", "open", transport="stdio"),
           FrameRecord("h/1", 7, 2.0, "s2c", "message", b'{"jsonrpc":"2.0","id":1,"result":{}}', note="n",
                       transport="http", http={"exchange": 1, "method": "POST", "status": 200}),
           FrameRecord("b", 1, 3.0, "c2s", "message", b"\xff not UTF-8"),
           FrameRecord("c", 2, 4.0, "s2c", "eof", note="the stream ended")]


@pytest.mark.parametrize("record", RECORDS, ids=[r.conn for r in RECORDS])
def test_the_writers_lines_are_read_in_place(record: FrameRecord, no_fallback: list[bytes]) -> None:
    line = encode(record)
    assert line.startswith(LINE_START) and LINE_START == b'{"v":1,"conn":"'
    assert framelog_conn(line) == record.conn.encode()
    assert no_fallback == []

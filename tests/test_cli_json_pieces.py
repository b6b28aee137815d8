"""``echo_json_pieces`` (``call --json``'s writer): the text :func:`echo_json` writes (RFC 8259:
``json.dumps(ensure_ascii=False)``, then DEL, the C1 and bidi controls, U+2028/U+2029 and a lone
surrogate as their ``\\uXXXX`` escape, the same JSON string), written a piece at a time; a member
whose value is bytes written as ``client._wire.bytes_field`` makes it: the text when the bytes
are UTF-8 (RFC 3629), else their base64 (RFC 4648 s4) under ``<name>_base64``. A long string or
bytes value is decoded and escaped a piece of 65,536 at a time: a character across two pieces
stays one."""

from __future__ import annotations

import io
import sys

import pytest

from mcp_verdict.cli._json import echo_json_pieces

LONG = "a" * 65535 + "é" + "b" * 65536 + "\u2028"
"""A string whose second character across a piece is two UTF-8 bytes, and a line separator last."""

CASES = [
    ({"a": [1, 2.5, None, True, False], "b": {}}, '{"a": [1, 2.5, null, true, false], "b": {}}'),
    ([[], [[]], {"x": []}], '[[], [[]], {"x": []}]'),
    ({3: "three", 2.5: "x", True: "t", None: "n"}, '{"3": "three", "2.5": "x", "true": "t", "null": "n"}'),
    ([float("nan"), float("inf"), -float("inf"), 2**70], "[NaN, Infinity, -Infinity, 1180591620717411303424]"),
    (("a", "b"), '["a", "b"]'),
    # JSON escapes (RFC 8259 s7), then the characters json_text escapes
    ({"s": 'q"b\\n\nt\tz\x00\x1b'}, '{"s": "q\\"b\\\\n\\nt\\tz\\u0000\\u001b"}'),
    ({"s": "é\x7f\x9b\u202e\u2028\u2029\ud800😀"}, '{"s": "é\\u007f\\u009b\\u202e\\u2028\\u2029\\ud800😀"}'),
    # bytes: UTF-8 as text, else base64 under <name>_base64 (a surrogate's bytes are no UTF-8)
    ({"data": b'{"id":1}'}, '{"data": "{\\"id\\":1}"}'),
    ({"data": "é\u2028".encode()}, '{"data": "é\\u2028"}'),
    ({"data": b"\xff\xfeA", "next": 1}, '{"data_base64": "//5B", "next": 1}'),
    ({"data": b"\xed\xa0\x80"}, '{"data_base64": "7aCA"}'),
    ({"data": b""}, '{"data": ""}'),
    ({"data": None}, '{"data": null}'),
    # what json cannot write goes through default (here str)
    ({"k": object.__new__(type("Thing", (), {"__str__": lambda self: "thing"}))}, '{"k": "thing"}'),
    # long values, written a piece at a time
    ({"s": LONG}, '{"s": "' + LONG[:-1] + '\\u2028"}'),
    ({"data": LONG.encode()}, '{"data": "' + LONG[:-1] + '\\u2028"}'),
    ({"data": b"a" * 65535 + "😀".encode()}, '{"data": "' + "a" * 65535 + '😀"}'),
    ({"data": b"\xff" * 49152 + b"\xff"}, '{"data_base64": "' + "////" * 16384 + '/w=="}'),
    ({"data": b"a" * 70000 + b"\xff"}, '{"data_base64": "' + "YWFh" * 23333 + 'Yf8="}'),
]


def _written(value: object, binary: bool) -> str:
    raw = io.BytesIO()
    stream: io.TextIOBase = io.TextIOWrapper(raw, encoding="utf-8") if binary else io.StringIO()
    stdout, sys.stdout = sys.stdout, stream
    try:
        echo_json_pieces(value, default=str)
    finally:
        sys.stdout = stdout
    return raw.getvalue().decode("utf-8") if binary else stream.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("binary", [True, False], ids=["bytes stream", "text stream"])
@pytest.mark.parametrize(("value", "expected"), CASES)
def test_the_pieces_are_the_json_text(value: object, expected: str, binary: bool) -> None:
    assert _written(value, binary) == expected + "\n"


@pytest.mark.parametrize("value", [[], {}])
def test_a_circular_value_is_refused_as_json_refuses_it(value: list[object] | dict[str, object]) -> None:
    if isinstance(value, list):
        value.append(value)
    else:
        value["self"] = value
    with pytest.raises(ValueError, match="Circular reference detected"):
        _written(value, True)


# (value, limit, the first characters of json.dumps(value, ensure_ascii=False), its whole length):
# the text of call's ``structured`` line, before the terminal neutralises it (RFC 8259 s7 escapes)
HEADS: list[tuple[object, int, str, int]] = [
    ({"a": [1, 2.5, None, True]}, 10, '{"a": [1, ', 27),
    ({"s": "é\x9b\u2028"}, 100, '{"s": "é\x9b\u2028"}', 12),  # raw, as json.dumps leaves them
    ('q"\n', 3, '"q\\', 7),
    ({"x": "a" * 70000 + "é"}, 5, '{"x":', 70010),  # a long string, escaped a piece at a time
    ([], 0, "", 2),
]


@pytest.mark.parametrize(("value", "limit", "head", "size"), HEADS)
def test_json_head_is_the_start_of_the_json_text_and_its_length(value: object, limit: int, head: str,
                                                                size: int) -> None:
    from mcp_verdict.cli._json import json_head

    assert json_head(value, limit) == (head, size)

"""What a relay or a tap reads of an answer before judging it (frames/_jsonrpc.py): the id its
first or last bytes show (``shown_id``, a guess of the request it answers), whether its bytes may
make it a request or a notification (``names_method``), and the routing read made from the
message the judge read (``answer_peek``), which must be what ``peek`` reads of the same bytes.
JSON-RPC 2.0 sections 4 and 5 (ids: a string, a number or null; a response carries its
request's id); the expected values are written by hand.
"""

from __future__ import annotations

import pytest

from mcp_verdict import classify, corpus
from mcp_verdict.frames import Peek, answer_peek, names_method, peek, shown_id

PAD = b" " * 400

SHOWN: list[tuple[bytes, object]] = [
    (b'{"jsonrpc":"2.0","id":7,"result":{}}', 7),
    (b'{"jsonrpc":"2.0","id": "a-1" ,"result":{}}', "a-1"),
    (b'{"jsonrpc":"2.0","id":-3,"error":{"code":1,"message":"x"}}', -3),
    (b'{"jsonrpc":"2.0","result":{' + PAD + b'},"id":42}', 42),  # in the last 300 bytes
    (b'{"jsonrpc":"2.0","result":{"a":"' + PAD + b'"' + PAD + b'},"id":9' + PAD + PAD + b"}", None),  # in neither end
    (b'{"jsonrpc":"2.0","id":"a\\"b","result":{}}', None),  # an escape: not shown (read, not guessed)
    (b'{"jsonrpc":"2.0","id":1.5,"result":{}}', None),  # not an integer or a plain string
    (b'{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}', None),  # past 18 digits
    (b'{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}', None),
    (b'{"jsonrpc":"2.0","result":{"structuredContent":{"id":3}},"id":5}', 3),  # the first shown: a guess
    (b'{"jsonrpc":"2.0","id":"\xff","result":{}}', None),  # not UTF-8
]


@pytest.mark.parametrize(("data", "expected"), SHOWN)
def test_shown_id(data: bytes, expected: object) -> None:
    assert shown_id(data) == expected
    assert type(shown_id(data)) is type(expected)


METHOD: list[tuple[bytes, bool]] = [
    (b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', True),
    (b'{"jsonrpc":"2.0","id":1,"result":{}}', False),
    (b'{"jsonrpc":"2.0","id":1,"result":{"a":"' + PAD + PAD + b'"},"method":"x"}', True),  # in the last 300
    (b'{"jsonrpc":"2.0","id":1,"result":{"a":"' + PAD + b'","method":1,"b":"' + PAD + b'"}}', False),  # the middle
    (b'{"jsonrpc":"2.0","id":1,"result":{"method":1}}', True),  # short: read whole (a false alarm: peeked)
]


@pytest.mark.parametrize(("data", "expected"), METHOD)
def test_names_method(data: bytes, expected: bool) -> None:
    assert names_method(data) is expected


OK = b'"result":{"content":[]}'
OK_MESSAGE: dict[str, object] = {"content": []}
# (answer bytes, the request id the judge is given) → the routing read made from the judge's message
PEEKS: list[tuple[bytes, object, Peek | None]] = [
    (b'{"jsonrpc":"2.0","id":7,' + OK + b"}", 7,
     Peek("response", 7, True, None, {"jsonrpc": "2.0", "id": 7, "result": OK_MESSAGE})),
    (b'{"jsonrpc":"2.0","id":"a",' + OK + b"}", "a",
     Peek("response", "a", True, None, {"jsonrpc": "2.0", "id": "a", "result": OK_MESSAGE})),
    (b'{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}', 7,
     Peek("error", 7, True, None, {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "x"}})),
    (b'{"jsonrpc":"2.0","id":18446744073709551617,' + OK + b"}", 2**64 + 1,  # exact, past 64 bits
     Peek("response", 2**64 + 1, True, None, {"jsonrpc": "2.0", "id": 2**64 + 1, "result": OK_MESSAGE})),
    (b'{"jsonrpc":"2.0","id":7,' + OK + b"}", "7", None),  # another JSON type: unclassified (id_type)
    (b'{"jsonrpc":"2.0","id":7,' + OK + b"}", 8, None),  # another request's: unclassified (id_mismatch)
    (b'{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":"false"}}', 7, None),  # unclassified
    (b'{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"x":1e400}}}', 7, None),  # orjson: none
    (b'{"jsonrpc":"2.0","id":7,' + OK + b',"id":7}', 7, None),  # a repeated member: unclassified
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}', 7, None),  # a request: unclassified
]


@pytest.mark.parametrize(("data", "request_id", "expected"), PEEKS)
def test_answer_peek(data: bytes, request_id: object, expected: Peek | None) -> None:
    verdict = classify(data, request_id=request_id, version="2025-11-25")  # type: ignore[arg-type]
    assert answer_peek(verdict, request_id) == expected  # type: ignore[arg-type]
    if expected is not None:
        assert (expected.kind, expected.id, expected.has_id, expected.method) == \
            (peek(data).kind, peek(data).id, peek(data).has_id, peek(data).method)


def _as_orjson(value: object) -> object:
    """A strictly read value as orjson reads the same text: an integer past 64 bits is a float
    there (the only difference; a routing read never looks at such a member)."""
    if isinstance(value, dict):
        return {key: _as_orjson(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_orjson(item) for item in value]
    if type(value) is int and not -(2**63) <= value < 2**64:
        return float(value)
    return value


def test_answer_peek_reads_every_corpus_answer_as_peek_does() -> None:
    """Over the hand-labelled corpus: wherever the judge's message gives a routing read, it is
    the one ``peek`` makes of the same bytes (kind, id with its type, method, message; in the
    message, an integer past 64 bits is exact where orjson reads a float)."""
    compared = 0
    for case in corpus.load():
        data = case.wire()
        kwargs = case.kwargs()
        verdict = classify(data, **kwargs)
        if type(verdict.message) is not dict:
            continue
        request_id = kwargs["request_id"] if "request_id" in kwargs else verdict.message.get("id")
        made = answer_peek(verdict, request_id)
        if made is not None:
            read = peek(data)
            assert (made.kind, made.id, type(made.id), made.has_id, made.method, _as_orjson(made.message)) == \
                (read.kind, read.id, type(read.id), read.has_id, read.method, read.message), case.id
            compared += 1
    assert compared >= 300  # the corpus's answers the judge read a message of

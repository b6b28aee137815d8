"""json.too_large says the size it knows: a text one byte past the limit is what a reader that
stops there holds (the CLI, the client and the proxy read ``max_bytes + 1`` bytes of a longer
message), so its size is not known, only that it is more than the limit."""

from __future__ import annotations

import pytest

from mcp_verdict import Limits, classify

ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'  # 48 bytes

# (the limit, the message as the finding says it)
CASES = [
    (47, "the message is more than 47 bytes, the limit"),  # one byte past it: a read cut there
    (45, "the message is 48 bytes; the limit is 45"),
    (1, "the message is 48 bytes; the limit is 1"),
]


@pytest.mark.parametrize(("limit", "message"), CASES)
def test_too_large_says_the_size_it_knows(limit: int, message: str) -> None:
    verdict = classify(ANSWER, request_id=1, version="2025-06-18", limits=Limits(max_bytes=limit))
    assert [(f.code, f.message) for f in verdict.findings] == [("json.too_large", message)]

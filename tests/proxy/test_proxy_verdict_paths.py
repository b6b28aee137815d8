"""The verdict lines with payloads redacted (the default: README "The proxy", What it records):
each finding's path says where the finding is, never a member name a peer chose — a key of the
tool's output, of an error's ``data`` or ``_meta``, an input request's key, a requested field's
name, a member no MCP message defines wherever it is — which is payload (a duplicate key named
``sk-live-...`` went into the line as the path's last member; in the result, the envelope or a
block's annotations it still did). ``--log-payloads`` keeps the paths whole. The real proxy
(stdio→stdio) in front of a server writing each answer's bytes as given."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ._peers import PROXY, LinePeer, call

SERVER = r'''
import json, sys
answer = sys.argv[1].encode()
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "id" in message:
        sys.stdout.buffer.write(answer.replace(b"{id}", json.dumps(message["id"]).encode()) + b"\n")
        sys.stdout.buffer.flush()
'''

DUPLICATE = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[],'
             b'"structuredContent":{"sk-live-SECRET":1,"sk-live-SECRET":2},"isError":false}}')
NAN_DATA = b'{"jsonrpc":"2.0","id":{id},"error":{"code":-32000,"message":"x","data":{"token-abc":{"a":NaN}}}}'
FIELD = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"input_required","inputRequests":{"ask-secret":'
         b'{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object",'
         b'"properties":{"apiKey":{"type":"array"}}}}}}}}')

DUPLICATE_RESULT = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[],"isError":false,'
                    b'"sk-live-R":1,"sk-live-R":2}}')
DUPLICATE_TOP = (b'{"jsonrpc":"2.0","id":{id},"sk-live-T":1,"sk-live-T":2,'
                 b'"result":{"resultType":"complete","content":[],"isError":false}}')
DUPLICATE_BLOCK = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[{"type":"text",'
                   b'"text":"a","annotations":{"sk-live-A":1,"sk-live-A":2}}],"isError":false}}')
LONG_NAME = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[],'
             b'"structuredContent":{"' + b"s" * 100 + b'":1,"' + b"s" * 100 + b'":2},"isError":false}}')
DIGITS = (b'{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":[],'
          b'"structuredContent":{"4111111111111111":1,"4111111111111111":2},"isError":false}}')

# (the answer; the path in the verdict line redacted (the default), and with --log-payloads), by hand
CASES = [
    (DUPLICATE, "/result/structuredContent/*", "/result/structuredContent/sk-live-SECRET"),
    (NAN_DATA, "/error/data/*/*", "/error/data/token-abc/a"),
    (FIELD, "/result/inputRequests/*/params/requestedSchema/properties/*",
     "/result/inputRequests/ask-secret/params/requestedSchema/properties/apiKey"),
    # a member no MCP message defines is a peer's name wherever it is (each was written whole)
    (DUPLICATE_RESULT, "/result/*", "/result/sk-live-R"),
    (DUPLICATE_TOP, "/*", "/sk-live-T"),
    (DUPLICATE_BLOCK, "/result/content/0/annotations/*", "/result/content/0/annotations/sk-live-A"),
    # digits that no array index can be (past the nodes a verdict reads) are a member's name
    (DIGITS, "/result/structuredContent/*", "/result/structuredContent/4111111111111111"),
    # a name past 64 characters is cut in the path (its first 32 and its length: Finding), and redacted whole
    (LONG_NAME, "/result/structuredContent/*", "/result/structuredContent/" + "s" * 32 + "~…[100 characters]"),
]


@pytest.mark.parametrize(("answer", "redacted", "whole"), CASES, ids=[
    "duplicate key", "error data", "field name", "result member", "envelope member", "annotations member", "digits",
    "long name"])
@pytest.mark.parametrize("payloads", [False, True], ids=["redacted", "log-payloads"])
def test_a_findings_path_names_no_peer_member_when_payloads_are_redacted(
        tmp_path: Path, answer: bytes, redacted: str, whole: str, payloads: bool) -> None:
    verdicts = tmp_path / "v.jsonl"
    options = ["--verdicts", str(verdicts), *(["--log-payloads"] if payloads else [])]
    peer = LinePeer([*PROXY, *options, "--", sys.executable, "-c", SERVER, answer.decode()])
    try:
        assert peer.exchange(call(1, "t")) is not None
    finally:
        peer.close()
    lines = [json.loads(line) for line in verdicts.read_text().splitlines()]
    assert [[f["path"] for f in line["findings"]] for line in lines] == [[whole if payloads else redacted]]

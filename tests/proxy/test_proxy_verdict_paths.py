"""The verdict lines with payloads redacted (the default: README "The proxy", What it records):
each finding's path says where the finding is, never a member name a peer chose — a key of the
tool's output, of an error's ``data`` or ``_meta``, an input request's key, a requested field's
name — which is payload (a duplicate key named ``sk-live-...`` went into the line as the path's
last member). ``--log-payloads`` keeps the paths whole. The real proxy (stdio→stdio) in front
of a server writing each answer's bytes as given."""

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

# (the answer; the path in the verdict line redacted (the default), and with --log-payloads), by hand
CASES = [
    (DUPLICATE, "/result/structuredContent/*", "/result/structuredContent/sk-live-SECRET"),
    (NAN_DATA, "/error/data/*/*", "/error/data/token-abc/a"),
    (FIELD, "/result/inputRequests/*/params/requestedSchema/properties/*",
     "/result/inputRequests/ask-secret/params/requestedSchema/properties/apiKey"),
]


@pytest.mark.parametrize(("answer", "redacted", "whole"), CASES, ids=["duplicate key", "error data", "field name"])
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

"""Every consumer of the content check compiles a large listed outputSchema at the same bounded cost.

``check_output`` (the proxy's and the client's path) compiles a large schema without a copy of
its annotations: a cache miss copies it piece by piece, each piece checked against its key, the
annotations' values checked and let go (``_copy_verified``; tests/test_check_schema_large.py).
The tap and the audit keep a listed tool's schema by its key (``schema_key``: what its calls are
held to, whatever becomes of the dict) and compiled it with ``compile_key(key)``, which on a
miss parsed the key whole, annotations and all: a ``default`` of 140,000 small objects (1.7 MB
of text) peaked at some 28 MB more on the tap's first call and 33 MB on the audit's, 16 and 19
times the text. Now both hand ``compile_key`` the listed schema as its ``source``, copied as
``check_output`` copies it.

Each row runs a real consumer in a subprocess: the tap on a real SDK ``Client`` and a crafted
stdio server, the audit fed the frames of a recording; the peak RSS (VmHWM, reset before) is
read around the call whose judging compiles the schema (a miss), then around a later call of the
same schema (a hit: the tap's second call, the audit's call on a second connection listing it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .integrations.crafted_answers import HANDSHAKE

ROOT = Path(__file__).resolve().parents[1]
OBJECTS = 140_000
"""The ``default``'s objects: its tool counts some 57 MB against a connection's 64 MiB budget of
tools (its JSON twice, 128 bytes per token: ``frames._tools``), so the tap and the audit keep it."""

COMMON = r'''
import json, sys
import orjson
from mcp_verdict.judgement._schema import compile_schema

N = int(sys.argv[1])
SCHEMA = {"type": "object", "title": "t", "required": ["n"], "default": [{"a": i} for i in range(N)]}
TEXT = len(orjson.dumps(SCHEMA, option=orjson.OPT_SORT_KEYS))
ANSWERS = json.loads(sys.argv[4])  # the miss's call's structuredContent, the hit's

def rss(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field))

def reset():
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak RSS is the RSS now
    return rss("VmRSS")

compile_schema({"type": "object", "required": ["x"]}, "/warm")  # both engines' modules loaded first
'''

CHECK_OUTPUT = COMMON + r'''
from mcp_verdict import check_output, classify
out = {"text": TEXT}
tool = {"name": "big", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}
for call, content in zip(("miss", "hit"), ANSWERS):
    verdict = classify({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                              "structuredContent": content}})
    before = reset()
    check = check_output(verdict, tool)
    out[call] = rss("VmHWM") - before
    out[call + "_findings"] = [f.code for f in check.findings]
print(json.dumps(out))
'''

TAP = COMMON + r'''
import anyio
from mcp import Client
from mcp_verdict import VerdictTap

SERVER = sys.argv[2] + r"""
n, answers = int(sys.argv[1]), json.loads(sys.argv[2])
out = sys.stdout.buffer
schema = {"type": "object", "title": "t", "required": ["n"], "default": [{"a": i} for i in range(n)]}
tools = [{"name": "big", "inputSchema": {"type": "object"}, "outputSchema": schema}]
calls = 0
for message, rid, method in requests():
    result = handshake(method, "big")
    if method == "tools/list":
        result = {"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private"}
    elif method == "tools/call":
        result = {"resultType": "complete", "content": [{"type": "text", "text": "ok"}],
                  "structuredContent": answers[calls], "isError": False}
        calls += 1
    elif result is None:
        result = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n"); out.flush()
"""

async def main():
    tap = VerdictTap()
    out = {"text": TEXT}
    del globals()["SCHEMA"]
    async with Client(tap.stdio_transport(sys.executable, ["-c", SERVER, str(N), sys.argv[4]])) as client:
        await client.list_tools()
        if sys.argv[3] == "changed":  # the dict the tap hands out changed: the calls are held to the listing
            listed = tap.tool("big")["outputSchema"]
            listed["required"] = ["m"]
        for call in ("miss", "hit"):
            before = reset()
            outcome = await tap.call_tool(client, "big", {})
            out[call] = rss("VmHWM") - before
            out[call + "_findings"] = [f.code for f in outcome.content_check.findings]
    print(json.dumps(out))

anyio.run(main)
'''

AUDIT = COMMON + r'''
from mcp_verdict.audit import Auditor

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
tool = {"name": "big", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}
listing = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": [tool]}}).encode()
del tool, globals()["SCHEMA"]
auditor = Auditor()
out = {"text": TEXT}
line = 0

def feed(conn, direction, message):
    global line
    line += 1
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return auditor.message(conn, direction, data, at=float(line), seq=line, line=line)

for conn, call, content in zip(("c", "d"), ("miss", "hit"), ANSWERS):  # a second connection lists it again
    feed(conn, "c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}})
    feed(conn, "s2c", listing)
    feed(conn, "c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "big", "arguments": {}, "_meta": META}})
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "structuredContent": content,
                                                     "content": [{"type": "text", "text": "ok"}]}}
    before = reset()
    rows = feed(conn, "s2c", answer)
    out[call] = rss("VmHWM") - before
    row = next(r for r in rows if type(r).__name__ == "CallRow")
    assert row.content_checked
    out[call + "_findings"] = [f.code for f in row.findings]
print(json.dumps(out))
'''

PROBES = {"check_output": CHECK_OUTPUT, "tap": TAP, "audit": AUDIT}

# (consumer, whether the tap's tool dict is changed before the calls, the structuredContent of the
# miss's call and the hit's, their findings, the most peak RSS each may add as a multiple of the
# schema's text) — by hand: {"n": 1} and {"n": 2} meet the listed "required": ["n"], {} does not
# (the SDK, which the tap runs under, checks it too and raises, writing the whole schema into its
# message: the tap's calls meet it); a miss holds the key and the default's text once more (about
# 2-4.5 times the text, measured), a hit at most the key and the walk's stack (the tap: nothing,
# its compiled schema is kept per listing); parsing the key whole was 16-19 times the text. A dict
# changed since it was listed ("required": ["m"]) is no copy of the key: the key is parsed whole,
# as before (None: not bounded), and the calls are held to the listing all the same
CASES: list[tuple[str, str, list[Any], list[list[str]], float | None, float]] = [
    ("check_output", "as-listed", [{"n": 1}, {}], [[], ["output.schema"]], 8, 4),
    ("tap", "as-listed", [{"n": 1}, {"n": 2}], [[], []], 8, 4),
    ("tap", "changed", [{"n": 1}, {"n": 2}], [[], []], None, 4),
    ("audit", "as-listed", [{"n": 1}, {}], [[], ["output.schema"]], 8, 4),
]


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="peak RSS is read from Linux's /proc")
@pytest.mark.parametrize(("consumer", "mode", "answers", "findings", "miss", "hit"), CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_each_consumer_compiles_a_large_schema_without_parsing_its_key_whole(
        consumer: str, mode: str, answers: list[Any], findings: list[list[str]], miss: float | None,
        hit: float) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run([sys.executable, "-c", PROBES[consumer], str(OBJECTS), HANDSHAKE, mode, json.dumps(answers)],
                         capture_output=True, text=True, env=env, timeout=300, check=False, cwd=ROOT)
    if run.returncode != 0 and "clear_refs" in run.stderr:
        pytest.skip("/proc/self/clear_refs is not writable here")
    assert run.returncode == 0, run.stderr[-3000:]
    found: dict[str, Any] = json.loads(run.stdout.splitlines()[-1])
    assert found["text"] > 1 << 20  # past the 1 MiB under which a key is parsed whole anyway
    assert [found["miss_findings"], found["hit_findings"]] == findings
    if miss is not None:
        assert found["miss"] < miss * found["text"], found
    assert found["hit"] < hit * found["text"], found

"""A stdio MCP server (2025) that sends its host requests, for the proxy's tests of host
responses over an HTTP host side.

``initialize`` is answered with the version the host asks for (2025-03-26 lets a host send
batches). tools/call by name: ``slow`` answers after ``arguments.seconds``; ``ask`` sends the
host a ``roots/list`` request (id ``"s-<n>"``) and answers the call once the host answers it,
with the text ``answered <id>``; ``ask_unreadable`` does the same with a request no strict
parser reads (``NaN`` in its params, id ``"u-<n>"``), whose answer with a null id (a host that
could not read it) is taken as its answer; ``flood`` sends ``arguments.count`` ``roots/list``
requests (ids ``"f-<n>"``, counted over the process) at once, answers none of their answers,
and answers the call with the text ``flooded <count>``; ``exit`` exits at once (status 3, a crash:
``--restart on-failure`` starts it again, its ids counted from 1 again). A JSON-RPC response
answering no request it sent gets an error under that response's id (null for a null id), as a
server may answer it: the error a proxy would take for another host's answer. Reads as leniently as Python's json.
"""

from __future__ import annotations

import json
import os
import sys
import threading

_LOCK = threading.Lock()


def _write(data: bytes) -> None:
    with _LOCK:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()


def _text(rid: bytes, text: str) -> bytes:
    return (b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":'
            + json.dumps(text).encode() + b'}],"isError":false}}')


def main() -> None:
    asked: dict[str, bytes] = {}  # (the id of a request of ours: the id of the call waiting on it)
    unreadable: list[str] = []
    count = 0
    flooded = 0
    for line in sys.stdin.buffer:
        message = json.loads(line.decode("utf-8", "replace"))
        members = message if isinstance(message, list) else [message]  # (2025-03-26: a batch, each on its own)
        for member in members:
            method = member.get("method")
            if method is None:  # a response
                rid = member.get("id")
                key = rid if isinstance(rid, str) else None
                if rid is None and unreadable:
                    key = unreadable.pop(0)
                if key is not None and key in asked:
                    _write(_text(asked.pop(key), f"answered {key}"))
                else:
                    _write(b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode()
                           + b',"error":{"code":-32600,"message":"no request of mine has this id"}}')
                continue
            if "id" not in member:
                continue
            rid = json.dumps(member["id"]).encode()
            if method == "initialize":
                version = json.dumps(member.get("params", {}).get("protocolVersion", "2025-06-18")).encode()
                _write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"protocolVersion":' + version
                       + b',"capabilities":{"tools":{}},"serverInfo":{"name":"asking","version":"0"}}}')
                continue
            params = member.get("params", {})
            name = params.get("name")
            if name == "slow":
                seconds = float(params.get("arguments", {}).get("seconds", 1))
                threading.Timer(seconds, _write, [_text(rid, "slow done")]).start()
            elif name == "exit":
                sys.stdout.flush()
                os._exit(3)
            elif name == "ask":
                count += 1
                asked[f"s-{count}"] = rid
                _write(b'{"jsonrpc":"2.0","id":"s-%d","method":"roots/list","params":{}}' % count)
            elif name == "flood":
                amount = int(params.get("arguments", {}).get("count", 1))
                for _ in range(amount):
                    flooded += 1
                    _write(b'{"jsonrpc":"2.0","id":"f-%d","method":"roots/list","params":{}}' % flooded)
                _write(_text(rid, f"flooded {amount}"))
            elif name == "ask_unreadable":
                count += 1
                asked[f"u-{count}"] = rid
                unreadable.append(f"u-{count}")
                _write(b'{"jsonrpc":"2.0","id":"u-%d","method":"roots/list","params":{"x":NaN}}' % count)
            else:
                _write(_text(rid, "ok"))


if __name__ == "__main__":
    main()

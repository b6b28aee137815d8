"""A stdio MCP server for the proxy's HTTP-edge tests: tools/call by name — ``notify`` writes a
``notifications/message`` related to no request (it goes to the host's GET stream), then
answers; ``flood`` writes ``arguments.n`` progress notifications of about 1 KB each, then answers;
any other name answers ``ok``. Every line it reads is parsed with Python's json: a line that is
not a whole message is answered with a parse error (id null), as the SDKs' stdio servers do."""

from __future__ import annotations

import json
import sys


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            out.write(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n')
            out.flush()
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        rid = json.dumps(message["id"]).encode()
        params = message.get("params") or {}
        name = params.get("name")
        if name == "notify":
            out.write(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}\n')
        elif name == "flood":
            token = json.dumps(params["_meta"]["progressToken"])
            pad = "p" * 1000
            for n in range(int(params["arguments"]["n"])):
                out.write(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,'
                          b'"progress":%d,"message":"%s"}}\n' % (token.encode(), n, pad.encode()))
        out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
                  b'"isError":false}}\n')
        out.flush()


if __name__ == "__main__":
    main()

"""A stdio MCP server that writes the request's id back as the client wrote it (its bytes), for
the proxy's tests of ids as written.

The id's text is the value of the first ``"id"`` member of the line (the tests write it before
``params``): a number, a string or null, byte for byte. The rest of the request is read as
leniently as Python's json (NaN, lone surrogates; invalid UTF-8 replaced).

Answers ``initialize`` (2025-06-18). tools/call by name: ``echo`` answers at once under the id's
bytes; ``float`` answers under the id as Python's json writes the value it read (``1E2`` →
``100.0``: the server's own text, another than the client's); ``hang`` never answers; ``dup``
answers with isError twice (no strict parser reads it); ``exit`` exits (status 3) without
answering. Any other request with an id is answered as ``echo``.

Each line read is appended to the file named by $VERBATIM_LOG (its bytes, one per line), so a
test reads what the server was sent.
"""

from __future__ import annotations

import json
import os
import re
import sys

_ID = re.compile(rb'"id"\s*:\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*"|null)')


def main() -> None:
    log = os.environ.get("VERBATIM_LOG")
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if log:
            with open(log, "ab") as handle:
                handle.write(line if line.endswith(b"\n") else line + b"\n")
        try:
            message = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            continue
        found = _ID.search(line)
        if not isinstance(message, dict) or "id" not in message or found is None:
            continue
        rid = found.group(1)
        method = message.get("method")
        if method == "initialize":
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"protocolVersion":"2025-06-18",'
                      b'"capabilities":{"tools":{}},"serverInfo":{"name":"verbatim","version":"0"}}}\n')
            out.flush()
            continue
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if name == "exit":
            sys.exit(3)
        if name == "hang":
            continue
        if name == "float":
            rid = json.dumps(message["id"]).encode()
        if name == "dup":
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[],"isError":true,"isError":false}}\n')
        else:
            out.write(b'{"jsonrpc":"2.0","id":' + rid + b',"result":{"content":[{"type":"text","text":"ok"}],'
                      b'"isError":false}}\n')
        out.flush()


if __name__ == "__main__":
    main()

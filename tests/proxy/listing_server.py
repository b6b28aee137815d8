"""A stdio MCP server (2026-07-28) whose ``tools/list`` pages are read from a JSON file, for the
proxy's hostile tests of the ``Mcp-Param`` headers it checks (``x-mcp-header`` in the listed
``inputSchema``).

``listing_server.py PAGES [--first]``: ``PAGES`` holds a JSON array of pages, each a JSON array of tools;
``tools/list`` with no cursor answers the first, with the cursor ``"<i>"`` the page ``i``, each
with ``nextCursor`` ``"<i+1>"`` but the last; a page given as a JSON string is the text of its
tools array, written as it is (a member name given twice, say). Read again at each ``tools/list``
(a test may change the listing between two calls). Every ``tools/call`` is answered with the text
``called <name> <arguments as the request's JSON text wrote them>`` (numbers as written, not
reread); any other request with an empty result. With ``--first`` a member name given twice in a
request is read as its first occurrence (as cJSON and many other parsers read it), else as its
last (Python's json, orjson). Each line read is appended to the file named by $LISTING_LOG, when set
(its bytes, one per line), so a test reads what the server was sent.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

_ARGUMENTS = re.compile(rb'"arguments":(.*),"_meta"')


def _first(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose member names given twice keep their first value."""
    kept: dict[str, Any] = {}
    for name, value in pairs:
        kept.setdefault(name, value)
    return kept


def main() -> None:
    sys.setrecursionlimit(100_000)  # (a deeply nested listing)
    pages_file = sys.argv[1]
    hook = _first if sys.argv[2:] == ["--first"] else None
    log = os.environ.get("LISTING_LOG")
    for line in sys.stdin.buffer:
        if log:
            with open(log, "ab") as f:
                f.write(line if line.endswith(b"\n") else line + b"\n")
        message = json.loads(line, object_pairs_hook=hook)
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            continue
        params = message.get("params") or {}
        if message["method"] == "tools/list":
            with open(pages_file, encoding="utf-8") as f:
                pages = json.load(f)
            cursor = params.get("cursor")
            index = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
            result: dict[str, Any] = {"resultType": "complete", "tools": pages[index] if index < len(pages) else []}
            if index + 1 < len(pages):
                result["nextCursor"] = str(index + 1)
        elif message["method"] == "tools/call":
            written = _ARGUMENTS.search(line)
            text = f"called {params.get('name')} {written.group(1).decode() if written else None}"
            result = {"resultType": "complete", "content": [{"type": "text", "text": text}], "isError": False}
        else:
            result = {}
        answer = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
        if isinstance(result.get("tools"), str):  # (a page written as it is)
            answer = answer.replace(json.dumps(result["tools"]), result["tools"], 1)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

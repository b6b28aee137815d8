"""A 2026-07-28 MCP server (``server/discover``, no tasks) whose ``tools/call`` answers ask for
input with the multi round-trip pattern (``resultType: "input_required"``), well and badly, for
the client's round tests. Run: python -m tests.servers.input_rounds stdio, or python -m
tests.servers.input_rounds http (prints its port, then serves http://127.0.0.1:PORT/mcp until its
stdin closes).

The server keeps nothing between requests (mrtr: "the server processing the retry does not need
any information beyond what is directly present in the retry request"): each answer is made from
the call's ``inputResponses`` and ``requestState``. A complete result is the text
``<what the tool saw>``. The tools (``F`` is a form elicitation for a name, ``R`` a roots/list):

- ``ask_name``: ``{name: F}`` until a retry answers ``name``; then complete ``name=<the name>``;
- ``empty``: ``inputRequests: {}``, no ``requestState``, every round;
- ``emptied``: ``{name: F}``; once a retry answers ``name``, ``inputRequests: {}`` and no
  ``requestState`` (the key answered, nothing listed, nothing to echo);
- ``emptied_state``: ``{name: F}`` with ``requestState: "s1"``; once ``name`` is answered,
  ``inputRequests: {}`` and no ``requestState``;
- ``state_only``: ``inputRequests: {}`` with ``requestState: "s1"``; retried with ``s1``, the
  same with ``s2``; retried with ``s2``, complete ``state=s2``;
- ``empty_state``: ``inputRequests: {}`` with ``requestState: ""`` (an empty string) until a
  retry echoes ``""``; then complete ``state=''``;
- ``state_forever``: ``inputRequests: {}`` with ``requestState: "s<n>"``, one more each round;
- ``same_key``: ``{name: F}`` every round, answered or not;
- ``new_keys``: ``{k<n>: R}``, ``n`` one past the largest ``k<n>`` answered (a new key every round);
- ``growing_state``: ``{r: R}`` with a ``requestState`` twice as long as the one echoed (4096
  ``x`` the first time), every round;
- ``requests_list``, ``requests_text``, ``requests_null``: ``inputRequests`` ``[F]``, ``"F"``,
  ``null`` (no object), with ``requestState: "s"``;
- ``empty_key``: ``{"": F}`` (a key that is the empty string) until a retry answers the key
  ``""``; then complete ``''=<the name>``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.servers._lines import ReplyHandler, discovered, listed, requests, serve_http, text

TOOLS = ("ask_name", "empty", "emptied", "emptied_state", "state_only", "empty_state", "state_forever", "same_key",
         "new_keys", "growing_state", "requests_list", "requests_text", "requests_null", "empty_key")
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
FORM = {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": NAME_SCHEMA}}
ROOTS = {"method": "roots/list"}


def asking(requests_: Any = None, state: str | None = None) -> dict[str, Any]:
    """An input_required result: ``inputRequests`` unless None is given, ``requestState`` when given."""
    result: dict[str, Any] = {"resultType": "input_required"}
    if requests_ is not None:
        result["inputRequests"] = requests_
    if state is not None:
        result["requestState"] = state
    return result


def named(responses: dict[str, Any], key: str) -> str | None:
    """The name a form answer for ``key`` accepted, or None."""
    answer = responses.get(key)
    content = answer.get("content") if isinstance(answer, dict) else None
    return str(content.get("name")) if isinstance(content, dict) and "name" in content else None


def called(name: str, responses: dict[str, Any], state: Any) -> dict[str, Any]:
    """The answer to one tools/call of ``name`` (each round a new request)."""
    if name == "ask_name":
        given = named(responses, "name")
        return text(f"name={given}") if given is not None else asking({"name": FORM})
    if name == "empty":
        return asking({})
    if name in ("emptied", "emptied_state"):
        if named(responses, "name") is not None:
            return asking({})
        return asking({"name": FORM}, "s1" if name == "emptied_state" else None)
    if name == "state_only":
        return text("state=s2") if state == "s2" else asking({}, "s2" if state == "s1" else "s1")
    if name == "empty_state":
        return text("state=''") if state == "" else asking({}, "")
    if name == "state_forever":
        number = int(state[1:]) if isinstance(state, str) and state[1:].isdigit() else 0
        return asking({}, f"s{number + 1}")
    if name == "same_key":
        return asking({"name": FORM})
    if name == "new_keys":
        answered = [int(key[1:]) for key in responses if key[1:].isdigit()]
        return asking({f"k{max(answered, default=0) + 1}": ROOTS})
    if name == "growing_state":
        return asking({"r": ROOTS}, state * 2 if isinstance(state, str) and state else "x" * 4096)
    if name == "requests_list":
        return asking([FORM], "s")
    if name == "requests_text":
        return asking("F", "s")
    if name == "requests_null":
        return {"resultType": "input_required", "inputRequests": None, "requestState": "s"}
    assert name == "empty_key"
    given = named(responses, "")
    return text(f"''={given}") if given is not None else asking({"": FORM})


def reply(message: dict[str, Any]) -> dict[str, Any]:
    method = message.get("method")
    params = message.get("params") or {}
    body: dict[str, Any]
    if method == "server/discover":
        body = {"result": discovered("input-rounds", {})}
    elif method == "tools/list":
        body = {"result": listed(TOOLS)}
    elif method == "tools/call" and params.get("name") in TOOLS:
        responses = params.get("inputResponses")
        body = {"result": called(str(params["name"]), responses if isinstance(responses, dict) else {},
                                 params.get("requestState"))}
    else:
        body = {"error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": message.get("id"), **body}


class Handler(ReplyHandler):
    def reply(self, message: dict[str, Any]) -> dict[str, Any]:
        return reply(message)


def main() -> None:
    if sys.argv[1:] == ["http"]:
        serve_http(Handler)
        return
    out = sys.stdout.buffer
    for message in requests():
        out.write(json.dumps(reply(message)).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()

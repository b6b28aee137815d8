"""Tools whose response is broken on the wire: bytes no JSON library would produce.

Each breaks one rule of https://modelcontextprotocol.io/specification/2026-07-28/:

- ``duplicate_is_error``: ``"isError":true,"isError":false`` in one object — JSON (RFC 8259
  §4) says names SHOULD be unique; readers disagree on which copy wins (most keep the last);
- ``nan_value``: a bare ``NaN`` in ``structuredContent`` — not JSON at all (RFC 8259 §6), yet
  Python's ``json`` accepts it;
- ``mismatched_id``: the response's id is not the request's (basic/index#result-responses:
  "MUST include the same ID"); ``id_style: "type"`` (default) keeps the digits and changes
  the JSON type (``7`` → ``"7"``), ``"other"`` sends another id altogether;
- ``hang_up``: no response — the stdio server exits, the HTTP server drops the connection after
  the response headers (basic/transports/stdio#unexpected-termination);
- ``malformed_json``: a truncated, unparseable frame; with ``answer_after: true`` the stdio
  server then also writes the proper answer (garbage, then the answer; HTTP carries only the
  garbage — one body per POST);
- ``invalid_utf8``: a text block encoded in Latin-1 ("café" as ``caf\\xe9``): invalid UTF-8
  (basic/transports/stdio: messages are UTF-8).
"""

from __future__ import annotations

from ._call import Call, text_content, tool
from ._wire import Reply, RequestId, dumps


def _result_type(call: Call) -> str:
    return '"resultType":"complete",' if call.modern else ""


@tool("Duplicated isError", "Outcome: a result object with isError twice, true then false (a duplicated key).")
def duplicate_is_error(call: Call) -> Reply:
    content = dumps(text_content("Deployment rolled back: health check failed."))
    return call.raw_result(f'{{{_result_type(call)}"content":{content},"isError":true,"isError":false}}')


@tool("NaN in the result", "Outcome: structuredContent {\"ratio\": NaN} — a bare NaN, which is not JSON.")
def nan_value(call: Call) -> Reply:
    content = dumps(text_content("Conversion ratio computed."))
    return call.raw_result(f'{{{_result_type(call)}"content":{content},"structuredContent":{{"ratio":NaN}},'
                           f'"isError":false}}')


def other_id(request_id: RequestId, style: str) -> RequestId:
    """The id ``mismatched_id`` answers with: same digits in the other JSON type, or another id."""
    if style == "other":
        return request_id + 1_000_000 if isinstance(request_id, int) else f"{request_id}-other"
    if isinstance(request_id, int):
        return str(request_id)
    return int(request_id) if request_id.isascii() and request_id.isdigit() else f"{request_id}-other"


@tool("Mismatched response id", "Outcome: a well-formed result under the wrong id — id_style \"type\" (default) "
      "sends the same digits as the other JSON type (7 → \"7\"), \"other\" a different id.",
      inputs={"id_style": {"type": "string", "enum": ["type", "other"]}})
def mismatched_id(call: Call) -> Reply:
    wrong = other_id(call.request_id, str(call.arguments.get("id_style", "type")))
    result = call.result_fields({"content": text_content("Cache warmed."), "isError": False})
    return call.raw_result(dumps(result), request_id=wrong)


@tool("Hang up", "Outcome: no response — over stdio the server process exits; over HTTP the connection is "
      "dropped after the response headers.")
def hang_up(call: Call) -> Reply:
    return Reply(close=True)


@tool("Malformed JSON frame", "Outcome: a truncated, unparseable JSON frame. With answer_after: true the stdio "
      "server then writes the proper answer as the next line (HTTP: ignored).",
      inputs={"answer_after": {"type": "boolean"}})
def malformed_json(call: Call) -> Reply:
    whole = call.result({"content": text_content("Index rebuilt."), "isError": False}).frames[0]
    garbage = whole[: len(whole) // 2]
    return call.raw_frames(garbage, whole) if call.arguments.get("answer_after") is True else call.raw_frames(garbage)


@tool("Invalid UTF-8", "Outcome: a frame whose text block is Latin-1 encoded (\"café\" as caf\\xe9): invalid UTF-8.")
def invalid_utf8(call: Call) -> Reply:
    content = dumps(text_content("Order placed at the café.")).encode("latin-1")
    return call.raw_result(f'{{{_result_type(call)}"content":'.encode() + content + b',"isError":false}')

"""The JSON-RPC 2.0 envelope of a response, as MCP constrains it.

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#responses and
https://www.jsonrpc.org/specification#response_object):

- one JSON object, not a batch (``envelope.batch``) or a scalar (``envelope.not_object``);
- ``"jsonrpc": "2.0"``, that exact string (``envelope.jsonrpc``);
- exactly one of ``result`` and ``error`` (``envelope.result_and_error``,
  ``envelope.no_result_or_error``), and no ``method`` (``envelope.request_shape``);
- a result response has an id (``envelope.id_missing``); so does an error response up to
  2025-06-18 (``envelope.error_id_missing``: "Responses MUST include the same ID as the
  request they correspond to", and the schema's JSONRPCError requires it); from 2025-11-25
  an error response may omit it when the request id could not be read
  (``envelope.id_absent_on_error``, a warning); a present id is a string or an integer,
  never a bool, float, null, array or object (``envelope.id_type``). ``1.0`` is refused
  though JSON Schema's integer takes it, the one integer held stricter than the schema (a row
  of tests/stricter_than_schema.py): the id is the request's echoed, and a request's integer
  id is written without a fraction part;
- with the request's id known, the response id equals it with the same JSON type
  (``envelope.id_mismatch``).
"""

from __future__ import annotations

from typing import Final, Literal

from ._findings import describe
from ._shown import shown
from ._walk import Context, check_extras

_KNOWN: Final = frozenset({"jsonrpc", "id", "result", "error", "method"})


def check_envelope(ctx: Context, message: object, request_id: str | int | None,
                   ) -> Literal["result", "error"] | None:
    """Check the envelope; return which branch to read next, or None if there is none."""
    if not isinstance(message, dict):
        if isinstance(message, list):
            ctx.add("", "envelope.batch",
                    f"a JSON array of {len(message)} values is a batch, not one response")
        else:
            ctx.add("", "envelope.not_object", f"the response is {describe(message)}, not an object")
        return None
    jsonrpc = message.get("jsonrpc")
    if jsonrpc != "2.0" or not isinstance(jsonrpc, str):
        if "jsonrpc" in message:
            ctx.add("/jsonrpc", "envelope.jsonrpc", f'"jsonrpc" is {describe(jsonrpc)}, not "2.0"')
        else:
            ctx.add("", "envelope.jsonrpc", 'the "jsonrpc": "2.0" member is missing')
    has_result = "result" in message
    has_error = "error" in message
    if "method" in message:
        ctx.add("/method", "envelope.request_shape",
                'a "method" member makes this a request or notification, not a response')
    if has_result and has_error:
        ctx.add("", "envelope.result_and_error", "both result and error are present")
        return None
    if not has_result and not has_error:
        ctx.add("", "envelope.no_result_or_error", "neither result nor error is present")
        return None
    if "id" in message:
        response_id = message["id"]
        if isinstance(response_id, bool) or not isinstance(response_id, (str, int)):
            ctx.add("/id", "envelope.id_type",
                    f"the id is {describe(response_id)}; it must be a string or an integer", response_id)
        elif request_id is not None and (type(response_id) is not type(request_id)
                                         or response_id != request_id):
            ctx.add("/id", "envelope.id_mismatch",
                    f"the id is {shown(response_id)}; the request's id is {shown(request_id)}")
    elif has_result:
        ctx.add("", "envelope.id_missing", "a result response must carry the request's id")
    elif ctx.rules.error_id_required:
        ctx.add("", "envelope.error_id_missing",
                f"the error response has no id; on {ctx.rules.version} every response MUST include the "
                "id of its request")
    else:
        ctx.add("", "envelope.id_absent_on_error",
                "the error response has no id: allowed only when the request id could not be read; "
                "it cannot be matched to a request")
    if len(message) > has_result + has_error + ("jsonrpc" in message) + ("id" in message):
        check_extras(ctx, message, _KNOWN, "", 1)
    return "result" if has_result else "error"

"""Built-in receivers, to compare with the application's own and with each other.

- ``mcp-verdict``: :func:`mcp_verdict.classify` itself, given each case's input as the corpus
  holds it (wire bytes or a parsed value) and every option.
- ``minimal``: the design note's minimal classifier (see :func:`minimal`).
- ``sdk``: the official Python SDK's typed parse (see :func:`sdk_receiver`); needs ``mcp-types``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ..verdict._classify import classify
from ..verdict._kind import Kind
from ..verdict._shown import shown
from ..verdict._versions import LATEST_VERSION, RULES_BY_VERSION
from ._receiver import KitError, Receiver, receiver_from

_ABSENT: Final = object()


def minimal(response: object, version: str = LATEST_VERSION) -> Kind:
    """The design note's minimal classifier, over a parsed response; nothing else is checked.

    Unclassified unless exactly one of result and error; an error is a protocol_error; the
    result must be an object; resultType ``input_required`` → input_required; any other value
    than ``complete`` → unclassified (an absent resultType is ``complete`` on the versions
    before resultType existed, unclassified on 2026-07-28); isError must be absent or a JSON
    boolean → tool_error or normal_complete.
    """
    if not isinstance(response, dict) or ("result" in response) == ("error" in response):
        return Kind.UNCLASSIFIED
    if "error" in response:
        return Kind.PROTOCOL_ERROR
    result = response["result"]
    if not isinstance(result, dict):
        return Kind.UNCLASSIFIED
    result_type = result.get("resultType", _ABSENT)
    if result_type is _ABSENT and not RULES_BY_VERSION[version].result_type_required:
        result_type = "complete"
    if result_type == "input_required":
        return Kind.INPUT_REQUIRED
    if result_type != "complete":
        return Kind.UNCLASSIFIED
    flag = result.get("isError", False)
    if type(flag) is not bool:
        return Kind.UNCLASSIFIED
    return Kind.TOOL_ERROR if flag else Kind.NORMAL_COMPLETE


def sdk_receiver() -> Callable[[bytes], Kind]:
    """The official SDK's typed parse of the wire bytes, as its client session reads a response.

    The envelope is read with ``mcp_types.jsonrpc_message_adapter``; a JSON-RPC error is a
    protocol_error; a result is validated with ``TypeAdapter(CallToolResult |
    InputRequiredResult)``: a CallToolResult is tool_error or normal_complete by its
    ``is_error``, an InputRequiredResult is input_required, and any validation failure (or a
    message that is not a response) is unclassified. Raises :class:`KitError` without
    ``mcp-types``.
    """
    try:
        import mcp_types
        import pydantic
    except ImportError as exc:
        raise KitError(f"the sdk receiver needs the official SDK's types: pip install mcp-types ({exc})") from None
    envelope = mcp_types.jsonrpc_message_adapter
    results = pydantic.TypeAdapter(mcp_types.CallToolResult | mcp_types.InputRequiredResult)

    def sdk(response: bytes) -> Kind:
        try:
            message = envelope.validate_json(response, by_name=False)
            if isinstance(message, mcp_types.JSONRPCError):
                return Kind.PROTOCOL_ERROR
            if not isinstance(message, mcp_types.JSONRPCResponse):
                return Kind.UNCLASSIFIED
            result = results.validate_python(message.result, by_name=False)
        except pydantic.ValidationError:
            return Kind.UNCLASSIFIED
        if isinstance(result, mcp_types.InputRequiredResult):
            return Kind.INPUT_REQUIRED
        return Kind.TOOL_ERROR if result.is_error else Kind.NORMAL_COMPLETE

    return sdk


BUILTINS: Final[dict[str, str]] = {
    "mcp-verdict": "mcp_verdict.classify, given each case's input as the corpus holds it and every option",
    "minimal": "the design note's minimal classifier (envelope, result object, resultType, isError type)",
    "sdk": "the official SDK's typed parse: TypeAdapter(CallToolResult | InputRequiredResult) (needs mcp-types)",
}
"""The built-in receivers by name, with what each one is."""


def builtin(name: str) -> Receiver:
    """A built-in receiver by name (:data:`BUILTINS`)."""
    if name == "mcp-verdict":
        return receiver_from(classify, name=name)
    if name == "minimal":
        return receiver_from(minimal, name=name, input="parsed")
    if name == "sdk":
        return receiver_from(sdk_receiver(), name=name, input="raw")
    raise KitError(f"unknown built-in receiver {shown(name)}; the built-ins are {', '.join(BUILTINS)}")


__all__ = ["BUILTINS", "builtin", "minimal", "sdk_receiver"]

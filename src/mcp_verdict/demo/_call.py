"""One ``tools/call`` as a tool handler sees it, and the helpers handlers build replies with.

server/tools#calling-tools and #tool-result
(https://modelcontextprotocol.io/specification/2026-07-28/server/tools):

- a result carries unstructured ``content`` blocks, optionally ``structuredContent`` (for
  backwards compatibility also serialised into a text block) and ``isError`` (a boolean);
- on 2026-07-28 every result has ``resultType`` (basic/index#resulttype) and SHOULD carry
  ``_meta["io.modelcontextprotocol/serverInfo"]`` (basic/index#_meta); results for a legacy
  (``initialize``) session have neither;
- a tool that needs a client capability the request did not declare answers -32021 with
  ``data.requiredCapabilities`` (basic/index#_meta, "A server MUST NOT rely on capabilities the
  client has not declared").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ._notes import NoteStore
from ._state import StateSealer
from ._tasks import TaskStore
from ._wire import MISSING_REQUIRED_CLIENT_CAPABILITY, Reply, RequestError, RequestId, dumps, result_frame

SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
TASKS_EXTENSION: Final = "io.modelcontextprotocol/tasks"


@dataclass(frozen=True, slots=True)
class Services:
    """The process-wide parts the tools share (the only state the server keeps)."""

    sealer: StateSealer
    notes: NoteStore
    tasks: TaskStore
    server_info: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Call:
    """One validated ``tools/call`` request."""

    request_id: RequestId
    name: str
    arguments: Mapping[str, Any]
    modern: bool
    """True for a 2026-07-28 request (per-request ``_meta``), False on a legacy session."""
    capabilities: Mapping[str, Any]
    """The request's ``io.modelcontextprotocol/clientCapabilities`` (empty on a legacy session)."""
    input_responses: Mapping[str, Any] | None
    request_state: str | None
    services: Services

    # --- what the client declared --------------------------------------------------------

    def declares(self, capability: str, mode: str | None = None) -> bool:
        """Whether the request declared ``capability`` (and, for elicitation, ``mode``: an empty
        ``elicitation`` object means form mode — client/elicitation#capabilities)."""
        value = self.capabilities.get(capability)
        if not isinstance(value, Mapping):
            return False
        if mode is None:
            return True
        return isinstance(value.get(mode), Mapping) or (mode == "form" and not value)

    @property
    def declares_tasks(self) -> bool:
        """Whether the request declared the tasks extension in its clientCapabilities."""
        extensions = self.capabilities.get("extensions")
        return self.modern and isinstance(extensions, Mapping) and isinstance(extensions.get(TASKS_EXTENSION),
                                                                              Mapping)

    def require(self, capability: str, required: Mapping[str, Any]) -> None:
        """Answer -32021 unless the request declared ``capability``."""
        mode = "form" if capability == "elicitation" else None
        if not self.declares(capability, mode):
            raise RequestError(MISSING_REQUIRED_CLIENT_CAPABILITY,
                               f"Tool {self.name} requires the {capability} client capability",
                               {"requiredCapabilities": dict(required)})

    # --- replies -------------------------------------------------------------------------

    def result_fields(self, fields: Mapping[str, Any], result_type: str | None = "complete") -> dict[str, Any]:
        """The result object: ``resultType`` first (2026-07-28), the fields, then ``_meta``
        serverInfo (2026-07-28). ``result_type=None`` leaves resultType out."""
        out: dict[str, Any] = {}
        if self.modern and result_type is not None:
            out["resultType"] = result_type
        out.update(fields)
        if self.modern:
            out["_meta"] = {SERVER_INFO_KEY: dict(self.services.server_info)}
        return out

    def result(self, fields: Mapping[str, Any], *, result_type: str | None = "complete",
               delay: float = 0.0) -> Reply:
        """A well-formed result response."""
        return self.raw_result(dumps(self.result_fields(fields, result_type)), delay=delay)

    def raw_result(self, result: str | bytes, *, request_id: RequestId | None = None, delay: float = 0.0) -> Reply:
        """A result response around ``result`` exactly as given — the raw answer of a fault: text,
        or bytes that need not be UTF-8; under another ``request_id`` when given."""
        envelope = result_frame(self.request_id if request_id is None else request_id, "")  # {...,"result":}
        body = result if isinstance(result, bytes) else result.encode("utf-8")
        return Reply((envelope[:-1] + body + b"}",), delay=delay)

    @staticmethod
    def raw_frames(*frames: bytes) -> Reply:
        """Exactly these frames, whatever they are (a truncated message, garbage then the answer)."""
        return Reply(tuple(frames))


def text_content(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def structured(data: Any, *, is_error: bool = False) -> dict[str, Any]:
    """A CallToolResult's fields for ``data``: the JSON text block and ``structuredContent``."""
    return {"content": text_content(dumps(data)), "structuredContent": data, "isError": is_error}


Handler = Callable[[Call], Reply]


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool: its ``tools/list`` definition and the handler that answers its calls."""

    definition: Mapping[str, Any]
    handler: Handler

    @property
    def name(self) -> str:
        name = self.definition["name"]
        assert isinstance(name, str)
        return name


def tool_annotations(title: str, *, read_only: bool, destructive: bool | None = None, idempotent: bool | None = None,
                open_world: bool = False) -> dict[str, Any]:
    """Tool annotations (server/tools#tool, schema ToolAnnotations); destructiveHint and
    idempotentHint are only meaningful, and only given, when the tool is not read-only."""
    out: dict[str, Any] = {"title": title, "readOnlyHint": read_only}
    if not read_only:
        out["destructiveHint"] = bool(destructive)
        out["idempotentHint"] = bool(idempotent)
    out["openWorldHint"] = open_world
    return out


def tool(title: str, description: str, *, inputs: Mapping[str, Any] | None = None, required: tuple[str, ...] = (),
         outputs: Mapping[str, Any] | None = None, output_required: tuple[str, ...] = (), read_only: bool = True,
         destructive: bool = False, idempotent: bool = False, open_world: bool = False,
         ) -> Callable[[Handler], Tool]:
    """The one way to declare a demo tool: decorate its handler, named as the tool.

    ``inputs``/``outputs`` are the properties of closed object schemas (no ``outputs``: no
    outputSchema); the annotations say read-only unless ``read_only=False``.
    """

    def declare(handler: Handler) -> Tool:
        definition: dict[str, Any] = {"name": handler.__name__, "title": title, "description": description,
                                      "inputSchema": object_schema(inputs or {}, required)}
        if outputs is not None:
            definition["outputSchema"] = object_schema(outputs, output_required)
        definition["annotations"] = tool_annotations(title, read_only=read_only, destructive=destructive,
                                                     idempotent=idempotent, open_world=open_world)
        return Tool(definition, handler)

    return declare


def object_schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An input or output schema: a closed object (JSON Schema 2020-12, the default dialect)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema

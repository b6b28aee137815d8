"""The sans-I/O core of the demo server: one parsed message in, the exact reply out.

No I/O here: an edge (``_stdio``, ``_http``) reads a message, calls :meth:`DemoServer.handle`
and carries out the :class:`~mcp_verdict.demo.Reply` (send these bytes, wait, hang up).

Protocol behaviour, per https://modelcontextprotocol.io/specification/2026-07-28/:

- basic/index#statelessness and #_meta: every 2026-07-28 request carries
  ``_meta["io.modelcontextprotocol/protocolVersion"]`` and
  ``_meta["io.modelcontextprotocol/clientCapabilities"]``; a request missing either is
  answered -32602. Nothing is inferred from earlier requests.
- basic/versioning#protocol-version-negotiation: a version the server does not implement is
  answered -32022 with ``data.supported`` and ``data.requested``.
- server/discover: ``server/discover`` answers supportedVersions, capabilities (tools, and the
  tasks extension), ``_meta`` serverInfo, instructions and the caching hints.
- server/tools: ``tools/list`` lists every tool with ``ttlMs``/``cacheScope``
  (server/utilities/caching); ``tools/call`` of an unknown tool or with arguments that break
  the tool's ``inputSchema`` is -32602 (schema InvalidParamsError); an unknown method -32601.
- every result carries ``resultType``; results also carry ``_meta`` serverInfo.
- basic/versioning#backward-compatibility-with-initialization-based-versions: the server is
  dual-era. ``initialize`` (2025-11-25 and earlier) selects legacy semantics for the stdio
  process, or for an HTTP request whose ``MCP-Protocol-Version`` header names a legacy version;
  legacy results have no ``resultType``. A request carrying the modern ``_meta`` is always
  served as 2026-07-28.
- tasks extension (ext-tasks, specification/draft/tasks.md): ``tasks/get``, ``tasks/update``
  and ``tasks/cancel`` (see ``_tasks``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .. import __version__
from ._call import SERVER_INFO_KEY, TASKS_EXTENSION, Call, Services
from ._notes import NoteStore
from ._state import StateSealer
from ._tasks import TaskStore, UnknownTask
from ._tools import TOOLS, TOOLS_BY_NAME
from ._wire import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOTHING,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    Reply,
    RequestError,
    error_reply,
    parse_request,
    readable_id,
    result_reply,
)

log = logging.getLogger("mcp_verdict.demo")

PROTOCOL_VERSION: Final = "2026-07-28"
SUPPORTED_VERSIONS: Final = (PROTOCOL_VERSION,)
LEGACY_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Versions an ``initialize`` handshake may negotiate (the newest is the default)."""
PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
REQUIRED_META: Final = (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY)
SERVER_NAME: Final = "mcp-verdict-demo"
INSTRUCTIONS: Final = ("A fault-injecting demonstration server for mcp-verdict: each tool is built to produce "
                       "one outcome (success, tool error, input required, task, protocol error, or a malformed "
                       "or broken response). Do not use it for real work.")
LIST_TTL_MS: Final = 60_000
"""Freshness of server/discover and tools/list (the tool list never changes)."""


@dataclass(slots=True)
class Connection:
    """What the edge knows about where a message came from.

    ``legacy_version``: the version a legacy ``initialize`` negotiated — for the whole stdio
    process (set by the core when it answers ``initialize``), or for one HTTP request (set by
    the core from a legacy ``MCP-Protocol-Version`` header). ``None``: modern only.
    ``headers``: the HTTP request's headers; ``None`` on stdio. With them the core applies the
    Streamable HTTP header rules (``frames._routing_headers``, the proxy's too). The HTTP edge
    gives a ``FieldList``, which keeps each value of a repeated name (a header given twice is
    refused); a plain mapping holds one value a name.
    """

    legacy_version: str | None = None
    headers: Mapping[str, str] | None = None


class DemoServer:
    """The demo server's protocol logic and tools, with its process-wide state (the request
    state key, the note store, the task store)."""

    def __init__(self, *, state_key: bytes | None = None, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.server_info: Mapping[str, str] = {"name": SERVER_NAME, "version": __version__}
        self.services = Services(StateSealer(key=state_key, clock=clock), NoteStore(clock=monotonic),
                                 TaskStore(clock=clock), self.server_info)
        self._validators = {tool.name: Draft202012Validator(tool.definition["inputSchema"]) for tool in TOOLS}

    # --- entry points ---------------------------------------------------------------------

    def handle_bytes(self, raw: bytes, connection: Connection | None = None) -> Reply:
        """Handle one raw frame (a stdio line, an HTTP body): parse it strictly, then handle it."""
        try:
            message = parse_request(raw)
        except (ValueError, RecursionError) as err:
            return error_reply(None, PARSE_ERROR, f"Parse error: {err}")
        return self.handle(message, connection)

    def handle(self, message: object, connection: Connection | None = None) -> Reply:
        """Handle one parsed message; returns what to send (nothing for a notification; for
        ``notifications/cancelled``, the id of the request to cancel)."""
        connection = connection if connection is not None else Connection()
        try:
            if connection.headers is not None:
                self._http_rules(message, connection)
            reply = self._handle(message, connection)
        except RequestError as err:
            return error_reply(readable_id(message), err.code, err.message, err.data)
        except Exception:
            log.exception("internal error while handling %.200r", message)
            return error_reply(readable_id(message), INTERNAL_ERROR, "Internal error")
        return replace(reply, request_id=readable_id(message)) if reply.delay > 0 else reply

    @staticmethod
    def _http_rules(message: object, connection: Connection) -> None:
        """A legacy ``MCP-Protocol-Version`` header on a request without the modern ``_meta``
        selects legacy semantics; a modern request (its ``_meta`` holding the required members)
        or notification whose routing headers fail Server Validation is -32020, 400
        (basic/transports/streamable-http; the rule, as strict as the proxy's, is
        ``frames._routing_headers``)."""
        # (loaded on the first HTTP request: the frames layer costs a stdio demo process ~25 ms
        # of start-up, ~190M instructions, which it never uses)
        from ..frames._routing_headers import FieldList, applies, mismatch

        given = connection.headers
        headers = given if isinstance(given, FieldList) else FieldList((given or {}).items())
        if not isinstance(message, dict):
            return
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        if PROTOCOL_VERSION_KEY not in meta and headers.get("mcp-protocol-version") in LEGACY_VERSIONS:
            connection.legacy_version = headers["mcp-protocol-version"]
        method = message.get("method")
        kind = "request" if "id" in message else "notification"
        if not isinstance(method, str) or (kind == "request" and not all(key in meta for key in REQUIRED_META)):
            return  # (a request missing its _meta fields: answered -32602 for that, below)
        params = params if isinstance(params, dict) else {}
        if applies(kind, params, headers):
            why = mismatch(kind, method, params, headers)
            if why is not None:
                raise RequestError(HEADER_MISMATCH, f"Header mismatch: {why}")

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The tools as ``tools/list`` lists them."""
        return [dict(tool.definition) for tool in TOOLS]

    # --- envelope, era and _meta ----------------------------------------------------------

    def _handle(self, message: object, connection: Connection) -> Reply:
        if not isinstance(message, dict):
            raise RequestError(INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        method = message.get("method")
        if "id" not in message and isinstance(method, str):
            log.debug("notification %s", method)
            if method == "notifications/cancelled":  # basic/patterns/cancellation: the edge stops it
                params = message.get("params")
                cancelled = readable_id({"id": params.get("requestId")}) if isinstance(params, dict) else None
                return Reply(cancel=cancelled) if cancelled is not None else NOTHING
            return NOTHING  # notifications/initialized
        request_id = readable_id(message)
        if request_id is None or message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            raise RequestError(INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 request with a string "
                                                "or integer id and a string method")
        params = message.get("params", {})
        if not isinstance(params, dict):
            raise RequestError(INVALID_PARAMS, "params must be an object")
        log.debug("request %r %s", request_id, method)
        if method == "initialize":
            return self._initialize(request_id, params, connection)
        meta = params.get("_meta")
        if not (isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta) and connection.legacy_version:
            return self._legacy(request_id, method, params)
        capabilities = self._modern_meta(meta)
        return self._modern(request_id, method, params, capabilities)

    @staticmethod
    def _modern_meta(meta: object) -> Mapping[str, Any]:
        """Check the per-request ``_meta`` fields; returns the declared client capabilities."""
        present = meta if isinstance(meta, dict) else {}
        missing = [key for key in REQUIRED_META if key not in present]
        if missing:
            raise RequestError(INVALID_PARAMS, "Missing required _meta field(s): " + ", ".join(missing),
                               {"missing": missing})
        version = present[PROTOCOL_VERSION_KEY]
        if not isinstance(version, str):
            raise RequestError(INVALID_PARAMS, f"_meta[{PROTOCOL_VERSION_KEY!r}] must be a string")
        capabilities = present[CLIENT_CAPABILITIES_KEY]
        if not isinstance(capabilities, dict):
            raise RequestError(INVALID_PARAMS, f"_meta[{CLIENT_CAPABILITIES_KEY!r}] must be an object")
        if version not in SUPPORTED_VERSIONS:
            raise RequestError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                               {"supported": list(SUPPORTED_VERSIONS), "requested": version})
        return capabilities

    # --- 2026-07-28 -----------------------------------------------------------------------

    def _modern(self, request_id: str | int, method: str, params: dict[str, Any],
                capabilities: Mapping[str, Any]) -> Reply:
        if method == "server/discover":
            return result_reply(request_id, {
                "resultType": "complete",
                "supportedVersions": list(SUPPORTED_VERSIONS),
                "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION: {}}},
                "_meta": self._meta(),
                "instructions": INSTRUCTIONS,
                "ttlMs": LIST_TTL_MS,
                "cacheScope": "public",
            })
        if method == "tools/list":
            if "cursor" in params:
                raise RequestError(INVALID_PARAMS, "Invalid cursor: the tool list has a single page")
            return result_reply(request_id, {"resultType": "complete", "tools": self.tool_definitions(),
                                             "ttlMs": LIST_TTL_MS, "cacheScope": "public", "_meta": self._meta()})
        if method == "tools/call":
            return self._call_tool(request_id, params, capabilities, modern=True)
        if method in ("tasks/get", "tasks/cancel", "tasks/update"):
            return self._task_method(request_id, method, params)
        raise RequestError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _task_method(self, request_id: str | int, method: str, params: Mapping[str, Any]) -> Reply:
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise RequestError(INVALID_PARAMS, "params.taskId must be a string")
        tasks = self.services.tasks
        try:
            if method == "tasks/get":
                return result_reply(request_id, {"resultType": "complete", **tasks.get(task_id),
                                                 "_meta": self._meta()})
            if method == "tasks/cancel":
                tasks.cancel(task_id)
            else:
                if not isinstance(params.get("inputResponses"), dict):
                    raise RequestError(INVALID_PARAMS, "params.inputResponses must be an object")
                tasks.touch(task_id)
        except UnknownTask:
            raise RequestError(INVALID_PARAMS, f"Unknown task: {task_id}") from None
        return result_reply(request_id, {"resultType": "complete", "_meta": self._meta()})

    def _meta(self) -> dict[str, Any]:
        return {SERVER_INFO_KEY: dict(self.server_info)}

    # --- tools/call (both eras) -----------------------------------------------------------

    def _call_tool(self, request_id: str | int, params: Mapping[str, Any], capabilities: Mapping[str, Any], *,
                   modern: bool) -> Reply:
        name = params.get("name")
        if not isinstance(name, str):
            raise RequestError(INVALID_PARAMS, "params.name must be a string")
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            raise RequestError(INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments", {})
        if not isinstance(arguments, dict):
            raise RequestError(INVALID_PARAMS, f"Invalid arguments for tool {name}: arguments must be an object")
        problem = best_match(self._validators[name].iter_errors(arguments))
        if problem is not None:
            where = "/".join(str(part) for part in problem.absolute_path)
            raise RequestError(INVALID_PARAMS, f"Invalid arguments for tool {name}: "
                                               f"{problem.message}" + (f" (at {where})" if where else ""))
        responses = params.get("inputResponses") if modern else None
        if responses is not None and not isinstance(responses, dict):
            raise RequestError(INVALID_PARAMS, "params.inputResponses must be an object")
        state = params.get("requestState") if modern else None
        if state is not None and not isinstance(state, str):
            raise RequestError(INVALID_PARAMS, "params.requestState must be a string")
        call = Call(request_id, name, arguments, modern, capabilities, responses, state, self.services)
        return tool.handler(call)

    # --- legacy (initialize) --------------------------------------------------------------

    def _initialize(self, request_id: str | int, params: Mapping[str, Any], connection: Connection) -> Reply:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RequestError(INVALID_PARAMS, "params.protocolVersion must be a string")
        chosen = requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
        connection.legacy_version = chosen
        return result_reply(request_id, {"protocolVersion": chosen, "capabilities": {"tools": {}},
                                         "serverInfo": dict(self.server_info), "instructions": INSTRUCTIONS})

    def _legacy(self, request_id: str | int, method: str, params: Mapping[str, Any]) -> Reply:
        if method == "ping":
            return result_reply(request_id, {})
        if method == "tools/list":
            return result_reply(request_id, {"tools": self.tool_definitions()})
        if method == "tools/call":
            return self._call_tool(request_id, params, {}, modern=False)
        raise RequestError(METHOD_NOT_FOUND, f"Method not found: {method}")

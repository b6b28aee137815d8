"""What the proxy records: the frame log (format v1, ``frames``) and the verdict lines.

- **Frame log** (``--log FILE``): every frame as the host saw it, each refused frame as a
  ``refused`` record with the reason, the connection's life (``open``, ``eof``, ``close``,
  ``error``). Payloads are redacted by default — each payload is its SHA-256 digest and size
  (``redacted``) — since arguments and results may hold anything; ``--log-payloads`` keeps the
  exact bytes. No HTTP header beyond the format's named fields is ever recorded
  (``Authorization``, cookies and ``Mcp-Param-*`` never are).
- **Verdict lines** (``--verdicts FILE``): one JSON object per judged round — ``t``, ``conn``,
  ``call``, ``round``, ``method``, ``id``, ``tool``, ``task``, ``version``, ``kind``,
  ``findings`` (code, path, severity: never the messages, which may quote the payload; with
  payloads redacted, a path names no member a peer chose, :func:`redacted_path`),
  ``decision`` (``decide``'s action), ``forwarded``
  (``unchanged`` or ``refused``), ``latency_ms`` (request in to answer out), ``sha256`` and
  ``size`` of the answer's bytes.

Both files rotate by size (``--log-max-bytes``, ``--log-backups``): ``NAME.1``, ``NAME.2``...

A file that can no longer be written (a full disk, a rotation that fails, a read-only file
system) stops that file's records, said once on stderr; the proxy carries on relaying (a
recorder never costs the host a call). Once closed, the recorder writes nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..frames import FrameLogWriter, FrameRecord, RotatingLines
from ..frames._log import encode, redact
from ..verdict._classify import DEFAULT_LIMITS
from ..verdict._findings import ELIDED


class Recorder:
    """The frame log and the verdict lines of one proxy (either may be absent)."""

    def __init__(self, frames: str | os.PathLike[str] | None = None, verdicts: str | os.PathLike[str] | None = None,
                 *, payloads: bool = False, max_bytes: int = 64 * 1024 * 1024, backups: int = 3,
                 flush_each: bool = True) -> None:
        self.payloads = payloads
        self._frames = FrameLogWriter(frames, max_bytes=max_bytes, backups=backups, payloads=payloads,
                                      flush_each=flush_each) if frames is not None else None
        self._verdicts = RotatingLines(verdicts, max_bytes=max_bytes, backups=backups,
                                       flush_each=flush_each) if verdicts is not None else None
        self.wants_verdicts = self._verdicts is not None
        """Verdict lines are written (a plain attribute, read per answer: no property's call)."""
        self.redacts = self._frames is not None and not payloads
        """The frame log writes each payload's digest and size: the relay may give a record with
        ``redacted`` set (written as it is), its digest made once for the record and the answer's
        verdict line (``Relay._sha256``)."""

    def frame(self, record: FrameRecord) -> None:
        writer = self._frames
        if writer is not None:
            try:  # (FrameLogWriter.write's steps, in one call)
                writer.write_line(encode(redact(record) if record.data is not None and not self.payloads
                                         else record))
            except (OSError, ValueError) as exc:
                self._frames = None
                self.redacts = False
                _stopped("frame log", writer, exc)

    def verdict(self, line: Mapping[str, Any]) -> None:
        writer = self._verdicts
        if writer is not None:
            record = {"t": time.time(), **line}
            findings = record.get("findings")
            if findings and not self.payloads:
                record["findings"] = [{**f, "path": redacted_path(f["path"])} if isinstance(f.get("path"), str) else f
                                      for f in findings]
            try:
                try:
                    data = orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE, default=str)
                except TypeError:  # an id orjson cannot write (an int past 64 bits, a lone surrogate)
                    data = json.dumps(record, separators=(",", ":"), default=str).encode() + b"\n"
                writer.write_line(data)
            except (OSError, ValueError) as exc:
                self._verdicts = None
                self.wants_verdicts = False
                _stopped("verdict lines", writer, exc)

    def close(self) -> None:
        """Close both files; later records are dropped (a transport's last callbacks may still
        note something as the loop winds down)."""
        writers, self._frames, self._verdicts = (self._frames, self._verdicts), None, None
        self.wants_verdicts = self.redacts = False
        for writer in writers:
            if writer is not None:
                try:
                    writer.close()
                except OSError as exc:  # the last flush
                    _stopped("frame log" if isinstance(writer, FrameLogWriter) else "verdict lines", writer, exc)


_OPEN: Final = frozenset({"structuredContent", "arguments", "_meta", "data"})
"""Members whose every member below is a peer's to name: a tool's output, a call's arguments,
``_meta``, an error's ``data`` (a content block's ``data`` holds a string: nothing below)."""
_KEYED: Final = frozenset({"inputRequests", "inputResponses", "properties"})
"""Members whose own members a peer names (an input request's key, a requested field's name),
each holding MCP's own members again."""
_OWN: Final = frozenset({
    "$schema", "action", "additionalProperties", "annotations", "anyOf", "argument", "audience", "blob",
    "cacheScope", "call", "cancel", "capabilities", "clientInfo", "code", "completion", "completions", "const",
    "content", "contents", "context", "costPriority", "create", "createMessage", "createdAt", "cursor", "default",
    "dependencies", "description", "destructiveHint", "elicitation", "elicitationId", "elicitations", "enum",
    "enumNames", "error", "execution", "experimental", "extensions", "form", "format", "hasMore", "hints", "icons",
    "id", "idempotentHint", "includeContext", "input", "inputSchema", "instructions", "intelligencePriority",
    "isError", "items", "jsonrpc", "lastModified", "lastUpdatedAt", "level", "list", "listChanged", "logger",
    "logging", "maxItems", "maxLength", "maxTokens", "maximum", "message", "messages", "metadata", "method",
    "mimeType", "minItems", "minLength", "minimum", "mode", "model", "modelPreferences", "name", "nextCursor",
    "notifications",
    "oneOf", "openWorldHint", "outputSchema", "params", "pattern", "patternProperties", "pollInterval",
    "pollIntervalMs", "priority", "progress", "progressToken", "prompts", "promptsListChanged", "protocolVersion",
    "readOnlyHint", "reason", "ref", "requestId", "requestState", "requested", "requestedSchema", "requests",
    "required", "requiredCapabilities", "resource", "resourceSubscriptions", "resourceTemplates", "resources",
    "resourcesListChanged", "result", "resultType", "role", "roots", "sampling", "serverInfo", "size", "sizes",
    "speedPriority", "src", "status", "statusMessage", "stopReason", "stopSequences", "subscribe", "supported",
    "supportedVersions", "systemPrompt", "task", "taskId", "taskSupport", "tasks", "temperature", "text", "theme",
    "title", "toolChoice", "toolUseId", "tools", "toolsListChanged", "total", "ttl", "ttlMs", "type", "uri",
    "uriTemplate", "url", "value", "values", "version", "websiteUrl",
}) | _OPEN | _KEYED
"""MCP's own member names, which a path keeps where no peer names the members: every member of
the messages of schema.json 2024-11-05 to 2026-07-28, the ext-tasks handle's, and the JSON
Schema keywords the checks name. Any other name in a path is one a peer chose (an unknown
member's: a duplicate key, a value past a bound, anywhere in the message)."""
_INDEX_DIGITS: Final = len(str(DEFAULT_LIMITS.max_nodes - 1))
"""The most digits of an array index a verdict's path can hold (no array holds more elements
than the nodes a verdict reads)."""


def _index(part: str) -> bool:
    """Whether a path's member is an array index (digits, no leading zero, within
    :data:`_INDEX_DIGITS`); any other, a member name, digits or not."""
    return part.isascii() and part.isdigit() and len(part) <= _INDEX_DIGITS and (part == "0" or part[0] != "0")


def redacted_path(path: str) -> str:
    """A finding's JSON Pointer with every member name a peer chose as ``*``: below a member whose
    members are all a peer's (a key of the tool's output, of an argument, of ``_meta`` or an
    error's ``data``), the member after one a peer keys (an input request's key, a requested
    field's name), and anywhere any name that is not MCP's own (:data:`_OWN`: an unknown
    member's, as a duplicate key's path names it); array indices and MCP's own member names are
    kept; past the ``~…[K tokens]`` of a path too long to hold whole (``Finding``), every name
    is ``*``. With payloads redacted, a verdict line says where a finding is, not what the payload
    holds (a duplicate key's path named the key: ``/result/structuredContent/sk-live-...``)."""
    parts = path.split("/")
    for at in range(1, len(parts)):
        part = parts[at]
        if part in _OPEN or part.startswith(ELIDED):  # past tokens a long path left out, nothing says whose they are
            parts[at + 1:] = [p if _index(p) else "*" for p in parts[at + 1:]]
            break
        if part in _KEYED and at + 1 < len(parts):
            parts[at + 1] = "*"
        elif part != "*" and part not in _OWN and not _index(part):
            parts[at] = "*"
    return "/".join(parts)


def _stopped(what: str, writer: RotatingLines, exc: BaseException) -> None:
    """One line on stderr: which file failed, why, and that its records stopped."""
    with contextlib.suppress(OSError, ValueError):
        writer.close()
    cause = exc.__cause__ if isinstance(exc, ValueError) and exc.__cause__ is not None else exc
    print(f"mcp-verdict proxy: the {what} {writer.path} could not be written ({type(cause).__name__}: {cause}); "
          f"no more {what} records are written, the proxy carries on", file=sys.stderr, flush=True)

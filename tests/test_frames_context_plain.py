"""frames.Tracker: what is in force for a session's requests that carry no ``_meta`` (the
``initialize`` exchange's version and capabilities, 2025 sessions) — the same context object
while the session's facts stay the same objects, a new one as soon as one changes, and a
task-augmented call's tasks extension (2025-11-25) whatever came before. Fixed frames in,
fixed contexts out."""

from __future__ import annotations

import json

import pytest

from mcp_verdict.frames import Tracker
from mcp_verdict.verdict._versions import TASKS_EXTENSION


def frame(message: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def initialize(request_id: int, capabilities: dict[str, object]) -> bytes:
    return frame({"id": request_id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "c", "version": "1"}}})


def initialized(request_id: int, version: str, extensions: dict[str, object] | None = None) -> bytes:
    capabilities: dict[str, object] = {"tools": {}}
    if extensions is not None:
        capabilities["extensions"] = extensions
    return frame({"id": request_id, "result": {"protocolVersion": version, "capabilities": capabilities,
                                                "serverInfo": {"name": "s", "version": "1"}}})


def call(request_id: int, **params: object) -> bytes:
    return frame({"id": request_id, "method": "tools/call", "params": {"name": "t", "arguments": {}, **params}})


STATELESS_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}
EXT = "io.example/ext"


@pytest.mark.parametrize(("frames", "expected"), [
    # (c2s or s2c, frame) in order; expected: per tools/call, (version, source, capabilities, extensions)
    ([("c2s", initialize(0, {"sampling": {}})), ("s2c", initialized(0, "2025-06-18")),
      ("c2s", call(1)), ("c2s", call(2)), ("c2s", call(3))],
     [("2025-06-18", "initialize", {"sampling": {}}, ())] * 3),
    # a stateless request between two: its own context, then the session's again
    ([("c2s", initialize(0, {})), ("s2c", initialized(0, "2025-06-18")),
      ("c2s", call(1)), ("c2s", call(2, _meta=STATELESS_META)), ("c2s", call(3))],
     [("2025-06-18", "initialize", {}, ()), ("2026-07-28", "request_meta", {"sampling": {}}, ()),
      ("2025-06-18", "initialize", {}, ())]),
    # the session initialised again, other version and capabilities: the next request reads them
    ([("c2s", initialize(0, {})), ("s2c", initialized(0, "2025-06-18")), ("c2s", call(1)),
      ("c2s", initialize(9, {"roots": {}})), ("s2c", initialized(9, "2025-11-25")), ("c2s", call(2))],
     [("2025-06-18", "initialize", {}, ()), ("2025-11-25", "initialize", {"roots": {}}, ())]),
    # the server's extensions learnt after a first request: the next one has them in force
    ([("c2s", initialize(0, {"extensions": {EXT: {}}})), ("c2s", call(1)),
      ("s2c", initialized(0, "2025-11-25", {EXT: {}})), ("c2s", call(2))],
     [("2025-11-25", "default", {"extensions": {EXT: {}}}, (EXT,)),
      ("2025-11-25", "initialize", {"extensions": {EXT: {}}}, (EXT,))]),
    # 2025-11-25: a task-augmented call has the tasks extension in force, the plain ones before
    # and after it do not
    ([("c2s", initialize(0, {})), ("s2c", initialized(0, "2025-11-25")),
      ("c2s", call(1)), ("c2s", call(2, task={"ttl": 1000})), ("c2s", call(3))],
     [("2025-11-25", "initialize", {}, ()), ("2025-11-25", "initialize", {}, (TASKS_EXTENSION,)),
      ("2025-11-25", "initialize", {}, ())]),
])
def test_a_sessions_requests_without_meta_get_what_initialize_put_in_force(
        frames: list[tuple[str, bytes]], expected: list[tuple[str, str, object, tuple[str, ...]]]) -> None:
    tracker = Tracker(default_version="2025-11-25")
    got = []
    for seq, (direction, data) in enumerate(frames):
        tracker.feed("c", direction, data, at=0.0, seq=seq)  # type: ignore[arg-type]
        opened = tracker.opened("c")
        if opened is not None and opened.method == "tools/call":
            context = opened.context
            got.append((context.version, context.source, context.client_capabilities, context.extensions))
    assert got == expected


def test_requests_without_meta_share_one_context_while_the_session_stays_the_same() -> None:
    # (classify's options are kept per context object: one check per session, not per call)
    tracker = Tracker()
    tracker.feed("c", "c2s", initialize(0, {"sampling": {}}), at=0.0, seq=0)
    tracker.feed("c", "s2c", initialized(0, "2025-06-18"), at=0.0, seq=1)
    contexts = []
    for n in range(1, 4):
        tracker.feed("c", "c2s", call(n), at=0.0, seq=2 * n)
        opened = tracker.opened("c")
        assert opened is not None
        contexts.append(opened.context)
        tracker.feed("c", "s2c", frame({"id": n, "result": {"content": []}}), at=0.0, seq=2 * n + 1)
    assert contexts[0] is contexts[1] is contexts[2]

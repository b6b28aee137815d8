"""The client's pure parts: which frame answers which request, input handlers (SSE: test_frames)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from mcp_verdict import ElicitationRequest, RootsRequest, SamplingRequest
from mcp_verdict.client import ElicitAnswer, HandlerError, Handlers
from mcp_verdict.client._wire import WireLog, requests, response_to

# --- correlation ----------------------------------------------------------------------------------

def _log(*frames: tuple[str, bytes]) -> WireLog:
    log = WireLog()
    for direction, data in frames:
        log.add(direction, "message", data)  # type: ignore[arg-type]
    return log


def test_the_answer_skips_notifications_server_requests_and_other_answers() -> None:
    log = _log(
        ("out", b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}'),
        ("in", b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'),
        ("in", b'{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{}}'),
        ("out", b'{"jsonrpc":"2.0","id":6,"method":"tools/list"}'),
        ("in", b'{"jsonrpc":"2.0","id":6,"result":{"tools":[]}}'),
        ("in", b'{"jsonrpc":"2.0","id":"5","result":{}}'),
    )
    call = next(r for r in requests(log.frames) if r.method == "tools/call")
    answer = response_to(log.frames, call)
    assert answer is not None and answer.data == b'{"jsonrpc":"2.0","id":"5","result":{}}'  # classify judges the id


def test_an_unparseable_frame_is_the_answer() -> None:
    log = _log(("out", b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}'), ("in", b"\xff garbage"),
               ("in", b'{"jsonrpc":"2.0","id":1,"result":{}}'))
    call = next(requests(log.frames))
    answer = response_to(log.frames, call)
    assert answer is not None and answer.data == b"\xff garbage"


def test_wire_log_is_bounded() -> None:
    log = WireLog(max_frames=10)
    for n in range(25):
        log.add("in", "message", str(n).encode())
    assert len(log.frames) == 10 and log.frames[0].data == b"15" and log.mark() == 25


# --- handlers -------------------------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]}


def form_request() -> ElicitationRequest:
    return ElicitationRequest("k", "form", "How old?", SCHEMA, None, {})


def run(coro: Any) -> Any:
    return anyio.run(lambda: coro)


@pytest.mark.parametrize(("handlers", "caps"), [
    (Handlers(), {}),
    (Handlers(form=lambda r, p: None), {"elicitation": {"form": {}}}),  # type: ignore[arg-type,return-value]
    (Handlers(url=lambda r: None), {"elicitation": {"url": {}}}),  # type: ignore[arg-type,return-value]
    (Handlers(sampling=lambda r: None, sampling_tools=True), {"sampling": {"tools": {}}}),  # type: ignore[arg-type,return-value]
    (Handlers(roots=lambda: None), {"roots": {}}),  # type: ignore[arg-type,return-value]
])
def test_capabilities_are_exactly_the_handlers(handlers: Handlers, caps: dict[str, Any]) -> None:
    assert handlers.capabilities() == caps
    assert handlers.capabilities(tasks=True)["extensions"] == {"io.modelcontextprotocol/tasks": {}}


def test_form_answers_are_validated_and_asked_again() -> None:
    answers = iter([ElicitAnswer.accept({"age": "old"}), ElicitAnswer.accept({"age": 41})])
    seen: list[Sequence[str]] = []

    async def form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        seen.append(problems)
        return next(answers)

    response = run(Handlers(form=form).answer(form_request()))
    assert response == {"action": "accept", "content": {"age": 41}}
    assert seen[0] == () and "age" in seen[1][0]


def test_invalid_answers_end_in_cancel_and_declines_are_sent_as_such() -> None:
    async def stubborn(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        return ElicitAnswer.accept({"age": -1})

    async def decline(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
        return ElicitAnswer.decline()

    assert run(Handlers(form=stubborn).answer(form_request())) == {"action": "cancel"}
    assert run(Handlers(form=decline).answer(form_request())) == {"action": "decline"}


def test_url_mode_needs_consent_and_never_opens_anything() -> None:
    request = ElicitationRequest("k", "url", "Sign in", None, "https://auth.example.com/x", {})

    async def yes(request: ElicitationRequest) -> bool:
        return True

    async def no(request: ElicitationRequest) -> bool:
        return False

    assert run(Handlers(url=yes).answer(request)) == {"action": "accept"}
    assert run(Handlers(url=no).answer(request)) == {"action": "decline"}
    with pytest.raises(HandlerError, match="URL consent"):
        run(Handlers().answer(request))


def test_sampling_and_roots_and_a_raising_handler() -> None:
    async def sample(request: SamplingRequest) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}

    async def roots() -> list[dict[str, Any]]:
        return [{"uri": "file:///w", "name": "w"}]

    async def broken(request: SamplingRequest) -> dict[str, Any]:
        raise RuntimeError("no model")

    handlers = Handlers(sampling=sample, roots=roots)
    assert run(handlers.answer(SamplingRequest("s", (), 5, {})))["model"] == "m"
    assert run(handlers.answer(RootsRequest("r", {}))) == {"roots": [{"uri": "file:///w", "name": "w"}]}
    with pytest.raises(HandlerError, match="raised RuntimeError: no model"):
        run(Handlers(sampling=broken).answer(SamplingRequest("s", (), 5, {})))

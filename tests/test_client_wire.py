"""The client's pure parts: which frame answers which request, input handlers (SSE: test_frames)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from mcp_verdict import ElicitationRequest, RootsRequest, SamplingRequest
from mcp_verdict.client import ElicitAnswer, HandlerError, Handlers
from mcp_verdict.client._wire import WireLog, bytes_field, exchange_of, requests

# --- correlation: which frame answers a request -----------------------------------------------

CALL = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}'
LIST = b'{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
ANSWER = b'{"jsonrpc":"2.0","id":5,"result":{"content":[]}}'
PROGRESS = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'
ELICIT = b'{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{}}'
LISTED = b'{"jsonrpc":"2.0","id":6,"result":{"tools":[]}}'
DEBUG = b"debug: connecting to the database"
LOG_JSON = b'{"level":"info","msg":"ready"}'

# (name, frames after the request, the answer expected, the noise expected) - stdio, by hand
STDIO_CASES: list[tuple[str, list[tuple[str, bytes]], bytes | None, list[bytes]]] = [
    ("the matching answer", [("in", ANSWER)], ANSWER, []),
    ("notifications, server requests and another request's answer are skipped",
     [("in", PROGRESS), ("in", ELICIT), ("out", LIST), ("in", LISTED), ("in", ANSWER)], ANSWER, []),
    ("a debug line before the answer is noise", [("in", DEBUG), ("in", ANSWER)], ANSWER, [DEBUG]),
    ("JSON that is no JSON-RPC message is noise", [("in", LOG_JSON), ("in", ANSWER)], ANSWER, [LOG_JSON]),
    ("noise and no answer", [("in", DEBUG)], None, [DEBUG]),
    ("an unreadable frame with our id is the (malformed) answer",
     [("in", b'{"jsonrpc":"2.0","id":5,"result":{"x":NaN}}'), ("in", ANSWER)],
     b'{"jsonrpc":"2.0","id":5,"result":{"x":NaN}}', []),
    ("a truncated frame without a readable id is noise; the answer after it counts",
     [("in", b'{"jsonrpc":"2.0","res'), ("in", ANSWER)], ANSWER, [b'{"jsonrpc":"2.0","res']),
    ("bad UTF-8 with our id is the answer", [("in", b'{"jsonrpc":"2.0","id":5,"result":"caf\xe9"}')],
     b'{"jsonrpc":"2.0","id":5,"result":"caf\xe9"}', []),
    ("an answer under an altered id is taken: classify reports the id",
     [("in", b'{"jsonrpc":"2.0","id":"5","result":{}}')], b'{"jsonrpc":"2.0","id":"5","result":{}}', []),
    ("the exact id wins over an altered one",
     [("in", b'{"jsonrpc":"2.0","id":"5","result":{}}'), ("in", ANSWER)], ANSWER, []),
    ("an error without an id is the answer (the server could not read ours)",
     [("in", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}')],
     b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', []),
    ("the answer to another request of ours is never ours", [("out", LIST), ("in", LISTED)], None, []),
]


def _log(*frames: tuple[str, bytes], exchange: int | None = None) -> WireLog:
    log = WireLog()
    for direction, data in frames:
        log.add(direction, "message", data, exchange=exchange)  # type: ignore[arg-type]
    return log


@pytest.mark.parametrize(("name", "after", "answer", "noise"), STDIO_CASES, ids=[c[0] for c in STDIO_CASES])
def test_stdio_correlation(name: str, after: list[tuple[str, bytes]], answer: bytes | None,
                           noise: list[bytes]) -> None:
    log = _log(("out", CALL), *after)
    call = next(r for r in requests(log.frames) if r.method == "tools/call")
    seen = exchange_of(log.frames, call)
    assert (seen.answer.data if seen.answer else None) == answer
    assert [f.data for f in seen.noise] == noise
    assert LIST not in [f.data for f in seen.frames] and LISTED not in [f.data for f in seen.frames]


def test_on_http_the_body_of_our_post_is_the_answer_however_malformed() -> None:
    log = WireLog()
    log.add("out", "message", CALL, exchange=1)
    log.add("in", "message", b"<html>oops</html>", exchange=1, status=200)
    call = next(requests(log.frames))
    seen = exchange_of(log.frames, call)
    assert seen.answer is not None and seen.answer.data == b"<html>oops</html>" and seen.noise == ()


def test_on_http_other_exchanges_do_not_answer_but_our_id_does_wherever_it_comes() -> None:
    log = WireLog()
    log.add("out", "message", CALL, exchange=1)
    log.add("in", "message", b'{"jsonrpc":"2.0","id":9,"result":{}}', exchange=2, status=200)
    log.add("in", "message", ANSWER, exchange=3, status=200)  # a resumed GET stream
    seen = exchange_of(log.frames, next(requests(log.frames)))
    assert seen.answer is not None and seen.answer.data == ANSWER


def test_frames_are_shown_without_loss() -> None:
    log = WireLog()
    text = log.add("in", "message", b'{"a":"\xc3\xa9"}')
    binary = log.add("in", "message", b"caf\xe9")
    assert text.to_dict()["data"] == '{"a":"é"}'
    assert binary.to_dict()["data_base64"] == "Y2Fm6Q=="
    assert bytes_field("response", None) == {"response": None}


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


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text")


# (what the application's handler raises, the HandlerError's message) - by hand: the exception is
# named whatever its message; a message is cut to 300 characters (an exception whose str raises
# came out as that ValueError; a 10,000-character message was carried whole).
HANDLER_FAILURES: list[tuple[Exception, str]] = [
    (RuntimeError("no model"), "the sampling/createMessage handler raised RuntimeError: no model"),
    (_Unprintable(), "the sampling/createMessage handler raised _Unprintable (its message could not be read)"),
    (RuntimeError("x" * 10_000), "the sampling/createMessage handler raised RuntimeError: " + "x" * 297 + "..."),
]


@pytest.mark.parametrize(("raised", "message"), HANDLER_FAILURES, ids=["plain", "unprintable", "long"])
def test_a_failing_handler_is_a_handler_error_naming_it(raised: Exception, message: str) -> None:
    async def broken(request: SamplingRequest) -> dict[str, Any]:
        raise raised

    with pytest.raises(HandlerError) as caught:
        run(Handlers(sampling=broken).answer(SamplingRequest("s", (), 5, {})))
    assert str(caught.value) == message

"""VerdictClient refuses a tool call's name or arguments that no tool call can carry, before
anything is sent: an ``OptionError`` naming where the value sits (frames/_sendable.py).

Before, the SDK's serializer wrote NaN as ``null``, a ``Decimal`` as a string and a set as an
array without a word (the server acted on values the caller never gave), and refused an object
or non-UTF-8 bytes with its own ``PydanticSerializationError`` or a ``UnicodeDecodeError``.
Against the embedded demo server over stdio (its ``create_note`` takes ``text``; RFC 8259:
JSON has no NaN, no bytes, and object member names are strings)."""

from __future__ import annotations

import decimal
import enum
import math
from types import MappingProxyType
from typing import Any

import anyio
import pytest

from mcp_verdict import ElicitationRequest, Observe, OptionError, RootsRequest, SamplingRequest, VerdictClient
from mcp_verdict.client import ElicitAnswer, HandlerError, Handlers
from mcp_verdict.demo import stdio_command

from .hostile import nested_list


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque>"


class Unreadable(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("no items today")


class Colour(enum.StrEnum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


def holds_itself() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["again"] = loop
    return loop


# (name, arguments, the OptionError's option, its message), written by hand
REFUSED: list[tuple[object, object, str, str]] = [
    ("create_note", {"text": math.nan}, "arguments['text']",
     "arguments['text'] must be a finite number (JSON has no NaN or infinity), not nan"),
    ("create_note", {"text": "a", "more": [1, {"x": -math.inf}]}, "arguments['more'][1]['x']",
     "arguments['more'][1]['x'] must be a finite number (JSON has no NaN or infinity), not -inf"),
    ("create_note", {"text": decimal.Decimal("1.5")}, "arguments['text']",
     "arguments['text'] must be a JSON value: None, a bool, an int, a finite float, a string, a list or tuple, "
     "or a mapping with string keys, not Decimal('1.5')"),
    ("create_note", {"text": {1, 2}}, "arguments['text']",
     "arguments['text'] must be a JSON value: None, a bool, an int, a finite float, a string, a list or tuple, "
     "or a mapping with string keys, not {1, 2}"),
    ("create_note", {"text": Opaque()}, "arguments['text']",
     "arguments['text'] must be a JSON value: None, a bool, an int, a finite float, a string, a list or tuple, "
     "or a mapping with string keys, not <Opaque>"),
    ("create_note", {"text": b"\xff"}, "arguments['text']",
     "arguments['text'] must be a JSON value: None, a bool, an int, a finite float, a string, a list or tuple, "
     "or a mapping with string keys (JSON has no bytes: decode them, or encode them as base64 text), not b'\\xff'"),
    ("create_note", {"text": "ok\udc80"}, "arguments['text']",
     "arguments['text'] must be a string UTF-8 can carry (this one holds a lone surrogate), not 'ok\\udc80'"),
    ("create_note", {"text": "a", 7: "b"}, "arguments",
     "arguments must have string keys (JSON has no other), not 7"),
    ("create_note", {"text": {"a": 1, None: 2}}, "arguments['text']",
     "arguments['text'] must have string keys (JSON has no other), not None"),
    ("create_note", ["text"], "arguments",
     "arguments must be the tool's arguments (a mapping with string keys) or None, not ['text']"),
    ("create_note", "text=a", "arguments",
     "arguments must be the tool's arguments (a mapping with string keys) or None, not 'text=a'"),
    ("create_note", Unreadable(text="a"), "arguments",
     "arguments must be a mapping or list; reading {'text': 'a'} raised RuntimeError: no items today"),
    ("create_note", holds_itself(), "arguments['again']['again']['again']...(195 more)...['again']['again']",
     "arguments['again']['again']['again']...(195 more)...['again']['again'] is nested more than 200 deep "
     "(or holds itself): the SDK cannot write it"),
    ("create_note", {"text": nested_list(201)}, "arguments['text'][0][0]...(195 more)...[0][0]",
     "arguments['text'][0][0]...(195 more)...[0][0] is nested more than 200 deep (or holds itself): "
     "the SDK cannot write it"),
    (None, {"text": "a"}, "name", "name must be a tool's name (a non-empty string), not None"),
    ("", {"text": "a"}, "name", "name must be a tool's name (a non-empty string), not ''"),
    (b"create_note", {"text": "a"}, "name", "name must be a tool's name (a non-empty string), not b'create_note'"),
    ("create_note\udcff", {"text": "a"}, "name",
     "name must be a string UTF-8 can carry (this one holds a lone surrogate), not 'create_note\\udcff'"),
]

# (arguments, what the request carries as the tool's arguments: its exact bytes)
CARRIED: list[tuple[object, bytes]] = [
    ({"text": Colour.RED}, b'"arguments":{"text":"red"}'),
    ({"text": "n", "size": Size.BIG, "tags": ("a", "b")}, b'"arguments":{"text":"n","size":3,"tags":["a","b"]}'),
    (MappingProxyType({"text": "é", "n": 10**30, "ok": True, "none": None}),
     '"arguments":{"text":"é","n":1000000000000000000000000000000,"ok":true,"none":null}'.encode()),
    ({"text": "deep", "x": nested_list(190)}, b'"x":' + b"[" * 191),
]


def with_client(body: Any) -> Any:
    """``body(client)`` with a client of the demo server over stdio."""
    async def run() -> Any:
        async with VerdictClient.stdio(stdio_command()) as client:
            return await body(client)

    return anyio.run(run)


def test_a_value_no_tool_call_carries_is_refused_before_anything_is_sent() -> None:
    async def body(client: VerdictClient) -> list[tuple[str, str]]:
        seen = []
        for name, arguments, _, _ in REFUSED:
            for call in (client.call_tool, client.call_verdict):
                try:
                    await call(name, arguments)  # type: ignore[arg-type]
                except OptionError as exc:
                    seen.append((exc.option, str(exc)))
                else:
                    seen.append(("sent", ""))
        assert client.history == []  # no call made, no request written
        return seen

    assert with_client(body) == [(option, message) for _, _, option, message in REFUSED for _ in range(2)]


def test_every_json_value_is_carried_as_given() -> None:
    async def body(client: VerdictClient) -> list[bool]:
        seen = []
        for arguments, carried in CARRIED:  # (the server may refuse the extra members: what was sent counts)
            await client.call_tool("create_note", arguments)  # type: ignore[arg-type]
            request = client.history[-1].rounds[-1].request
            seen.append(request is not None and carried in request)
        return seen

    assert with_client(body) == [True] * len(CARRIED)


def test_an_observed_read_tools_arguments_are_checked_before_the_call() -> None:
    observe = Observe.tool_call("get_note", {"id": math.nan}, until=lambda verdict: True)

    async def body(client: VerdictClient) -> tuple[str, int]:
        try:
            await client.call_tool("create_note", {"text": "x"}, observe=observe)
        except OptionError as exc:
            return str(exc), len(client.history)
        return "", len(client.history)

    assert with_client(body) == ("Observe.tool_call.arguments['id'] must be a finite number (JSON has no NaN or "
                                 "infinity), not nan", 0)  # the write was not made either


# --- what the application's handlers answer is sent as JSON too ------------------------------------

FORM = ElicitationRequest("k", "form", "How much?", {"type": "object", "properties": {"n": {"type": "number"}}},
                          None, {})

# (the sampling or roots handler's answer, the HandlerError's message), written by hand
HANDLER_ANSWERS: list[tuple[str, object, str]] = [
    ("sampling", {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m",
                  "metadata": {"cost": decimal.Decimal("0.1")}},
     "the sampling handler's answer['metadata']['cost'] must be a JSON value: None, a bool, an int, a finite "
     "float, a string, a list or tuple, or a mapping with string keys, not Decimal('0.1') (it cannot be sent as "
     "JSON)"),
    ("sampling", {"role": "assistant", "content": {"type": "text", "text": math.nan}, "model": "m"},
     "the sampling handler's answer['content']['text'] must be a finite number (JSON has no NaN or infinity), "
     "not nan (it cannot be sent as JSON)"),
    ("roots", [{"uri": b"file:///w"}],
     "the roots handler's answer['roots'][0]['uri'] must be a JSON value: None, a bool, an int, a finite float, "
     "a string, a list or tuple, or a mapping with string keys (JSON has no bytes: decode them, or encode them "
     "as base64 text), not b'file:///w' (it cannot be sent as JSON)"),
]


@pytest.mark.parametrize(("kind", "answer", "message"), HANDLER_ANSWERS)
def test_a_handler_answer_no_json_holds_is_a_handler_error(kind: str, answer: Any, message: str) -> None:
    async def sampling(request: SamplingRequest) -> Any:
        return answer

    async def roots() -> Any:
        return answer

    handlers = Handlers(sampling=sampling) if kind == "sampling" else Handlers(roots=roots)
    request = SamplingRequest("s", (), 5, {}) if kind == "sampling" else RootsRequest("r", {})
    with pytest.raises(HandlerError) as raised:
        anyio.run(handlers.answer, request)
    assert str(raised.value) == message


def test_a_form_answer_no_json_holds_goes_back_to_the_form_handler() -> None:
    answers = iter([ElicitAnswer.accept({"n": math.inf}), ElicitAnswer.accept({"n": 2.5})])
    seen: list[tuple[str, ...]] = []

    async def form(request: ElicitationRequest, problems: Any) -> ElicitAnswer:
        seen.append(tuple(problems))
        return next(answers)

    assert anyio.run(Handlers(form=form).answer, FORM) == {"action": "accept", "content": {"n": 2.5}}
    assert seen == [(), ("content['n'] must be a finite number (JSON has no NaN or infinity), not inf",)]


def test_an_observe_that_is_no_observe_is_refused_before_the_call() -> None:
    async def body(client: VerdictClient) -> tuple[str, str, int]:
        try:
            await client.call_tool("create_note", {"text": "x"}, observe={"read": "get_note"})  # type: ignore[arg-type]
        except OptionError as exc:
            return exc.option, str(exc), len(client.history)
        return "", "", len(client.history)

    assert with_client(body) == ("observe", "observe must be an Observe or None, not {'read': 'get_note'}", 0)

"""What the application answers when a server asks for input (elicitation, sampling, roots).

The client declares exactly the capabilities it has handlers for: ``elicitation.form`` with
a form handler, ``elicitation.url`` with a URL consent handler, ``sampling`` (and
``sampling.tools`` on request) with a sampling handler, ``roots`` with a roots handler.

Form answers are validated against the request's ``requestedSchema`` before they are sent;
an invalid answer is handed back to the handler with the problems (up to three times), then
the elicitation is sent as cancelled. URL mode needs an explicit consent handler: the client
never opens a URL itself. Declined and cancelled elicitations are sent as such.
https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ..frames._sendable import refusal
from ..judgement._schema import compile_schema, validate
from ..verdict._shown import described, shown
from ..verdict._verdict import ElicitationRequest, InputRequest, RootsRequest, SamplingRequest

FORM_ATTEMPTS: Final = 3


class HandlerError(RuntimeError):
    """An input handler (application code) raised; the call cannot go on."""


class AnswerRejected(HandlerError):
    """A form handler cannot give an answer that passes the requested schema (an answers file
    cannot be asked again): the call stops, with what was wrong."""

    def __init__(self, key: str, problems: Sequence[str]) -> None:
        self.key = key
        self.problems = tuple(problems)
        super().__init__(f"the answer to {key!r} does not fit the requested schema: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class ElicitAnswer:
    """The user's answer to a form elicitation."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None

    @classmethod
    def accept(cls, content: Mapping[str, Any]) -> ElicitAnswer:
        return cls("accept", content)

    @classmethod
    def decline(cls) -> ElicitAnswer:
        return cls("decline")

    @classmethod
    def cancel(cls) -> ElicitAnswer:
        return cls("cancel")


FormHandler = Callable[[ElicitationRequest, Sequence[str]], Awaitable[ElicitAnswer]]
"""Ask the user to fill a form; the second argument lists what was wrong with the last answer."""
UrlConsentHandler = Callable[[ElicitationRequest], Awaitable[bool]]
"""Show the URL's host and message and return whether the user consents to go there themselves."""
SamplingHandler = Callable[[SamplingRequest], Awaitable[Mapping[str, Any]]]
"""Return a CreateMessageResult as a JSON object (role, content, model, stopReason)."""
RootsHandler = Callable[[], Awaitable[Sequence[Mapping[str, Any]]]]
"""Return the roots as JSON objects ({"uri": "file:///...", "name": ...})."""


@dataclass(frozen=True, slots=True)
class Handlers:
    """The application's answers to input requests. A missing handler means the capability is
    not declared, so a well-behaved server never asks for it."""

    form: FormHandler | None = None
    url: UrlConsentHandler | None = None
    sampling: SamplingHandler | None = None
    sampling_tools: bool = False
    """Declare ``sampling.tools`` (tool-enabled sampling requests) along with sampling."""
    roots: RootsHandler | None = None

    def capabilities(self, *, tasks: bool = False) -> dict[str, Any]:
        """The client capabilities these handlers justify (and the tasks extension, opted in)."""
        caps: dict[str, Any] = {}
        elicitation: dict[str, Any] = {}
        if self.form is not None:
            elicitation["form"] = {}
        if self.url is not None:
            elicitation["url"] = {}
        if elicitation:
            caps["elicitation"] = elicitation
        if self.sampling is not None:
            caps["sampling"] = {"tools": {}} if self.sampling_tools else {}
        if self.roots is not None:
            caps["roots"] = {}
        if tasks:
            caps["extensions"] = {"io.modelcontextprotocol/tasks": {}}
        return caps

    async def answer(self, request: InputRequest) -> dict[str, Any]:
        """The input response for one request (raises HandlerError when application code fails)."""
        try:
            if isinstance(request, ElicitationRequest):
                if request.mode == "url":
                    return await self._url(request)
                return await self._form(request)
            if isinstance(request, SamplingRequest):
                if self.sampling is None:
                    raise HandlerError("no sampling handler")
                return _sendable(dict(await self.sampling(request)), "the sampling handler's answer")
            assert isinstance(request, RootsRequest)
            if self.roots is None:
                raise HandlerError("no roots handler")
            return _sendable({"roots": [dict(root) for root in await self.roots()]}, "the roots handler's answer")
        except HandlerError:
            raise
        except Exception as exc:
            raise HandlerError(f"the {request.method} handler raised {described(exc)}") from exc

    async def _url(self, request: ElicitationRequest) -> dict[str, Any]:
        if self.url is None:
            raise HandlerError("no URL consent handler")
        consent = await self.url(request)
        return {"action": "accept" if consent is True else "decline"}

    async def _form(self, request: ElicitationRequest) -> dict[str, Any]:
        if self.form is None:
            raise HandlerError("no form handler")
        problems: list[str] = []
        for _ in range(FORM_ATTEMPTS):
            answer = await self.form(request, tuple(problems))
            if not isinstance(answer, ElicitAnswer):
                raise HandlerError(f"the form handler returned {shown(answer)}, not an ElicitAnswer")
            if answer.action != "accept":
                return {"action": answer.action}
            problems = form_problems(request, answer.content)
            if not problems:
                return {"action": "accept", "content": dict(answer.content or {})}
        return {"action": "cancel"}


def form_problems(request: ElicitationRequest, content: Mapping[str, Any] | None) -> list[str]:
    """What is wrong with a form answer, checked against the request's requestedSchema."""
    if content is None:
        return ["an accepted form needs content"]
    unsendable = refusal(content, "content")  # (NaN would go out as null, a Decimal as a string)
    if unsendable is not None:
        return [str(unsendable)]
    compiled = compile_schema(dict(request.requested_schema or {"type": "object"}), "/requestedSchema")
    return [f"{p.path or '/'}: {p.message}" for p in validate(compiled, dict(content), "")]


def _sendable(answer: dict[str, Any], what: str) -> dict[str, Any]:
    """A handler's answer as it will be sent, or a HandlerError naming the first value in it no
    JSON holds (the SDK's serializer would send NaN as null, a Decimal as a string)."""
    problem = refusal(answer, what)
    if problem is not None:
        raise HandlerError(f"{problem} (it cannot be sent as JSON)")
    return answer

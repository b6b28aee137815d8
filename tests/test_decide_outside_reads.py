"""``decide`` given an outcome built outside the library (a ``Judged``): its members are caller
code (properties), read once each, and only those the decision needs. A member whose reading
raises is an ``OptionError`` naming it (``verdict.<member>``, what it must be, and what the
reading raised: ``verdict/_shown.unreadable``), never that exception; a member of the wrong
type is read conservatively as before (never ``accept``, never a blind retry); a good outside
object is decided as an Outcome of the library is.

Before: each raising member came out of ``decide`` as its own exception (``RuntimeError``,
``Boom``), a missing one as an ``AttributeError``, a ``verdict`` that raised as ``decide takes
a Verdict or an Outcome``; a content check's codes holding a str subclass had its ``__hash__``
called. The messages are written by hand.

https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool (the annotations
read with ``trusted_server``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict import Action, OptionError, RetryPolicy, decide, evaluate

from .raising import RaisingList, RaisingMapping, _boom
from .test_decide import error, ok

NORMAL = ok({"resultType": "complete", "content": [], "structuredContent": {"id": "a"}})
INTERNAL = error(-32603)
READ_ONLY = {"name": "get", "annotations": {"readOnlyHint": True}}


class _Members:
    """Each member a property (caller code) answering what it was given; the one named in
    ``raises`` raises ``RuntimeError``; one not given is absent (``AttributeError``)."""

    def __init__(self, raises: str = "", **members: Any) -> None:
        self._raises = raises
        self._members = members

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def _member(name: str) -> property:
    def read(self: _Members) -> Any:
        if name == self._raises:
            raise RuntimeError(f"{name} cannot be read")
        if name not in self._members:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._members[name]

    return property(read)


class Outside(_Members):
    """A ``Judged`` built outside the library."""

    def __init__(self, verdict: Any, raises: str = "", **members: Any) -> None:
        defaults = {"succeeded": True, "content_check": None, "observation": None, "tool": None,
                    "trusted_server": False, "request_sent": True}
        super().__init__(raises, verdict=verdict, **{**defaults, **members})


class Check(_Members):
    """An outside content check (``passed``, ``codes``)."""


class Seen(_Members):
    """An outside observation (``passed``)."""


for _name in ("verdict", "succeeded", "content_check", "observation", "tool", "trusted_server", "request_sent",
              "attempt", "retry"):
    setattr(Outside, _name, _member(_name))
for _name in ("passed", "codes"):
    setattr(Check, _name, _member(_name))
setattr(Seen, "passed", _member("passed"))  # noqa: B010


class HostileCode(str):
    """A finding code whose own methods raise (a str subclass: caller code)."""

    __eq__ = __hash__ = startswith = _boom


def without(name: str) -> Outside:
    outside = Outside(NORMAL, content_check=Check(passed=True, codes=()))
    del outside._members[name]
    return outside


# (case, the call, the OptionError's option, its whole message), by hand
UNREADABLE: list[tuple[str, Callable[[], Any], str, str]] = [
    ("verdict raises", lambda: decide(Outside(NORMAL, "verdict")), "verdict.verdict",  # type: ignore[arg-type]
     "verdict.verdict must be a Verdict; reading <Outside> raised RuntimeError: verdict cannot be read"),
    ("succeeded raises", lambda: decide(Outside(NORMAL, "succeeded")), "verdict.succeeded",  # type: ignore[arg-type]
     "verdict.succeeded must be True or False; reading <Outside> raised RuntimeError: succeeded cannot be read"),
    ("content_check raises", lambda: decide(Outside(NORMAL, "content_check")),  # type: ignore[arg-type]
     "verdict.content_check", "verdict.content_check must be a ContentCheck or None; reading <Outside> raised "
     "RuntimeError: content_check cannot be read"),
    ("observation raises", lambda: decide(Outside(NORMAL, "observation")),  # type: ignore[arg-type]
     "verdict.observation", "verdict.observation must be an Observation or None; reading <Outside> raised "
     "RuntimeError: observation cannot be read"),
    ("tool raises", lambda: decide(Outside(INTERNAL, "tool")), "verdict.tool",  # type: ignore[arg-type]
     "verdict.tool must be the tool as listed (a mapping) or None; reading <Outside> raised RuntimeError: tool "
     "cannot be read"),
    ("trusted_server raises", lambda: decide(Outside(INTERNAL, "trusted_server")),  # type: ignore[arg-type]
     "verdict.trusted_server", "verdict.trusted_server must be True or False; reading <Outside> raised "
     "RuntimeError: trusted_server cannot be read"),
    ("request_sent raises", lambda: decide(Outside(INTERNAL, "request_sent")),  # type: ignore[arg-type]
     "verdict.request_sent", "verdict.request_sent must be True or False; reading <Outside> raised RuntimeError: "
     "request_sent cannot be read"),
    ("attempt raises", lambda: decide(Outside(INTERNAL, "attempt")), "verdict.attempt",  # type: ignore[arg-type]
     "verdict.attempt must be an integer from 1; reading <Outside> raised RuntimeError: attempt cannot be read"),
    ("retry raises", lambda: decide(Outside(INTERNAL, "retry")), "verdict.retry",  # type: ignore[arg-type]
     "verdict.retry must be a RetryPolicy; reading <Outside> raised RuntimeError: retry cannot be read"),
    ("content_check.passed raises",
     lambda: decide(Outside(NORMAL, content_check=Check("passed", codes=()))),  # type: ignore[arg-type]
     "verdict.content_check.passed", "verdict.content_check.passed must be True or False; reading <Check> raised "
     "RuntimeError: passed cannot be read"),
    ("content_check.codes raises",
     lambda: decide(Outside(NORMAL, content_check=Check("codes", passed=False))),  # type: ignore[arg-type]
     "verdict.content_check.codes", "verdict.content_check.codes must be the finding codes (a tuple of strings); "
     "reading <Check> raised RuntimeError: codes cannot be read"),
    ("content_check.codes a list whose iteration raises",
     lambda: decide(Outside(NORMAL, content_check=Check(passed=False,  # type: ignore[arg-type]
                                                        codes=RaisingList(["expect.failed"])))),
     "verdict.content_check.codes", "verdict.content_check.codes must be the finding codes (a tuple of strings); "
     "reading ['expect.failed'] raised Boom: boom"),
    ("observation.passed raises",
     lambda: decide(Outside(NORMAL, content_check=Check(passed=True, codes=()),  # type: ignore[arg-type]
                            observation=Seen("passed"))),
     "verdict.observation.passed", "verdict.observation.passed must be True or False; reading <Seen> raised "
     "RuntimeError: passed cannot be read"),
    ("succeeded absent", lambda: decide(without("succeeded")), "verdict.succeeded",  # type: ignore[arg-type]
     "verdict.succeeded must be True or False; reading <Outside> raised AttributeError: 'Outside' object has no "
     "attribute 'succeeded'"),
    ("the outcome's tool's annotations a mapping that raises",
     lambda: decide(Outside(INTERNAL, trusted_server=True,  # type: ignore[arg-type]
                            tool={"name": "get", "annotations": RaisingMapping()})),
     "verdict.tool.annotations", "verdict.tool.annotations must be the tool's annotations (a mapping); reading "
     "<RaisingMapping object; its repr raised Boom> raised Boom: boom"),
    ("decide's tool's annotations a mapping that raises",
     lambda: decide(INTERNAL, tool={"name": "get", "annotations": RaisingMapping()}, trusted_server=True),
     "tool.annotations", "tool.annotations must be the tool's annotations (a mapping); reading <RaisingMapping "
     "object; its repr raised Boom> raised Boom: boom"),
]


@pytest.mark.parametrize(("call", "option", "message"), [row[1:] for row in UNREADABLE],
                         ids=[row[0] for row in UNREADABLE])
def test_a_member_whose_reading_raises_is_an_option_error_naming_it(call: Callable[[], Any], option: str,
                                                                    message: str) -> None:
    with pytest.raises(OptionError) as caught:
        call()
    assert (caught.value.option, str(caught.value)) == (option, message)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


# (case, the subject, decide's options, the action and rule), by hand
DECIDED: list[tuple[str, Any, dict[str, Any], Action, str]] = [
    # a good outside object: as an Outcome of the library
    ("checked and passed", Outside(NORMAL, content_check=Check(passed=True, codes=())), {}, Action.ACCEPT,
     "accept"),
    ("checked, passed and observed", Outside(NORMAL, content_check=Check(passed=True, codes=()),
                                             observation=Seen(passed=True)), {}, Action.ACCEPT, "accept"),
    ("an expectation failed on a write", Outside(NORMAL, succeeded=False, content_check=Check(
        passed=False, codes=("expect.failed",))), {}, Action.CHECK_STATE, "expectation_failed_write"),
    ("not observed", Outside(NORMAL, succeeded=False, content_check=Check(passed=True, codes=()),
                             observation=Seen(passed=False)), {}, Action.CHECK_STATE, "not_observed"),
    ("a read-only tool, trusted, its attempt and policy", Outside(INTERNAL, tool=READ_ONLY, trusted_server=True,
                                                                 attempt=2, retry=RetryPolicy(max_attempts=3)),
     {}, Action.RETRY, "safe_retry"),
    ("a read-only tool, trusted, its last attempt", Outside(INTERNAL, tool=READ_ONLY, trusted_server=True,
                                                           attempt=3, retry=RetryPolicy(max_attempts=3)),
     {}, Action.INVESTIGATE, "retries_exhausted"),
    # the library's own Outcomes
    ("an Outcome that passed", evaluate(NORMAL), {}, Action.ACCEPT, "accept"),
    ("an Outcome whose expectation failed", evaluate(NORMAL, expect=lambda v: "no"), {}, Action.CHECK_STATE,
     "expectation_failed_write"),
    # members of the wrong type: read conservatively, as before
    ("succeeded a truthy string", Outside(NORMAL, succeeded="yes", content_check=Check(passed=True, codes=())),
     {}, Action.VERIFY_CONTENT, "normal_complete"),
    ("content_check without members", Outside(NORMAL, content_check=Check()), {}, Action.VERIFY_CONTENT,
     "normal_complete"),
    ("content_check.codes a number", Outside(NORMAL, succeeded=False, content_check=Check(passed=False, codes=7)),
     {}, Action.VERIFY_CONTENT, "normal_complete"),
    ("observation.passed a string", Outside(NORMAL, content_check=Check(passed=True, codes=()),
                                            observation=Seen(passed="yes")), {}, Action.CHECK_STATE, "not_observed"),
    ("codes holding a str subclass whose methods raise: read as plain strings",
     Outside(NORMAL, succeeded=False, content_check=Check(passed=False, codes=[HostileCode("content.suspect_error")])),
     {}, Action.RETURN_TO_MODEL, "suspect_error"),
    ("attempt and retry of the wrong type", Outside(INTERNAL, tool=READ_ONLY, trusted_server=True, attempt="9",
                                                     retry={"max_attempts": 1}), {}, Action.RETRY, "safe_retry"),
    # members the decision does not need are not read
    ("succeeded raises, a protocol error", Outside(INTERNAL, "succeeded"), {}, Action.CHECK_STATE,
     "unknown_effect"),
    ("trusted_server raises, given with request_sent and tool", Outside(INTERNAL, "trusted_server"),
     {"trusted_server": True, "request_sent": True, "tool": READ_ONLY}, Action.RETRY, "safe_retry"),
    ("attempt raises, given with retry", Outside(INTERNAL, "attempt"),
     {"attempt": 1, "retry": RetryPolicy(), "request_sent": False}, Action.RETRY, "not_sent"),
]


@pytest.mark.parametrize(("subject", "options", "action", "rule"), [row[1:] for row in DECIDED],
                         ids=[row[0] for row in DECIDED])
def test_an_outside_outcome_is_decided(subject: Any, options: dict[str, Any], action: Action, rule: str) -> None:
    decision = decide(subject, **options)
    assert (decision.action, decision.rule) == (action, rule)

"""Values a finding's message or a verdict's ``repr`` writes: whatever they are, they are written
at a bounded length, and writing them never raises nor runs a method of the value's own.

- A parsed value handed to ``classify`` may hold an integer past Python's digit limit for
  ``str`` (``sys.get_int_max_str_digits()``, 4,300 digits by default), which no reader builds (the
  wire's is ``json.syntax``, "number out of range"). Where a rule named it (``the integer N``, a
  member name ``N``) or the verdict's ``repr`` wrote it (the id, a protocol error's code),
  ``classify`` or ``repr`` raised ``ValueError: Exceeds the limit (4300 digits) for integer string
  conversion``. It is now named by its size, as the content check names one.
- A subclass of a JSON type in a parsed value is read as that type's value (README "The API in
  five minutes": a ``StrEnum`` member is the string it is): its own ``__repr__``, ``__str__``,
  ``__len__``, ``__iter__`` or ``__int__``, which may raise, never ran by the rules that describe
  it; before, a float subclass whose ``__repr__`` raised, as ``"jsonrpc"``, made ``classify`` raise
  that exception.
- A peer's string is written in a finding's message by its first 37 characters (``describe``);
  three rules wrote it whole: a 1 MB ``resultType`` (``result.result_type_unknown``), content
  block type (``content.type``) or sampling block type (``sampling.content``) made a 1 MB message,
  which the CLI prints and the audit keeps per call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_verdict import TASKS_EXTENSION, Kind, classify

BIG = 10**5000  # 5,001 digits: past the 4,300 Python writes as text
LONG = "x" * 1_000_000
HEAD = "'" + "x" * 37 + "...'"  # how a finding's message writes LONG


class RaisingFloat(float):
    def __repr__(self) -> str:
        raise RuntimeError("repr")

    __str__ = __repr__


class RaisingInt(int):
    def __repr__(self) -> str:
        raise RuntimeError("repr")

    __str__ = __repr__

    def __int__(self) -> int:
        raise RuntimeError("int")

    def __index__(self) -> int:
        raise RuntimeError("index")


class RaisingStr(str):
    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __len__(self) -> int:
        raise RuntimeError("len")


class RaisingList(list[Any]):
    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        raise RuntimeError("len")


class RaisingDict(dict[str, Any]):
    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def keys(self) -> Any:
        raise RuntimeError("keys")

    def items(self) -> Any:
        raise RuntimeError("items")

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")

    def __len__(self) -> int:
        raise RuntimeError("len")


def _response(**result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
                                                  "content": [{"type": "text", "text": "x"}], **result}}


def _with(where: str, value: Any) -> dict[str, Any]:
    response = _response()
    if where == "jsonrpc":
        response["jsonrpc"] = value
    else:
        response["result"][where] = value
    return response


# (case: the parsed value; the kind, then each finding's (code, path, message)), for the latest version
PARSED: dict[str, tuple[Any, Kind, list[tuple[str, str, str]]]] = {
    "the response, an integer past the digit limit": (
        BIG, Kind.UNCLASSIFIED,
        [("envelope.not_object", "", "the response is an integer of about 5000 digits, not an object")]),
    '"jsonrpc", an integer past the digit limit': (
        _with("jsonrpc", BIG), Kind.UNCLASSIFIED,
        [("envelope.jsonrpc", "/jsonrpc", '"jsonrpc" is an integer of about 5000 digits, not "2.0"')]),
    "isError, an integer past the digit limit": (
        _with("isError", BIG), Kind.UNCLASSIFIED,
        [("result.is_error", "/result/isError", "isError is an integer of about 5000 digits; "
                                                 "only the JSON booleans true and false are allowed")]),
    "a member name, an integer past the digit limit": (
        _with(BIG, 1), Kind.UNCLASSIFIED,  # type: ignore[arg-type]
        [("json.not_json_value", "/result", "member name <an integer of about 5000 digits> is not a string")]),
    "an inputRequests member name, an integer past the digit limit": (
        {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {BIG: {}}}},
        Kind.UNCLASSIFIED,
        [("json.not_json_value", "/result/inputRequests",
          "member name <an integer of about 5000 digits> is not a string")]),
    '"jsonrpc", a float whose __repr__ raises': (
        _with("jsonrpc", RaisingFloat(1.5)), Kind.UNCLASSIFIED,
        [("envelope.jsonrpc", "/jsonrpc", '"jsonrpc" is the number 1.5, not "2.0"')]),
    '"jsonrpc", an int whose __repr__ and __int__ raise': (
        _with("jsonrpc", RaisingInt(2)), Kind.UNCLASSIFIED,
        [("envelope.jsonrpc", "/jsonrpc", '"jsonrpc" is the integer 2, not "2.0"')]),
    '"jsonrpc", a str whose __repr__ and __len__ raise': (
        _with("jsonrpc", RaisingStr("1.0")), Kind.UNCLASSIFIED,
        [("envelope.jsonrpc", "/jsonrpc", "\"jsonrpc\" is the string '1.0', not \"2.0\"")]),
    "isError, a list whose __iter__ and __len__ raise": (
        _with("isError", RaisingList([1, 2])), Kind.UNCLASSIFIED,
        [("result.is_error", "/result/isError", "isError is an array of 2; "
                                                 "only the JSON booleans true and false are allowed")]),
    "isError, a dict whose reading raises": (
        _with("isError", RaisingDict(a=1)), Kind.UNCLASSIFIED,
        [("result.is_error", "/result/isError", "isError is an object of 1 members; "
                                                 "only the JSON booleans true and false are allowed")]),
    "_meta, a dict whose reading raises, holding NaN": (
        _with("_meta", {"a": RaisingDict(b=float("nan"))}), Kind.UNCLASSIFIED,
        [("json.number_out_of_range", "/result/_meta/a/b", "nan is not a finite JSON number")]),
    "structuredContent, a list whose __iter__ raises, holding a set": (
        _with("structuredContent", {"a": RaisingList([1, {2}])}), Kind.UNCLASSIFIED,
        [("json.not_json_value", "/result/structuredContent/a/1", "a set is not a JSON value")]),
    "structuredContent member, a float whose __repr__ raises, not finite": (
        _with("structuredContent", {"a": RaisingFloat("inf")}), Kind.UNCLASSIFIED,
        [("json.number_out_of_range", "/result/structuredContent/a", "inf is not a finite JSON number")]),
    "a member name, a float whose __repr__ raises": (
        _with("_meta", {(RaisingFloat(1.5)): 1}), Kind.UNCLASSIFIED,
        [("json.not_json_value", "/result/_meta", "member name 1.5 is not a string")]),
}


@pytest.mark.parametrize("case", list(PARSED))
def test_a_parsed_values_odd_objects_are_described_never_raised_on(case: str) -> None:
    value, kind, findings = PARSED[case]
    verdict = classify(value)
    assert (verdict.kind, [(f.code, f.path, f.message) for f in verdict.findings]) == (kind, findings)
    repr(verdict)


# (case: the parsed value; the verdict's repr)
REPRS: dict[str, tuple[Any, str]] = {
    "an id past the digit limit": (
        {"jsonrpc": "2.0", "id": BIG, "result": {"resultType": "complete", "content": []}},
        "Verdict(kind='normal_complete', version='2026-07-28', id=<an integer of about 5000 digits>)"),
    "an error code past the digit limit": (
        {"jsonrpc": "2.0", "id": 1, "error": {"code": BIG, "message": "m"}},
        "Verdict(kind='protocol_error', version='2026-07-28', id=1, error_code=<an integer of about 5000 digits>)"),
    "an id of 1 MB": (
        {"jsonrpc": "2.0", "id": LONG, "result": {"resultType": "complete", "content": []}},
        "Verdict(kind='normal_complete', version='2026-07-28', id='" + "x" * 196 + "...)"),
    "an ordinary id and code, as before": (
        {"jsonrpc": "2.0", "id": "a-7", "error": {"code": -32602, "message": "m"}},
        "Verdict(kind='protocol_error', version='2026-07-28', id='a-7', error_code=-32602)"),
}


@pytest.mark.parametrize("case", list(REPRS))
def test_a_verdicts_repr_is_bounded_and_never_raises(case: str) -> None:
    value, written = REPRS[case]
    assert repr(classify(value)) == written


SAMPLING: dict[str, Any] = {"sampling": {}}
# (case: the wire text; classify's options; each finding's (code, path, message)). Spec: 2026-07-28
# schema.json (resultType; ContentBlock's type; SamplingMessage's content).
WIRE: dict[str, tuple[bytes, dict[str, Any], list[tuple[str, str, str]]]] = {
    "a resultType of 1 MB": (
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": LONG, "content": []}}).encode(), {},
        [("result.result_type_unknown", "/result/resultType",
          f"resultType {HEAD} is not recognized and MUST be considered invalid")]),
    "a known resultType in another case, as before": (
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "Complete", "content": []}}).encode(), {},
        [("result.result_type_unknown", "/result/resultType",
          "resultType 'Complete' is not recognized: values are case-sensitive")]),
    "a content block type of 1 MB": (
        json.dumps(_response(content=[{"type": LONG}])).encode(), {},
        [("content.type", "/result/content/0/type",
          f"{HEAD} is not a content block type of a tool result (text, image, audio, resource_link, resource)")]),
    "a sampling block type of 1 MB": (
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
            "s": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": LONG}}], "maxTokens": 5}}}}}).encode(),
        {"client_capabilities": SAMPLING},
        [("sampling.content", "/result/inputRequests/s/params/messages/0/content/type",
          f"a {HEAD} block is not a sampling block: a message holds text, image, audio, tool_use and tool_result "
          "blocks")]),
}


@pytest.mark.parametrize("case", list(WIRE))
def test_a_peers_long_string_is_written_by_its_head(case: str) -> None:
    wire, options, findings = WIRE[case]
    verdict = classify(wire, extensions=[TASKS_EXTENSION], **options)
    assert [(f.code, f.path, f.message) for f in verdict.findings] == findings


class RaisingText(str):
    """Wire text as a str subclass whose encode and indexing raise."""

    def encode(self, *args: Any, **kwargs: Any) -> bytes:
        raise RuntimeError("encode")

    def __getitem__(self, key: Any) -> str:
        raise RuntimeError("getitem")


class RaisingBytes(bytes):
    def __bytes__(self) -> bytes:
        raise RuntimeError("bytes")


class RaisingBytearray(bytearray):
    def __bytes__(self) -> bytes:
        raise RuntimeError("bytes")


WIRE_TEXT = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
# (case: the response, wire text of a subclass; its kind, then each finding's (code, path, message)).
# The text is read as the str or bytes it is (RFC 8259 s8.1: UTF-8); before, the subclass's own
# encode or __bytes__ ran, and its exception came out of classify.
TEXTS: dict[str, tuple[Any, Kind, list[tuple[str, str, str]]]] = {
    "a str subclass whose encode raises": (RaisingText(WIRE_TEXT), Kind.NORMAL_COMPLETE, []),
    "the same, holding a lone surrogate": (
        RaisingText("\ud800"), Kind.UNCLASSIFIED,
        [("json.encoding", "", "the text holds a lone surrogate (U+D800) at character 0, which UTF-8 cannot encode")]),
    "a bytes subclass whose __bytes__ raises": (RaisingBytes(WIRE_TEXT.encode()), Kind.NORMAL_COMPLETE, []),
    "a bytearray subclass whose __bytes__ raises": (RaisingBytearray(WIRE_TEXT.encode()), Kind.NORMAL_COMPLETE, []),
}


@pytest.mark.parametrize("case", list(TEXTS))
def test_wire_text_of_a_subclass_is_read_as_the_text_it_is(case: str) -> None:
    value, kind, findings = TEXTS[case]
    verdict = classify(value)
    assert (verdict.kind, [(f.code, f.path, f.message) for f in verdict.findings]) == (kind, findings)


class ReadingRaises(dict[str, Any]):
    """A dict subclass whose reading (get, in, [], iteration, items) raises, or lies."""

    def get(self, *args: Any) -> Any:
        raise RuntimeError("get")

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("in")

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def items(self) -> Any:
        raise RuntimeError("items")


class EqualRaises(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        return 1


def _cycle() -> ReadingRaises:
    response = ReadingRaises(jsonrpc="2.0", id=1)
    dict.__setitem__(response, "result", response)
    return response


COMPLETE: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "result": {
    "resultType": "complete", "content": [{"type": "text", "text": "x"}]}}
# (case: the parsed value; its kind, then each finding's (code, path)). The rules read a parsed
# value's members (get, in, ==, hash): a subclass's own methods ran there, and their exceptions
# came out of classify (RuntimeError: get, at the envelope). Each subclass is read as the dict,
# list or str it holds, so each verdict is the plain value's.
CONTAINERS: dict[str, tuple[Any, Kind, list[tuple[str, str]]]] = {
    "the response, a dict whose reading raises": (ReadingRaises(COMPLETE), Kind.NORMAL_COMPLETE, []),
    "the result, a dict whose reading raises": (
        {**COMPLETE, "result": ReadingRaises(COMPLETE["result"])}, Kind.NORMAL_COMPLETE, []),
    "the result, the same, on 2025-06-18 (no resultType)": (
        {**COMPLETE, "result": ReadingRaises(content=[], isError=True)}, Kind.TOOL_ERROR, []),
    "the content, a list whose iteration raises": (
        {**COMPLETE, "result": {**COMPLETE["result"], "content": RaisingList([{"type": "text", "text": "x"}])}},
        Kind.NORMAL_COMPLETE, []),
    '"jsonrpc", a str whose == raises': ({**COMPLETE, "jsonrpc": EqualRaises("2.0")}, Kind.NORMAL_COMPLETE, []),
    "resultType, a str whose == raises, not a known one": (
        {**COMPLETE, "result": {**COMPLETE["result"], "resultType": EqualRaises("done")}}, Kind.UNCLASSIFIED,
        [("result.result_type_unknown", "/result/resultType")]),
    "the response, a dict whose reading raises, its own result (a cycle)": (
        _cycle(), Kind.UNCLASSIFIED, [("result.result_type_missing", "/result")]),
}


@pytest.mark.parametrize("case", list(CONTAINERS))
def test_a_parsed_values_subclasses_are_read_as_their_types(case: str) -> None:
    value, kind, findings = CONTAINERS[case]
    version = "2025-06-18" if "2025-06-18" in case else "2026-07-28"
    verdict = classify(value, version=version)
    assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (kind, findings)

"""The ``_meta`` key name format (``meta.key_name``, a warning; ``verdict/_meta_keys``):
basic/index#_meta, "Key name format" (2025-06-18, 2025-11-25 and 2026-07-28; no such text
before). "valid _meta key names have two segments: an optional prefix, and a name. Prefix: If
specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST
start with a letter and end with a letter or digit; interior characters can be letters, digits,
or hyphens (-). [...] Name: Unless empty, MUST begin and end with an alphanumeric character
([a-z0-9A-Z]). MAY contain hyphens (-), underscores (_), dots (.), and alphanumerics in between."

Two tables, written by hand from that text: the keys (each in a result's ``_meta`` on 2026-07-28,
whether it is in format and, when not, the words that say why), and the ``_meta`` objects a
response carries (result, content block, embedded resource, an input request's params, a
sampling message, block and tool), each over the versions, with the rows of the other rule on a
``_meta`` object's keys, its trace-context values (``meta.trace_context``, whose values have
their own table in tests/test_trace_context.py). A key out of format never changes the kind: the
values under a ``_meta`` key are the peer's own, open in every schema.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_verdict import Kind, classify
from mcp_verdict.verdict._input import check_server_request
from mcp_verdict.verdict._judge import classify_options

V1, V2, V3, V4 = "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"
TEXT = {"type": "text", "text": "hi"}

# (key, in format?, the words of the warning's reason when not)
KEYS: list[tuple[str, bool, str]] = [
    ("", True, ""),  # "unless empty": the empty name, no prefix
    ("progressToken", True, ""),
    ("a", True, ""),
    ("7", True, ""),  # a name may begin with a digit ([a-z0-9A-Z])
    ("x-request-id", True, ""),
    ("a.b.c", True, ""),  # dots inside a name; no slash, so no prefix
    ("snake_case_name", True, ""),
    ("a__b", True, ""),
    ("com.example/", True, ""),  # a prefix and the empty name
    ("com.example/trace", True, ""),
    ("io.modelcontextprotocol/related-task", True, ""),
    ("openai/outputTemplate", True, ""),  # a prefix of one label
    ("x-1.y2/n", True, ""),
    ("_fastmcp", False, "its name '_fastmcp' does not begin and end with a letter or digit"),
    ("trailing-", False, "its name 'trailing-' does not begin and end with a letter or digit"),
    ("a.", False, "its name 'a.' does not begin and end with a letter or digit"),
    ("my key", False, "its name 'my key' holds a character other than letters, digits, '-', '_' and '.'"),
    ("naïve", False, "its name 'naïve' holds a character other than letters, digits, '-', '_' and '.'"),
    ("a:b", False, "its name 'a:b' holds a character other than"),
    ("openai/toolInvocation/invoking", False, "it holds more than one '/'"),
    ("/x", False, "its prefix has an empty label"),
    ("com..example/x", False, "its prefix has an empty label"),
    ("com.example-/x", False, "its prefix label 'example-' is not a letter, then letters, digits or hyphens"),
    ("1com/x", False, "its prefix label '1com' is not a letter"),
    ("com.-x/y", False, "its prefix label '-x' is not a letter"),
    ("com.example/_x", False, "its name '_x' does not begin and end with a letter or digit"),
]


@pytest.mark.parametrize(("key", "valid", "why"), KEYS, ids=[repr(k[0]) for k in KEYS])
def test_a_meta_key_is_held_to_the_key_name_format(key: str, valid: bool, why: str) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [TEXT], "_meta": {key: 1}}}
    for response in (json.dumps(message, separators=(",", ":")).encode(), message):
        verdict = classify(response, version=V4)
        assert verdict.kind is Kind.NORMAL_COMPLETE
        if valid:
            assert verdict.findings == ()
        else:
            (found,) = verdict.findings
            assert (found.code, found.severity) == ("meta.key_name", "warning")
            assert found.message.startswith(f"the _meta key {key!r} is out of the key name format: {why}")


def test_one_warning_per_meta_object_names_its_first_key_and_counts_them() -> None:
    meta = {"ok": 1, "_a": 2, "b-": 3, "c d": 4}
    verdict = classify({"jsonrpc": "2.0", "id": 1, "result": {"content": [TEXT], "_meta": meta}}, version=V3)
    assert [(f.code, f.path) for f in verdict.findings] == [("meta.key_name", "/result/_meta/_a")]
    assert verdict.findings[0].message.endswith("(3 keys of this _meta are out of format)")


BAD = {"_bad": 1}


def complete(version: str, **members: Any) -> dict[str, Any]:
    return {**({"resultType": "complete"} if version == V4 else {}), "content": [TEXT], **members}


def block(**members: Any) -> dict[str, Any]:
    return {**TEXT, **members}


def resource(**members: Any) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "a", **members}}


TRACE_BAD = {"traceparent": "00-x", "tracestate": "A=1", "baggage": "k=v w"}

# (name, version, the result, the findings (code, path)); the kind is normal_complete throughout
RESULTS: list[tuple[str, str, dict[str, Any], list[tuple[str, str]]]] = [
    ("result _meta, 2026-07-28", V4, complete(V4, _meta=BAD), [("meta.key_name", "/result/_meta/_bad")]),
    ("result _meta, 2025-11-25", V3, complete(V3, _meta=BAD), [("meta.key_name", "/result/_meta/_bad")]),
    ("result _meta, 2025-06-18", V2, complete(V2, _meta=BAD), [("meta.key_name", "/result/_meta/_bad")]),
    ("result _meta, 2025-03-26 (no key name format)", V1, complete(V1, _meta=BAD), []),
    ("beside a serverInfo (2026-07-28 reserves it)", V4,
     complete(V4, _meta={"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, **BAD}),
     [("meta.key_name", "/result/_meta/_bad")]),
    ("a text block's _meta", V4, {"resultType": "complete", "content": [TEXT, block(_meta=BAD)]},
     [("meta.key_name", "/result/content/1/_meta/_bad")]),
    ("an image block's _meta", V2, {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png",
                                                 "_meta": BAD}]},
     [("meta.key_name", "/result/content/0/_meta/_bad")]),
    ("a resource_link's _meta", V3, {"content": [{"type": "resource_link", "uri": "file:///a", "name": "a",
                                                  "_meta": BAD}]},
     [("meta.key_name", "/result/content/0/_meta/_bad")]),
    ("an embedded resource's _meta", V3, {"content": [{**resource(), "_meta": BAD}]},
     [("meta.key_name", "/result/content/0/_meta/_bad")]),
    ("a resource's contents' _meta", V4, {"resultType": "complete", "content": [resource(_meta=BAD)]},
     [("meta.key_name", "/result/content/0/resource/_meta/_bad")]),
    ("a block's _meta on 2025-03-26 (an undefined member there)", V1, {"content": [block(_meta=BAD)]}, []),
    ("both the result's and a block's: one warning each", V2, {"content": [block(_meta={"x y": 1})], "_meta": BAD},
     [("meta.key_name", "/result/_meta/_bad"), ("meta.key_name", "/result/content/0/_meta/x y")]),
    ("a structuredContent member named _meta is no _meta object", V4,
     complete(V4, structuredContent={"_meta": BAD}), []),
    # OpenTelemetry trace context (meta.trace_context, 2026-07-28; its values: tests/test_trace_context.py)
    ("all three in the result's _meta: one warning each, in key order", V4,
     {"resultType": "complete", "content": [TEXT], "_meta": TRACE_BAD},
     [("meta.trace_context", "/result/_meta/baggage"), ("meta.trace_context", "/result/_meta/traceparent"),
      ("meta.trace_context", "/result/_meta/tracestate")]),
    ("a block's traceparent", V4, {"resultType": "complete", "content": [{**TEXT, "_meta": {"traceparent": 7}}]},
     [("meta.trace_context", "/result/content/0/_meta/traceparent")]),
    ("a resource's baggage", V4, {"resultType": "complete", "content": [
        {"type": "resource", "resource": {"uri": "file:///a", "text": "a", "_meta": {"baggage": "k v"}}}]},
     [("meta.trace_context", "/result/content/0/resource/_meta/baggage")]),
    ("beside a key out of the name format: both warnings", V4,
     {"resultType": "complete", "content": [], "_meta": {"_x": 1, "tracestate": "A=1"}},
     [("meta.key_name", "/result/_meta/_x"), ("meta.trace_context", "/result/_meta/tracestate")]),
    ("2025-11-25 gives the trace-context keys no format", V3, {"content": [TEXT], "_meta": TRACE_BAD}, []),
    ("2025-06-18 neither", V2, {"content": [TEXT], "_meta": TRACE_BAD}, []),
    ("a structuredContent member named traceparent is no _meta key", V4,
     {"resultType": "complete", "content": [], "structuredContent": {"traceparent": 1}}, []),
]


@pytest.mark.parametrize(("name", "version", "result", "findings"), RESULTS, ids=[c[0] for c in RESULTS])
def test_every_meta_object_of_a_result(name: str, version: str, result: dict[str, Any],
                                       findings: list[tuple[str, str]]) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": result}
    for response in (json.dumps(message, separators=(",", ":")).encode(), message):
        verdict = classify(response, version=version)
        assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (Kind.NORMAL_COMPLETE, findings), name


FORM = {"message": "Pick", "requestedSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
MESSAGE = {"role": "user", "content": TEXT}
TOOL = {"name": "w", "inputSchema": {"type": "object"}}
E, M, R = "elicitation/create", "sampling/createMessage", "roots/list"
AT = "/result/inputRequests/"

# (name, version, method, params, the findings (code, path below AT)); the kind is input_required
REQUESTS: list[tuple[str, str, str, dict[str, Any], list[tuple[str, str]]]] = [
    ("roots params, 2026-07-28", V4, R, {"_meta": BAD}, [("meta.key_name", "params/_meta/_bad")]),
    ("roots params, 2025-06-18", V2, R, {"_meta": BAD}, [("meta.key_name", "params/_meta/_bad")]),
    ("roots params, 2025-03-26", V1, R, {"_meta": BAD}, []),
    ("an elicitation's params, 2025-11-25 (defines its _meta)", V3, E, {**FORM, "_meta": BAD},
     [("meta.key_name", "params/_meta/_bad")]),
    ("a sampling request's params, 2025-11-25", V3, M, {"messages": [MESSAGE], "maxTokens": 5, "_meta": BAD},
     [("meta.key_name", "params/_meta/_bad")]),
    ("a sampling message's _meta, 2025-11-25", V3, M, {"messages": [{**MESSAGE, "_meta": BAD}], "maxTokens": 5},
     [("meta.key_name", "params/messages/0/_meta/_bad")]),
    ("a sampling block's _meta, 2026-07-28", V4, M,
     {"messages": [{"role": "user", "content": [block(_meta=BAD)]}], "maxTokens": 5},
     [("meta.key_name", "params/messages/0/content/0/_meta/_bad")]),
    ("a sampling tool's _meta, 2025-11-25", V3, M,
     {"messages": [MESSAGE], "maxTokens": 5, "tools": [{**TOOL, "_meta": BAD}]},
     [("meta.key_name", "params/tools/0/_meta/_bad")]),
]


@pytest.mark.parametrize(("name", "version", "method", "params", "findings"), REQUESTS, ids=[c[0] for c in REQUESTS])
def test_every_meta_object_of_an_input_request(name: str, version: str, method: str, params: dict[str, Any],
                                               findings: list[tuple[str, str]]) -> None:
    capabilities: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {"tools": {}}, "roots": {}}
    if version == V4:
        request = {"method": method, "params": params}
        message = {"jsonrpc": "2.0", "id": 1,
                   "result": {"resultType": "input_required", "inputRequests": {"r": request}}}
        verdicts = [classify(response, version=V4, client_capabilities=capabilities)
                    for response in (json.dumps(message).encode(), message)]
        where = AT + "r/"
    else:
        verdicts = [check_server_request(method, params, classify_options(version, client_capabilities=capabilities))]
        where = AT + "/"
    for verdict in verdicts:
        assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (
            Kind.INPUT_REQUIRED, [(code, where + path) for code, path in findings]), name


def _in_format(key: str) -> bool:
    """The key name format read from the specification's words, character by character (the
    oracle of the property test below; no regular expression, unlike the rule's module): a
    prefix, if there is a '/', is everything before the one '/', dot-separated labels each a
    letter first, a letter or digit last, letters, digits and hyphens inside; the name, unless
    empty, an alphanumeric first and last, alphanumerics, '-', '_' and '.' inside."""
    letters = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    alnum = letters | set("0123456789")
    if key.count("/") > 1:
        return False
    if "/" in key:
        prefix, name = key.split("/")
        for label in prefix.split("."):
            if not label or label[0] not in letters or label[-1] not in alnum:
                return False
            if any(c not in alnum and c != "-" for c in label):
                return False
    else:
        name = key
    if not name:
        return True
    return name[0] in alnum and name[-1] in alnum and all(c in alnum or c in "-_." for c in name)


_PIECE = st.text(alphabet=st.sampled_from("aZ09-_. é"), max_size=4)
KEY_TEXT = st.one_of(
    st.text(alphabet=st.sampled_from("aZ09-_./ \né"), max_size=12),
    # a prefix of labels and a name, each near its rule's edges (a hyphen or digit first or last)
    st.builds(lambda labels, name: ".".join(labels) + "/" + name, st.lists(_PIECE, min_size=1, max_size=3), _PIECE))


@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(KEY_TEXT, max_size=10, unique=True), version=st.sampled_from([V1, V2, V3, V4]))
def test_the_warning_is_exactly_the_keys_out_of_format(keys: list[str], version: str) -> None:
    """Any keys, a few or more than the joined match's threshold, in a result's ``_meta``: never
    raises; the kind stands; one ``meta.key_name`` warning exactly when some key is out of format
    on a version with the format, naming the first such key and their count; the bytes and the
    parsed value agree (the fast path and the full checker)."""
    meta = dict.fromkeys(keys, 1)
    message = {"jsonrpc": "2.0", "id": 1, "result": complete(version, _meta=meta)}
    bad = [key for key in keys if not _in_format(key)] if version != V1 else []
    expected = [("meta.key_name", f"/result/_meta/{bad[0].replace('~', '~0').replace('/', '~1')}")] if bad else []
    for response in (json.dumps(message).encode(), message):
        verdict = classify(response, version=version)
        assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (Kind.NORMAL_COMPLETE, expected)
        if len(bad) > 1:
            assert verdict.findings[0].message.endswith(f"({len(bad)} keys of this _meta are out of format)")

"""OpenTelemetry trace context in ``_meta`` (``meta.trace_context``, a warning; ``verdict/_trace_context``):
2026-07-28 basic/index#_meta, "the keys traceparent, tracestate, and baggage are reserved for
OpenTelemetry trace context propagation. When present, their values MUST follow W3C Trace Context
and W3C Baggage formats respectively." (no such text before 2026-07-28).

The values, written by hand from the W3C texts: Trace Context
(https://www.w3.org/TR/trace-context/, "traceparent Header Field Values", "tracestate Header
Field Values"; the valid ones are its own examples) and Baggage (https://www.w3.org/TR/baggage/,
"Definition" and its examples). Each row: the key, the value, and the words of the warning's
reason (empty when the value is in format). A value out of format never changes the kind.
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

PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACE_ID, PARENT_ID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

VALUES: list[tuple[str, object, str]] = [
    ("traceparent", PARENT, ""),
    ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", ""),
    ("traceparent", f"01-{TRACE_ID}-{PARENT_ID}-09-what-a-later-version-adds", ""),  # a higher version may go on
    ("traceparent", f"01-{TRACE_ID}-{PARENT_ID}-01", ""),
    ("traceparent", f"00-{TRACE_ID}-{PARENT_ID}-01-more", "version 00 ends at its trace-flags"),
    ("traceparent", f"ff-{TRACE_ID}-{PARENT_ID}-01", "version ff is forbidden"),
    ("traceparent", f"00-{'0' * 32}-{PARENT_ID}-01", "its trace-id is all zeros"),
    ("traceparent", f"00-{TRACE_ID}-{'0' * 16}-01", "its parent-id is all zeros"),
    ("traceparent", f"00-{TRACE_ID.upper()}-{PARENT_ID}-01", "is not version-traceid-parentid-flags in lowercase hex"),
    ("traceparent", f"00-{TRACE_ID[:-1]}-{PARENT_ID}-01", "is not version-traceid-parentid-flags"),
    ("traceparent", f"0-{TRACE_ID}-{PARENT_ID}-01", "is not version-traceid-parentid-flags"),
    ("traceparent", "", "is not version-traceid-parentid-flags"),
    ("traceparent", 1, "it is the integer 1, not a string"),
    ("traceparent", {"trace_id": TRACE_ID}, "it is an object of 1 members, not a string"),
    ("tracestate", "congo=t61rcWkgMzE", ""),
    ("tracestate", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", ""),
    ("tracestate", "rojo=00f067aa0ba902b7 , congo=t61rcWkgMzE", ""),  # OWS around members
    ("tracestate", "", ""),  # "Vendors MUST accept empty tracestate headers"
    ("tracestate", "rojo=1,,congo=2", ""),  # "Empty and whitespace-only list members are allowed"
    ("tracestate", "fw529a3039@dt=fw529a3039, 7a@b*/=x", ""),  # a multi-tenant key; a key beginning with a digit
    ("tracestate", "a= leading spaces kept", ""),
    ("tracestate", ",".join(f"k{i}=v" for i in range(32)), ""),
    ("tracestate", ",".join(f"k{i}=v" for i in range(33)), "it has 33 members, more than 32"),
    ("tracestate", "Congo=t61rcWkgMzE", "member 0 (the string 'Congo=t61rcWkgMzE') is not key=value"),
    ("tracestate", "rojo=1,congo", "member 1 (the string 'congo') is not key=value"),
    ("tracestate", "congo=", "member 0 (the string 'congo=') is not key=value"),
    ("tracestate", "congo=a=b", "is not key=value"),  # no '=' in a value
    ("tracestate", "congo=tab\there", "is not key=value"),  # printable ASCII only
    ("tracestate", "congo=" + "v" * 257, "is not key=value"),  # at most 256 characters
    ("tracestate", "k" * 257 + "=v", "is not key=value"),
    ("tracestate", ["congo=t61rcWkgMzE"], "it is an array of 1, not a string"),
    ("baggage", "userId=alice,serverNode=DF%2028,isProduction=false", ""),
    ("baggage", "key1=value1;property1;property2, key2 = value2, key3=value3; propertyKey=propertyValue", ""),
    ("baggage", "k=", ""),  # value = *baggage-octet
    ("baggage", "k=a=b", ""),  # "value MAY contain any number of the equal sign"
    ("baggage", ",".join(f"k{i}=v" for i in range(180)), ""),
    ("baggage", ",".join(f"k{i}=v" for i in range(181)), "it has 181 members, more than 180"),
    ("baggage", "serverNode=DF 28", "member 0 (the string 'serverNode=DF 28') is not key=value"),
    ("baggage", "=value", "is not key=value"),
    ("baggage", "user id=alice", "is not key=value"),  # a key is a token
    ("baggage", 'k="quoted"', "is not key=value"),  # no DQUOTE in a value
    ("baggage", "k=v;", "is not key=value"),  # a property has a key
    ("baggage", "k=100%", "a '%' in a value begins no percent-encoding"),
    ("baggage", "k=%zz", "a '%' in a value begins no percent-encoding"),
    ("baggage", "k=v;p=50%", "a '%' in a value begins no percent-encoding"),  # a property's value too
    ("baggage", "k=%2F;p=%41", ""),
    # a key is an RFC 7230 token, whose tchar holds '%': the percent rule is the values' alone
    ("baggage", "a%=1", ""),
    ("baggage", "k=v;p%;q%=1", ""),
    ("baggage", "naïve=1", "is not key=value"),
    ("baggage", None, "it is null, not a string"),
]


@pytest.mark.parametrize(("key", "value", "why"), VALUES, ids=[f"{v[0]}={v[1]!r:.40}" for v in VALUES])
def test_a_trace_context_value_is_held_to_its_w3c_format(key: str, value: object, why: str) -> None:
    message = {"jsonrpc": "2.0", "id": 1,
               "result": {"resultType": "complete", "content": [], "_meta": {key: value}}}
    for response in (json.dumps(message, separators=(",", ":")).encode(), message):
        verdict = classify(response, version="2026-07-28")
        assert verdict.kind is Kind.NORMAL_COMPLETE
        if not why:
            assert verdict.findings == ()
        else:
            (found,) = verdict.findings
            assert (found.code, found.severity, found.path) == ("meta.trace_context", "warning", f"/result/_meta/{key}")
            assert found.message.startswith(f"the _meta {key} is out of its W3C format: ")
            assert why in found.message


def test_an_input_requests_params_meta() -> None:
    request = {"method": "roots/list", "params": {"_meta": {"traceparent": "00-x"}}}
    message = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {"r": request}}}
    verdict = classify(message, version="2026-07-28", client_capabilities={"roots": {}})
    assert (verdict.kind, [(f.code, f.path) for f in verdict.findings]) == (
        Kind.INPUT_REQUIRED, [("meta.trace_context", "/result/inputRequests/r/params/_meta/traceparent")])
    # before 2026-07-28 a server's own roots/list request: no format for the key
    verdict = check_server_request("roots/list", {"_meta": {"traceparent": "00-x"}}, classify_options("2025-11-25"))
    assert (verdict.kind, verdict.findings) == (Kind.INPUT_REQUIRED, ())


_W3C_TEXT = st.text(alphabet=st.sampled_from("ab0f-=,; \t%2@*/\"é"), max_size=40)
_VALUE = st.one_of(_W3C_TEXT, st.integers(), st.none(), st.lists(st.integers(), max_size=2),
                   st.builds(lambda flags: f"00-{TRACE_ID}-{PARENT_ID}-{flags}",
                             st.sampled_from(["00", "01", "ff", "0A", "F0", "1", "abc", "zz", ""])))


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(meta=st.dictionaries(st.sampled_from(["traceparent", "tracestate", "baggage", "other"]), _VALUE, max_size=4),
       version=st.sampled_from(["2025-11-25", "2026-07-28"]))
def test_any_trace_context_value_is_judged_without_raising(meta: dict[str, Any], version: str) -> None:
    """Any value under the three keys: never raises, the kind stands, the only findings are
    ``meta.trace_context`` warnings on those keys (none before 2026-07-28), and a traceparent is
    in format exactly when it is version 00's 55 lowercase-hex characters with ids not all zeros
    (the values generated here: no higher version); the bytes and the parsed value agree."""
    message = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [], "_meta": meta}}
    results = []
    for response in (json.dumps(message).encode(), message):
        verdict = classify(response, version=version)
        assert verdict.kind is Kind.NORMAL_COMPLETE
        paths = [f.path for f in verdict.findings if f.code == "meta.trace_context"]
        assert [f.code for f in verdict.findings] == ["meta.trace_context"] * len(paths)
        assert all(path.rsplit("/", 1)[1] in {"traceparent", "tracestate", "baggage"} for path in paths)
        results.append(paths)
    assert results[0] == results[1]
    if version == "2025-11-25":
        assert results[0] == []
    elif "traceparent" in meta:
        value = meta["traceparent"]
        valid = (isinstance(value, str) and len(value) == 55 and value.startswith(f"00-{TRACE_ID}-{PARENT_ID}-")
                 and all(c in "0123456789abcdef" for c in value[-2:]))
        assert ("/result/_meta/traceparent" not in results[0]) is valid

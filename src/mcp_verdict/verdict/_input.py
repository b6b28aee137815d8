"""input_required results: the multi round-trip request pattern (2026-07-28).

Rules (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr,
client/elicitation, and the schema's InputRequiredResult):

- at least one of ``inputRequests`` and ``requestState`` (``input.empty``);
- ``requestState`` is a string, possibly empty, echoed byte for byte on the retry
  (``input.request_state_type``);
- ``inputRequests`` is an object (``input.requests_type``; an empty one draws the warning
  ``input.requests_empty``) whose values are objects with a ``method`` of
  ``elicitation/create``, ``sampling/createMessage`` or ``roots/list`` (``input.request``);
- params (``input.params``): present and an object for elicitation and sampling, whose
  members are checked by ``_elicitation`` (form and url mode, the requested schema and its
  primitive definitions) and ``_sampling`` (messages and their blocks, model preferences,
  tools, tool choice); roots — params optional, an object whose ``_meta`` is an object
  (the schema's ``ListRootsRequest``);
- per version (``_versions``), the rules of a 2025 server's own requests, the JSON-RPC
  requests that came before input_required results (each version's ``schema.json``:
  ``ElicitRequest``, ``CreateMessageRequest``, ``ListRootsRequest``), judged by
  :func:`check_server_request`: elicitation/create exists from 2025-06-18 (``input.request``
  before); a roots request's ``params._meta.progressToken``, and on 2025-11-25 an elicitation's
  or a sampling request's (whose params define ``_meta`` and ``task``: ``TaskMetadata``, an
  object whose ``ttl`` is an integer), is a string or an integer (``input.params``);
  ``_elicitation`` and ``_sampling`` say what else differs;
- with the client's declared capabilities known, a request for a capability it did not
  declare is refused (``input.capability``): elicitation (form mode needs ``elicitation``
  empty or with ``form``; url mode needs ``elicitation.url``; on 2025-06-18, whose one mode is
  form and whose capability names no modes, ``elicitation`` alone), sampling (a tool-enabled
  request, with ``tools`` or ``toolChoice``, needs ``sampling.tools``: "Servers MUST NOT send
  tool-enabled sampling requests to Clients that have not declared support for tool use via
  the ``sampling.tools`` capability", client/sampling#tools-in-sampling), roots.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from ._elicitation import check_elicitation, is_integer
from ._findings import Finding, describe, finding, pointer, pointer_in
from ._kind import Kind
from ._meta import check_meta_keys
from ._options import Options
from ._sampling import check_sampling
from ._shown import shown
from ._verdict import Verdict, make_verdict
from ._walk import Context, check_extras, check_value

_REQUEST_KEYS: Final = frozenset({"method", "params"})
_CAPABILITY: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
# Depths: result 2, inputRequests 3, one request 4, its params 5, params members 6.
_PARAMS_DEPTH: Final = 5
ASKED: Final = "/result/inputRequests/"
"""Where :func:`check_server_request` puts a server's request (under the key ``""``)."""


def check_input_required(ctx: Context, result: Mapping[str, Any]) -> None:
    has_requests = "inputRequests" in result
    has_state = "requestState" in result
    if not has_requests and not has_state:
        ctx.add("/result", "input.empty",
                "an input_required result needs inputRequests, requestState or both")
    if has_state and not isinstance(result["requestState"], str):
        ctx.add("/result/requestState", "input.request_state_type",
                f"requestState is {describe(result['requestState'])}; it must be a string")
    if not has_requests:
        return
    requests = result["inputRequests"]
    if not isinstance(requests, dict):
        ctx.add("/result/inputRequests", "input.requests_type",
                f"inputRequests is {describe(requests)}, not an object")
        return
    if not requests:
        ctx.add("/result/inputRequests", "input.requests_empty",
                "inputRequests is empty: there is nothing to fulfil")
    for key, request in requests.items():
        if not isinstance(key, str):
            ctx.add("/result/inputRequests", "json.not_json_value", f"member name {shown(key)} is not a string")
            continue
        _check_request(ctx, request, pointer("/result/inputRequests", key))


def check_server_request(method: str, params: object, options: Options, *, given: bool = True) -> Verdict:
    """A server's own ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``
    request (a JSON-RPC request to the client, before 2026-07-28), its ``params`` as they came
    (``given=False``: it had none), judged by the rules of ``options``' version as an input
    request of a result is. The verdict holds it as the result ``{"resultType":
    "input_required", "inputRequests": {"": request}}`` (so its ``input_requests[""]`` is the
    request) and is ``input_required``, or ``unclassified`` with findings whose paths start
    with ``/result/inputRequests/``. Never raises for any ``params``."""
    request: dict[str, Any] = {"method": method, "params": params} if given else {"method": method}
    message = {"jsonrpc": "2.0", "id": 0, "result": {"resultType": "input_required", "inputRequests": {"": request}}}
    ctx = Context(options)
    _check_request(ctx, request, ASKED)
    kind = Kind.UNCLASSIFIED if ctx.errors else Kind.INPUT_REQUIRED
    return make_verdict(kind, tuple(ctx.findings), options.rules.version, message)


def judge_server_request(data: bytes, method: str, options: Options) -> Verdict:
    """:func:`check_server_request` of a server's ``method`` request as it came on the wire
    (``data``: the whole JSON-RPC message), its bytes read strictly first: a text no strict
    parser reads (a duplicate member, bytes that are no UTF-8...) is ``unclassified`` with the
    parser's ``json.*`` finding, at the request as :func:`check_server_request` puts its own.
    What the audit and the tap judge a recorded request by."""
    from ._parser import parse  # (the wire parser, loaded by the first text it reads: classify's options load
    # this module, and a call whose answer the fast path reads needs no parser)

    value, problem = parse(data, options.max_bytes, options.max_depth)
    if problem is not None:
        return make_verdict(Kind.UNCLASSIFIED, (Finding(pointer_in(ASKED, problem.path), problem.code,
                                                        problem.message, problem.severity),),
                            options.rules.version, None)
    message = value if isinstance(value, dict) else {}
    return check_server_request(method, message.get("params"), options, given="params" in message)


def refused_findings(method: str, asked: Verdict) -> tuple[Finding, ...]:
    """What a call's verdict takes from a server's ``method`` request that
    :func:`check_server_request` refused (``asked``, unclassified): each of its errors, at the
    call's message (``""``), naming the request and where in it (a pointer into the request).
    The client, the audit and the tap add them to the verdict of the call the request was made
    during, which then ends ``unclassified``: the server asked for what it must not."""
    at = len(ASKED)  # (the request's key is ""): a pointer into the request
    return tuple([finding("", f.code, f"the server's {method} request" + (f" (at {f.path[at:]})" if f.path[at:] else "")
                          + f": {f.message}") for f in asked.errors])


REFUSED_KEPT: Final = 64
"""Per call: the refused server requests whose findings its verdict takes (:class:`RefusedAsks`);
past them, one more finding counts the others (a server that asks without end holds no more)."""


class RefusedAsks(msgspec.Struct):
    """The 2025 server requests made during one call that mcp-verdict refuses, for that call's
    verdict: the findings (:func:`refused_findings`) of the first :data:`REFUSED_KEPT`, all
    counted. The proxy, the audit and the tap hold one per call the server asked during."""

    kept: list[tuple[Finding, ...]] = msgspec.field(default_factory=list)
    count: int = 0

    def add(self, found: tuple[Finding, ...]) -> None:
        self.count += 1
        if len(self.kept) < REFUSED_KEPT:
            self.kept.append(found)

    def extend(self, other: RefusedAsks) -> None:
        """``other``'s requests after these (ours all kept while the first are not all there)."""
        self.kept.extend(other.kept[:REFUSED_KEPT - len(self.kept)])
        self.count += other.count

    def findings(self) -> list[Finding]:
        """The kept requests' findings, then past them one counting the others."""
        found = [f for request in self.kept for f in request]
        if self.count > REFUSED_KEPT:
            found.append(finding("", found[-1].code if found else "input.request",
                                 f"the server made {self.count - REFUSED_KEPT} more requests mcp-verdict "
                                 f"refuses during the call (the first {REFUSED_KEPT} are above)"))
        return found

    def verdict(self, verdict: Verdict) -> Verdict:
        """The call's ``verdict`` with these findings after its own: ``unclassified`` (the
        client's rule: the server asked for what it must not)."""
        return make_verdict(Kind.UNCLASSIFIED, (*verdict.findings, *self.findings()), verdict.version,
                            verdict.message)


class RefusedCalls:
    """The calls during which a 2025 server made requests mcp-verdict refuses (:class:`RefusedAsks`
    of each), by the call's id key and its request's position (another request under that id is
    another call), for at most ``most`` calls at once (the oldest let go: a call whose answer never
    comes). The proxy's relay and the tap hold one per connection."""

    __slots__ = ("_held", "_most")

    def __init__(self, most: int) -> None:
        self._held: dict[Any, tuple[int, RefusedAsks]] = {}
        self._most = most

    def __bool__(self) -> bool:
        return bool(self._held)

    def __contains__(self, key: object) -> bool:
        return key in self._held

    def add(self, key: Any, seq: int, found: tuple[Finding, ...]) -> None:
        """The findings of one more request refused during the call ``key`` (its request at ``seq``)."""
        held = self._held.get(key)
        if held is None or held[0] != seq:
            self._held.pop(key, None)
            held = self._held[key] = (seq, RefusedAsks())
            if len(self._held) > self._most:
                del self._held[next(iter(self._held))]
        held[1].add(found)

    def verdict(self, key: Any, seq: int, verdict: Verdict) -> Verdict:
        """``verdict`` of the call ``key`` (its request at ``seq``) with the findings of the requests
        refused during it (:meth:`RefusedAsks.verdict`), which are let go; as it is when none were."""
        held = self._held.get(key)
        if held is None or held[0] != seq:
            return verdict
        del self._held[key]
        return held[1].verdict(verdict)


def _check_request(ctx: Context, request: object, path: str) -> None:
    if not isinstance(request, dict):
        ctx.add(path, "input.request", f"the input request is {describe(request)}, not an object")
        return
    method = request.get("method")
    if not isinstance(method, str) or method not in _CAPABILITY:
        ctx.add_member(request, "method", path, "input.request",
                       "; expected elicitation/create, sampling/createMessage or roots/list",
                       "the input request has no method")
        return
    if method == "elicitation/create" and not ctx.rules.elicitation_modes:
        ctx.add(pointer(path, "method"), "input.request",
                f"elicitation/create is not defined on {ctx.rules.version} (it arrived in 2025-06-18)")
        return
    check_extras(ctx, request, _REQUEST_KEYS, path, _PARAMS_DEPTH - 1)
    where = pointer(path, "params")
    params = request.get("params")
    if method == "roots/list":
        if "params" in request:
            _check_roots(ctx, params, where)
        _require_capability(ctx, path, "roots")
        return
    if not isinstance(params, dict):
        ctx.add_member(request, "params", path, "input.params", ", not an object", f"{method} needs params")
        return
    if ctx.rules.request_params:
        request_params(ctx, params, where)
    if method == "elicitation/create":
        mode = check_elicitation(ctx, params, where)
        if mode is not None:
            _require_capability(ctx, path, "elicitation", mode)
    else:
        tool_enabled = check_sampling(ctx, params, where)
        _require_capability(ctx, path, "sampling", "tools" if tool_enabled else None)


def _check_roots(ctx: Context, params: object, where: str) -> None:
    if not isinstance(params, dict):
        ctx.add(where, "input.params", f"params is {describe(params)}, not an object")
        return
    if "_meta" in params and not isinstance(params["_meta"], dict):
        ctx.add(pointer(where, "_meta"), "input.params", f"params._meta is {describe(params['_meta'])}, not an object")
        check_extras(ctx, params, frozenset({"_meta"}), where, _PARAMS_DEPTH)
        return
    if "_meta" in params:
        check_meta_keys(ctx, params["_meta"], pointer(where, "_meta"))
        if ctx.rules.progress_token:
            _progress_token(ctx, params["_meta"], pointer(where, "_meta"))
    check_value(ctx, params, where, _PARAMS_DEPTH)


def request_params(ctx: Context, params: Mapping[str, Any], where: str) -> None:
    """2025-11-25: an elicitation's or a sampling request's ``_meta`` (an object, its
    progressToken a string or an integer) and ``task`` (TaskMetadata: an object, its ttl an
    integer), type-checked here; ``_elicitation`` and ``_sampling`` walk them to the JSON rules
    as they walk every member they do not name."""
    defined = ctx.rules.request_params
    if "_meta" in params and "_meta" in defined:
        meta = params["_meta"]
        if not isinstance(meta, dict):
            ctx.add(pointer(where, "_meta"), "input.params", f"params._meta is {describe(meta)}, not an object")
        else:
            check_meta_keys(ctx, meta, pointer(where, "_meta"))
            if ctx.rules.progress_token:
                _progress_token(ctx, meta, pointer(where, "_meta"))
    if "task" in params and "task" in defined:
        task = params["task"]
        if not isinstance(task, dict):
            ctx.add(pointer(where, "task"), "input.params",
                    f"params.task is {describe(task)}; expected an object (TaskMetadata)")
        elif "ttl" in task and not is_integer(task["ttl"]):
            ctx.add(pointer(pointer(where, "task"), "ttl"), "input.params",
                    f"params.task.ttl is {describe(task['ttl'])}; expected an integer (milliseconds)", task["ttl"])


def _progress_token(ctx: Context, meta: Mapping[str, Any], where: str) -> None:
    """``_meta.progressToken`` of a JSON-RPC request's params: a string or an integer."""
    if "progressToken" in meta and not isinstance(meta["progressToken"], str) \
            and not is_integer(meta["progressToken"]):
        ctx.add(pointer(where, "progressToken"), "input.params",
                f"params._meta.progressToken is {describe(meta['progressToken'])}; expected a string or an integer",
                meta["progressToken"])


def _require_capability(ctx: Context, path: str, capability: str, mode: str | None = None) -> None:
    declared = ctx.options.client_capabilities
    if declared is None:
        return
    if capability not in declared:
        ctx.add(path, "input.capability",
                f"the client did not declare the {capability} capability; the server MUST NOT "
                "ask for it")
        return
    if mode is None:
        return
    declared_modes = declared[capability]
    if capability == "sampling":  # tool-enabled sampling needs sampling.tools
        if mode not in declared_modes:
            ctx.add(path, "input.capability",
                    "the client did not declare sampling.tools; the server MUST NOT send a "
                    "tool-enabled sampling request")
        return
    if "url" not in ctx.rules.elicitation_modes:  # 2025-06-18: the capability is an object of no modes
        return
    supported = _elicitation_modes(declared_modes)
    if mode not in supported:
        ctx.add(path, "input.capability",
                f"the client declared elicitation modes {sorted(supported) or 'none'}; "
                f"the server MUST NOT send a {mode}-mode elicitation")


def _elicitation_modes(declared: Mapping[str, Any]) -> set[str]:
    """The elicitation modes a client's ``elicitation`` capability declares: an empty object
    means form mode alone (client/elicitation#capabilities)."""
    return {"form"} if not declared else {m for m in ("form", "url") if m in declared}


def form_elicitation(capabilities: Mapping[str, Any]) -> bool:
    """A client declaring ``capabilities`` (already checked: ``elicitation`` is an object when
    present) may be sent a form-mode elicitation."""
    return "elicitation" in capabilities and "form" in _elicitation_modes(capabilities["elicitation"])

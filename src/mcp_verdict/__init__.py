"""mcp-verdict: what a Model Context Protocol ``tools/call`` actually produced.

>>> from mcp_verdict import classify, Kind
>>> classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}').kind
<Kind.UNCLASSIFIED: 'unclassified'>
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any, Final

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .client import CallRecord, CannotConnect, ElicitAnswer, HandlerError, Handlers, Round, VerdictClient
    from .judgement._check import ContentCheck, Expectation, ExpectationResult, SuspectMatch, check_output
    from .judgement._decide import DEFAULT_RETRY, POLICY, Action, Decision, PolicyRow, RetryPolicy, decide
    from .judgement._outcome import Attempt, Observation, Observe, Outcome, Stage, evaluate, run_observation, settle
    from .judgement._schema import DEFAULT_SCHEMA_LIMITS, SUPPORTED_DIALECTS, SchemaLimits
    from .judgement._suspect import DEFAULT_SUSPECTS, Suspect
    from .tap import VerdictError, VerdictTap
    from .verdict._classify import DEFAULT_LIMITS, AbsentResultType, Limits, OptionError, classify
    from .verdict._findings import RULES, Finding, Rule
    from .verdict._kind import Kind
    from .verdict._verdict import JSON, Verdict
    from .verdict._versions import LATEST_VERSION, TASKS_EXTENSION, VERSIONS
    from .verdict._views import (
        AudioBlock,
        ContentBlock,
        ElicitationRequest,
        EmbeddedResourceBlock,
        ErrorInfo,
        ImageBlock,
        InputRequest,
        ResourceLinkBlock,
        RootsRequest,
        SamplingRequest,
        TaskInfo,
        TaskStatus,
        TextBlock,
    )

_MODULES: Final[dict[str, tuple[str, ...]]] = {
    "verdict._classify": ("AbsentResultType", "DEFAULT_LIMITS", "Limits", "OptionError", "classify"),
    "verdict._kind": ("Kind",),
    "verdict._verdict": ("JSON", "Verdict"),
    "verdict._views": ("AudioBlock", "ContentBlock", "ElicitationRequest", "EmbeddedResourceBlock", "ErrorInfo",
                       "ImageBlock", "InputRequest", "ResourceLinkBlock", "RootsRequest", "SamplingRequest",
                       "TaskInfo", "TaskStatus", "TextBlock"),
    "verdict._findings": ("Finding", "RULES", "Rule"),
    "verdict._versions": ("LATEST_VERSION", "TASKS_EXTENSION", "VERSIONS"),
    "judgement._check": ("ContentCheck", "Expectation", "ExpectationResult", "SuspectMatch", "check_output"),
    "judgement._schema": ("DEFAULT_SCHEMA_LIMITS", "SUPPORTED_DIALECTS", "SchemaLimits"),
    "judgement._suspect": ("DEFAULT_SUSPECTS", "Suspect"),
    "judgement._outcome": ("Attempt", "Observation", "Observe", "Outcome", "Stage", "evaluate", "run_observation",
                           "settle"),
    "judgement._decide": ("Action", "DEFAULT_RETRY", "Decision", "POLICY", "PolicyRow", "RetryPolicy", "decide"),
    "client": ("CallRecord", "CannotConnect", "ElicitAnswer", "HandlerError", "Handlers", "Round", "VerdictClient"),
    "tap": ("VerdictError", "VerdictTap"),
}
_WHERE: Final = {name: module for module, names in _MODULES.items() for name in names}
"""Where each public name lives. ``import mcp_verdict`` imports none of it: a name loads its
module on first use (PEP 562), so ``from mcp_verdict import classify`` pays for the verdict
layer alone, and the client's names (extra ``[client]``) load the SDK only when touched."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_verdict' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [  # noqa: RUF022 - grouped: the core, then the client
    "DEFAULT_LIMITS",
    "DEFAULT_RETRY",
    "DEFAULT_SCHEMA_LIMITS",
    "DEFAULT_SUSPECTS",
    "JSON",
    "LATEST_VERSION",
    "POLICY",
    "RULES",
    "SUPPORTED_DIALECTS",
    "TASKS_EXTENSION",
    "VERSIONS",
    "AbsentResultType",
    "Action",
    "Attempt",
    "AudioBlock",
    "ContentBlock",
    "ContentCheck",
    "Decision",
    "ElicitationRequest",
    "EmbeddedResourceBlock",
    "ErrorInfo",
    "Expectation",
    "ExpectationResult",
    "Finding",
    "ImageBlock",
    "InputRequest",
    "Kind",
    "Limits",
    "Observation",
    "Observe",
    "OptionError",
    "Outcome",
    "PolicyRow",
    "ResourceLinkBlock",
    "RetryPolicy",
    "RootsRequest",
    "Rule",
    "SamplingRequest",
    "SchemaLimits",
    "Stage",
    "Suspect",
    "SuspectMatch",
    "TaskInfo",
    "TaskStatus",
    "TextBlock",
    "Verdict",
    "__version__",
    "CallRecord",
    "CannotConnect",
    "ElicitAnswer",
    "HandlerError",
    "Handlers",
    "Round",
    "VerdictClient",
    "VerdictError",
    "VerdictTap",
    "check_output",
    "classify",
    "decide",
    "evaluate",
    "run_observation",
    "settle",
]

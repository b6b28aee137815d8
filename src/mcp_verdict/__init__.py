"""mcp-verdict: what a Model Context Protocol ``tools/call`` actually produced.

>>> from mcp_verdict import classify, Kind
>>> classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}').kind
<Kind.UNCLASSIFIED: 'unclassified'>
"""

from typing import TYPE_CHECKING, Any, Final

from .judgement._check import ContentCheck, Expectation, ExpectationResult, SuspectMatch, check_output
from .judgement._decide import DEFAULT_RETRY, POLICY, Action, Decision, PolicyRow, RetryPolicy, decide
from .judgement._outcome import Attempt, Observation, Observe, Outcome, Stage, evaluate, run_observation, settle
from .judgement._schema import DEFAULT_SCHEMA_LIMITS, SUPPORTED_DIALECTS, SchemaLimits
from .judgement._suspect import DEFAULT_SUSPECTS, Suspect
from .verdict._classify import DEFAULT_LIMITS, AbsentResultType, Limits, classify
from .verdict._findings import RULES, Finding, Rule
from .verdict._kind import Kind
from .verdict._verdict import (
    JSON,
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
    Verdict,
)
from .verdict._versions import LATEST_VERSION, TASKS_EXTENSION, VERSIONS

if TYPE_CHECKING:
    from .client import CallRecord, CannotConnect, ElicitAnswer, HandlerError, Handlers, Round, VerdictClient

__version__ = "0.1.0"

_CLIENT: Final = frozenset({"CallRecord", "CannotConnect", "ElicitAnswer", "HandlerError", "Handlers", "Round",
                            "VerdictClient"})


def __getattr__(name: str) -> Any:
    """The client's names load on first use: the core does not import the SDK."""
    if name in _CLIENT:
        from . import client

        return getattr(client, name)
    raise AttributeError(f"module 'mcp_verdict' has no attribute {name!r}")

__all__ = [  # noqa: RUF022 - grouped: the core, then the client (loaded lazily)
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
    "check_output",
    "classify",
    "decide",
    "evaluate",
    "run_observation",
    "settle",
]

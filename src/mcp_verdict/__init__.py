"""mcp-verdict: what a Model Context Protocol ``tools/call`` actually produced.

>>> from mcp_verdict import classify, Kind
>>> classify(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}').kind
<Kind.UNCLASSIFIED: 'unclassified'>
"""

from ._classify import DEFAULT_LIMITS, AbsentResultType, Limits, classify
from ._findings import RULES, Finding, Rule
from ._kind import Kind
from ._verdict import (
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
from ._versions import LATEST_VERSION, TASKS_EXTENSION, VERSIONS

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_LIMITS",
    "JSON",
    "LATEST_VERSION",
    "RULES",
    "TASKS_EXTENSION",
    "VERSIONS",
    "AbsentResultType",
    "AudioBlock",
    "ContentBlock",
    "ElicitationRequest",
    "EmbeddedResourceBlock",
    "ErrorInfo",
    "Finding",
    "ImageBlock",
    "InputRequest",
    "Kind",
    "Limits",
    "ResourceLinkBlock",
    "RootsRequest",
    "Rule",
    "SamplingRequest",
    "TaskInfo",
    "TaskStatus",
    "TextBlock",
    "Verdict",
    "__version__",
    "classify",
]

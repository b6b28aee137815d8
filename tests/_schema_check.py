"""What the outputSchema tests share: an answer whose structuredContent is checked, a tool
declaring a schema, and the check of a table row's expected first finding."""

from __future__ import annotations

from typing import Any

from mcp_verdict import ContentCheck, Verdict, classify


def complete(structured: Any) -> Verdict:
    """The verdict on a 2026-07-28 complete result carrying ``structured``."""
    return classify({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [],
                                                            "structuredContent": structured}})


def tool(schema: Any) -> dict[str, Any]:
    """A tool whose outputSchema is ``schema``."""
    return {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}


def assert_first_finding(check: ContentCheck, codes: tuple[str, ...], path: str | None, fragment: str | None) -> None:
    """``check`` found ``codes``, the first at ``path`` with ``fragment`` in its message; or,
    with no codes, passed."""
    assert check.codes == codes, check.findings
    if codes:
        assert check.findings[0].path == path
        assert fragment is not None and fragment in check.findings[0].message
    else:
        assert check.passed

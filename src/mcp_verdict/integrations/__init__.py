"""Adapters: the verdict inside the stacks people call MCP tools through, one module per stack.

- ``fastmcp``: :class:`StrictTransport` for ``fastmcp.Client`` and :class:`VerdictMiddleware`
  for FastMCP proxies (extra ``[fastmcp]``);
- ``pydantic_ai``: :func:`strict_toolset` and the ``process_tool_call`` hook for pydantic-ai's MCP
  servers (extra ``[pydantic-ai]``);
- ``openai_agents``: :class:`StrictMCPServerStdio` and :class:`StrictMCPServerStreamableHttp`
  (extra ``[openai-agents]``);
- ``langchain``: the connection's ``httpx_client_factory``, a ``ToolCallInterceptor`` and a stdio
  session helper for langchain-mcp-adapters (extra ``[langchain]``, beside mcp 1.x);
- the official SDK needs no adapter: the tap (``mcp_verdict.tap``) is its recipe.

Each module checks its extra before importing its stack (``import mcp_verdict.integrations``
loads none). ``_policy`` holds what they share: what each outcome becomes in a stack's idiom.

May import: the verdict, judgement, frames and tap layers; the stacks named above, the official
SDK, pydantic, anyio and the HTTP clients.
"""

LAYER_CONTRACT = {
    "layers": ("verdict", "judgement", "frames", "tap"),
    "libraries": ("anyio", "mcp", "mcp_types", "pydantic", "httpx", "httpx2", "fastmcp", "pydantic_ai", "agents",
                  "langchain_core", "langchain_mcp_adapters"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

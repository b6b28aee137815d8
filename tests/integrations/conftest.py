"""The integration tests: the real stacks against real servers started here on 127.0.0.1.

``mcp1/`` holds the tests that need the SDK's 1.x line (langchain-mcp-adapters pins ``mcp<2``):
they run in ``.venvs/mcp1``, driven by ``test_mcp1_suite.py``; in an environment with mcp 2.x
they are not collected.
"""

from __future__ import annotations

import importlib.metadata

try:
    _MAJOR = int(importlib.metadata.version("mcp").split(".")[0])
except importlib.metadata.PackageNotFoundError:
    _MAJOR = 0

collect_ignore_glob = ["mcp1/*"] if _MAJOR != 1 else ["test_*.py"]

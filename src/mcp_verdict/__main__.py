"""``python -m mcp_verdict``: the same command line as ``mcp-verdict``."""

from .cli import main

if __name__ == "__main__":
    main()

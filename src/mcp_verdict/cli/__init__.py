"""The ``mcp-verdict`` command line: reads files and peers, prints, exits.

Holds the commands (``classify``, ``conform``, ``mutants`` on the core; ``call``, ``tools`` and
``demo`` on the client, loaded only when run) and the terminal-safe printing of peer text.
May import every layer; the client-side commands import the client (and so the SDK) lazily,
so ``mcp-verdict --help`` and ``classify`` never load it.
"""

from ._main import EXIT_CODES, main

LAYER_CONTRACT = {
    "layers": ("verdict", "judgement", "corpus", "kit", "client", "demo", "proxy", "audit"),
    "libraries": ("click", "rich", "anyio", "jiter"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = ["EXIT_CODES", "main"]

"""The judgement: from a verdict to what the application should believe and do (sans-I/O).

Holds the content check (``_check``: the tool's outputSchema and the caller's expectations),
JSON Schema as MCP uses it (``_schema``: dialects, local references, two engines, the rules;
``_schema_bounds``: a schema's bounds and references counted before any validator is built, the
annotations left out; ``_schema_cost``: what an instance may cost jsonschema-rs, which picks the
engine; ``_keywords``: the keywords both engines must decide alike; ``_patterns``: regular
expressions on a bounded engine), the
error-shaped-success heuristics (``_suspect``), the decision policy (``_decide``: one table,
first match wins) and the Outcome with its observation of a write's completion (``_outcome``;
it builds on ``_decide``, never the other way round).

May import: the verdict layer and the standard library; orjson (the canonical text a compiled
schema is cached by; the verdict has loaded it already); jsonschema-rs, and the ``jsonschema``
package (with ``referencing``) only where a schema holds ``$ref``; anyio for the observation's
sleeps and timeouts. Every library loads on first use, not at import. Never an edge.
"""

LAYER_CONTRACT = {
    "layers": ("verdict",),
    "libraries": ("orjson", "jsonschema_rs", "jsonschema", "referencing", "anyio"),
}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

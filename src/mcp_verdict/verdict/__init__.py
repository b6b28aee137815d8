"""The verdict: one ``tools/call`` response in, one immutable :class:`Verdict` out (sans-I/O).

Holds the wire reader (``_parser``: UTF-8, standard JSON, duplicate keys, limits), the rules,
each in the module named for what it inspects (``_envelope``, ``_error``, ``_result``,
``_meta``, ``_meta_keys``, ``_content``, ``_icons``, ``_input``, ``_elicitation``, ``_sampling``,
``_task``)
and the order the full checker runs them in (``_check``; with them, loaded on its first run),
the facts that differ per protocol version
(``_versions``), the checked options of a call and the skim's bound (``_options``), the
finding catalogue (``_findings``, built on first use), the walk over open-shaped values
(``_walk``) and the count of a value's values with its shared references (``_nodes``), the
Verdict value (``_verdict``) and its typed views (``_views``, loaded on first use), the fast
path that knows no rule (``_fastpath`` on wire text, ``_common_kind`` on parsed values),
``classify`` itself (``_classify``: the function, ``Limits`` and ``OptionError``, all an import of
classify loads, with ``_versions`` and ``_frozen``, the plain immutable class of ``Limits`` and
``VersionRules``: no msgspec), what its first call loads (``_judge``: the options checked and
held, the judging the fast path leaves), how peer text is shown on a terminal (``_peer_text``: what
the CLI and the kit print of it), and the one bounded writer of a
value of any size, depth or kind into a message (``_shown``: a wrong option's value, a match's
evidence, a caller's exception, and ``unreadable``: the one OptionError for a caller's value
whose reading raises).

May import: the standard library (no I/O, no threads, no processes), msgspec, orjson and jiter,
and its own modules only — never another layer of mcp_verdict (a mutant of the kill table is a
copy of this folder alone). Pure functions over immutable values; no global state but memos of
pure functions.
"""

LAYER_CONTRACT = {"layers": (), "libraries": ("msgspec", "orjson", "jiter")}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

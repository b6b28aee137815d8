"""The ``_meta`` key name format, on every ``_meta`` object a response carries (since 2025-06-18).

Rule (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta, "Key name
format"; the same text on 2025-06-18 and 2025-11-25, none before): a key is an optional
**prefix** then a **name**. The prefix, if specified, "MUST be a series of labels separated by
dots (``.``), followed by a slash (``/``)", each label starting with a letter and ending with a
letter or digit, letters, digits and hyphens inside. The name, "unless empty, MUST begin and end
with an alphanumeric character (``[a-z0-9A-Z]``)" and may hold hyphens, underscores, dots and
alphanumerics in between. So ``com.example/trace-id``, ``progressToken``, ``a.b.c`` and the empty
key are names; ``_fastmcp`` (an underscore first), ``openai/toolInvocation/invoking`` (a slash in
the name), ``my key`` and ``com..example/x`` are not.

The schema's ``_meta`` objects are open (``{[key: string]: unknown}``), and the values at such a
key are the peer's own: a key out of format changes nothing the verdict reads, so it is a
warning (``meta.key_name``, one per ``_meta`` object, naming its first such key and how many),
never a reason to distrust a result. Real tool results carry such keys: OpenAI's Apps SDK
examples return ``openai/toolInvocation/invoking`` and ``…/invoked`` in a ``CallToolResult``'s
``_meta`` (openai/openai-apps-sdk-examples, ``pizzaz_server_python/main.py``); an error here
would refuse every such answer. Which objects are ``_meta`` objects is each module's own
(``_meta``: the result's; ``_content``: a block's and a resource's; ``_sampling``: a message's,
a block's and a tool's; ``_input``: a request's params'); each calls ``_meta.check_meta_keys``
(this rule's :func:`check_key_names`, then ``_trace_context``'s), and the fast paths
(``_fastpath``, ``_common_kind``) take a result ``_meta`` only when :func:`key_names_valid`
holds. This module imports no checker of the package at run time (``_findings`` alone, which
the fast path loads anyway), so the fast path's first call loads none with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ._findings import pointer, quoted

if TYPE_CHECKING:
    from ._walk import Context

_LABEL: Final = r"[A-Za-z][A-Za-z0-9-]*+(?<!-)"
# Possessive quantifiers throughout: one way to match any text, so the time is linear in the
# key's length whatever it holds (a prefix, once matched, has taken the one slash a key may hold,
# so giving it back could never make a name of the rest), and a prefix is tried only where a slash
# follows (the lookahead: a name of dots, such as "a.a.a", is not read as labels first).
_KEY_NAME: Final = (rf"(?:(?=[^/\n]*+/){_LABEL}(?:\.{_LABEL})*+/)?+"
                    r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*+(?<![._-]))?+)?+")


@functools.cache
def _matchers() -> tuple[Callable[[str], re.Match[str] | None], ...]:
    """``fullmatch`` of: a key name; keys joined by newlines, each a key name; keys joined by
    newlines, each letters and digits alone (a name, always); a prefix label; a name's
    characters; and ``match`` of the labels, each with its dot, that begin a prefix. Compiled by
    the first ``_meta`` met (~2 ms, which a response without one need not pay)."""
    patterns = (_KEY_NAME, rf"(?:{_KEY_NAME}\n)*+{_KEY_NAME}", r"[A-Za-z0-9\n]*+", _LABEL, r"[A-Za-z0-9._-]*+")
    return (*(re.compile(pattern).fullmatch for pattern in patterns), re.compile(rf"(?:{_LABEL}\.)*+").match)


_JOINED: Final = 8
"""From this many keys on, they are matched joined (a pattern over all, without a call a key)."""


def key_names_valid(meta: Mapping[Any, Any]) -> bool:
    """Every key of ``meta`` is a string in the key name format. A few keys are matched one by
    one; more, joined by newlines and matched at once (a key holding a newline is out of format,
    and told by the count of them): ~0.03 µs a key of letters and digits, ~0.15 µs another. A
    long key costs ~3 ns a character of a name (one by one; ~7 ns joined) and ~12 ns of a prefix
    of one-letter labels (a pattern group a label): linear, but past ``orjson.loads``' ~0.5 ns a
    character of a string (docs/performance-history.md, stop 51)."""
    key, keys, plain = _matchers()[:3]
    try:
        if len(meta) < _JOINED:
            return all(map(key, meta))  # (a match object is true, even an empty key's)
        text = "\n".join(meta)
    except TypeError:  # a key that is no string (a caller's dict)
        return False
    return text.count("\n") == len(meta) - 1 and (plain(text) is not None or keys(text) is not None)


def check_key_names(ctx: Context, meta: Mapping[Any, Any], path: str) -> None:
    """On versions with the format (``VersionRules.meta_key_names``), one ``meta.key_name``
    warning for the ``_meta`` object ``meta`` at ``path`` if any of its string keys is out of
    format (a key that is no string is the JSON rules', reported where the object is walked)."""
    if not ctx.rules.meta_key_names or key_names_valid(meta):
        return
    valid = _matchers()[0]
    bad = (key for key in meta if type(key) is str and valid(key) is None)  # (no list: a count and the first)
    first = next(bad, None)
    if first is None:
        return
    count = 1 + sum(1 for _ in bad)
    more = f" ({count} keys of this _meta are out of format)" if count > 1 else ""
    ctx.add(pointer(path, first), "meta.key_name",
            f"the _meta key {quoted(first)} is out of the key name format: {_fault(first)}{more}")


def _fault(key: str) -> str:
    """Why ``key`` is out of format, in words (the first fault, reading left to right)."""
    prefix, slash, name = key.partition("/")
    if not slash:
        prefix, name = "", key
    elif "/" in name:
        return "it holds more than one '/' (a prefix ends at the only one; a name holds none)"
    if slash:  # the labels in format, each with its dot, read at once: the next is the first out of it
        dotted = _matchers()[5](prefix)
        label, dot, _ = prefix[dotted.end() if dotted else 0:].partition(".")
        if not label:
            return "its prefix has an empty label (a prefix is dot-separated labels, then '/')"
        if dot or _matchers()[3](label) is None:
            return (f"its prefix label {quoted(label)} is not a letter, then letters, digits or hyphens, "
                    "ending with a letter or digit")
    if not _matchers()[4](name):
        return f"its name {quoted(name)} holds a character other than letters, digits, '-', '_' and '.'"
    return f"its name {quoted(name)} does not begin and end with a letter or digit"

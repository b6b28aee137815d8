"""A peer's invisible characters are shown, never printed raw: the zero-width space (U+200B),
the word joiner and the invisible operators (U+2060-U+2064), the zero-width no-break space
(U+FEFF) and the Mongolian vowel separator (U+180E) draw nothing, so a tool name, a message or a
text holding one reads as another (``read\\u200bfile`` as ``readfile``; CVE-2021-42694). They are
written as their ``\\uXXXX`` escapes on a terminal and in ``--json`` output (where the escape is the
same JSON string), as the bidi controls are. Before, each was printed as it was. The zero-width
joiner and non-joiner (U+200D, U+200C), which draw emoji sequences and Arabic, Persian and Indic
words, are kept. Real processes (``mcp-verdict classify`` on stdin); expected text by hand."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from mcp_verdict.verdict._peer_text import neutral, one_line

from .terminal import CLI
from .test_client_transport_faults import ROOT

# (case: the peer's text; how it is shown)
SHOWN: dict[str, tuple[str, str]] = {
    "a zero-width space": ("read\u200bfile", "read\\u200bfile"),
    "a word joiner": ("a\u2060b", "a\\u2060b"),
    "the invisible operators": ("f\u2061x\u2062y\u2063z\u2064w", "f\\u2061x\\u2062y\\u2063z\\u2064w"),
    "a zero-width no-break space (a byte order mark inside a text)": ("\ufeffok", "\\ufeffok"),
    "a Mongolian vowel separator": ("a\u180eb", "a\\u180eb"),
    "the zero-width joiner in an emoji sequence, kept": ("\U0001f469\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),
    "the zero-width non-joiner in a Persian word, kept": ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
                                                          "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"),
    "a bidi override, as before": ("\u202eevil", "\\u202eevil"),
}


@pytest.mark.parametrize("case", list(SHOWN))
def test_neutral_shows_an_invisible_character(case: str) -> None:
    text, shown = SHOWN[case]
    assert (neutral(text), one_line(text)) == (shown, shown)


MESSAGE = "read\u200bfile \u2060\u2061\u2062\u2063\u2064 \ufeff \u180e \U0001f469\u200d\U0001f4bb"
RESPONSE = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": MESSAGE}}).encode()
# (case: the arguments; the line stdout holds)
LINES: dict[str, tuple[list[str], str]] = {
    "terminal text": (
        [], "protocol_error  code -32000: read\\u200bfile \\u2060\\u2061\\u2062\\u2063\\u2064 \\ufeff \\u180e "
            "\U0001f469\u200d\U0001f4bb"),
    "--json": (
        ["--json"], '"message": "read\\u200bfile \\u2060\\u2061\\u2062\\u2063\\u2064 \\ufeff \\u180e '
                    '\U0001f469\u200d\U0001f4bb"'),
}


@pytest.mark.parametrize("case", list(LINES))
def test_classify_shows_a_peers_invisible_characters(case: str) -> None:
    arguments, line = LINES[case]
    done = subprocess.run([*CLI, "classify", *arguments, "-"], input=RESPONSE, capture_output=True, cwd=ROOT,
                          timeout=60, check=False, env={**os.environ, "COLUMNS": "200"})
    out = done.stdout.decode()
    assert (done.returncode, done.stderr) == (13, b"")
    assert line in out, out
    if arguments:
        assert json.loads(out)["error"]["message"] == MESSAGE  # the same JSON string

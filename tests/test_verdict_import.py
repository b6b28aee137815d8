"""What ``from mcp_verdict import classify`` imports, and what the first call of each path adds.

Issue #11 section 4: the import of classify ≤ 30 ms above a bare interpreter. msgspec, whose
import costs more than the rest of the import together, is imported by the first call (its readers
and the verdict value are msgspec's); so is ``inspect``, which msgspec imports and classify's
signature no longer needs. The libraries only
some paths need are imported by the first call that takes one: jiter by the strict reader (the
common answers are proven by the fast path and never reach it), orjson by the fast path's first
write-back (or its first read of a long json.dumps-written text, or the error path's naming of a
member), json and bisect by the error path alone. Each row runs in a fresh interpreter and
prints the verdict and which of those modules are loaded; the verdict is the one the strict
reader gives (README, "The wire"), whichever call imported what.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

DEFERRED = ("jiter", "orjson", "json", "bisect", "dataclasses", "msgspec", "inspect")
"""The modules an import of classify does not load (json and dataclasses are also orjson's own
imports; the catalogue's Rule and Finding are msgspec Structs, not dataclasses; inspect is
msgspec's)."""

COMPACT = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}'
DUPLICATE = b'{"jsonrpc":"2.0","id":1,"id":2,"result":{"resultType":"complete","content":[]}}'
TRAILING_COMMA = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[1,]}}'
# json.dumps' spaced writing, longer than the 4 KiB the fast path proves by other means:
# orjson reads it and the quote count proves it (_fastpath.read_quoted)
SPACED = json.dumps({"jsonrpc": "2.0", "id": 1,
                     "result": {"resultType": "complete", "content": [{"type": "text", "text": "x" * 5000}]}}).encode()

_PROGRAM = """\
import sys
from mcp_verdict import classify
before = sorted(m for m in {deferred!r} if m in sys.modules)
verdict = None if {response!r} is None else classify({response!r})
after = sorted(m for m in {deferred!r} if m in sys.modules)
shown = None if verdict is None else (verdict.kind.value, [(f.code, f.path) for f in verdict.findings])
print(repr((before, after, shown)))
"""


@pytest.mark.parametrize(("name", "response", "loaded_by_the_call", "verdict"), [
    # the import alone: none of them
    ("import only", None, [], None),
    # a compact answer as the SDKs write it: the write-back proof (orjson.dumps), no strict reader
    ("compact text block", COMPACT, ["dataclasses", "inspect", "json", "msgspec", "orjson"], ("normal_complete", [])),
    # a repeated member name: msgspec's typed read keeps the last copy, so the write-back cannot
    # prove it; the strict reader (jiter) finds it (RFC 8259 s4) and the error path names the
    # member (orjson reads the member names; json and bisect are the error path's own)
    ("duplicate id", DUPLICATE, ["bisect", "dataclasses", "inspect", "jiter", "json", "msgspec", "orjson"],
     ("unclassified", [("json.duplicate_key", "/id")])),
    # not JSON (RFC 8259 s2): the typed read fails before any write-back; jiter finds the error
    # and the error path names the element it is in
    ("trailing comma", TRAILING_COMMA, ["bisect", "dataclasses", "inspect", "jiter", "json", "msgspec", "orjson"],
     ("unclassified", [("json.syntax", "/result/content/1")])),
    # a long spaced text: orjson.loads and the quote count, no strict reader
    ("long json.dumps text", SPACED, ["dataclasses", "inspect", "json", "msgspec", "orjson"],
     ("normal_complete", [])),
])
def test_classify_imports_a_library_with_the_first_call_that_needs_it(
        name: str, response: bytes | None, loaded_by_the_call: list[str],
        verdict: tuple[str, list[tuple[str, str]]] | None) -> None:
    program = _PROGRAM.format(deferred=DEFERRED, response=response)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    before, after, shown = ast.literal_eval(done.stdout)
    assert (before, after, shown) == ([], loaded_by_the_call, verdict)


RULE_MODULES = ("_check", "_content", "_elicitation", "_envelope", "_error", "_icons", "_input", "_meta", "_parser",
                "_result", "_sampling", "_task", "_trace_context", "_views", "_walk")
"""The verdict layer's modules an import of classify does not load: the strict reader
(``_parser``), imported by its first read; the full checker's rules (``_check`` and the modules
named for what they inspect) with its state and walk (``_walk``), imported by its first run;
the typed views, imported by the first accessor that hands one out."""

IS_ERROR_TEXT = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":"false"}}'
# a colon written as an escape: neither the write-back nor the colon count proves the typed read
# (_fastpath's module docstring), the strict reader does
ESCAPED_COLON = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",'
                 b'"content":[{"type":"text","text":"a\\u003ab"}]}}')

_RULES_PROGRAM = """\
import sys
from mcp_verdict import classify
def loaded():
    return sorted(m for m in {modules!r} if "mcp_verdict.verdict." + m in sys.modules)
before = loaded()
verdict = None if {response!r} is None else classify({response!r}, **{options!r})
after = loaded()
shown = None if verdict is None else (verdict.kind.value, [(f.code, f.path) for f in verdict.findings])
print(repr((before, after, shown)))
"""


@pytest.mark.parametrize(("name", "response", "options", "loaded_by_the_call", "verdict"), [
    # the import alone: no rule's module
    ("import only", None, {}, [], None),
    # a compact answer the write-back proves: neither the strict reader nor the rules run
    ("compact text block", COMPACT, {}, [], ("normal_complete", [])),
    # the strict reader proves the fast path's read; no rule runs
    ("escaped colon", ESCAPED_COLON, {}, ["_parser"], ("normal_complete", [])),
    # isError "false" is no JSON boolean (server/tools#error-handling): the fast path leaves it to
    # the strict reader and the full checker, whose first run imports every rule's module (the
    # views stay unloaded)
    ("full checker", IS_ERROR_TEXT, {},
     ["_check", "_content", "_elicitation", "_envelope", "_error", "_icons", "_input", "_meta", "_parser",
      "_result", "_sampling", "_task", "_trace_context", "_walk"],
     ("unclassified", [("result.is_error", "/result/isError")])),
    # capabilities given: whether form-mode elicitation is declared is _input's rule, imported
    # with the modules it imports (the rules of every _meta object's keys among them); the answer
    # itself is the fast path's
    ("capabilities given", COMPACT, {"client_capabilities": {}},
     ["_content", "_elicitation", "_icons", "_input", "_meta", "_sampling", "_trace_context", "_walk"],
     ("normal_complete", [])),
])
def test_classify_imports_the_rules_with_the_first_call_that_runs_them(
        name: str, response: bytes | None, options: dict[str, object], loaded_by_the_call: list[str],
        verdict: tuple[str, list[tuple[str, str]]] | None) -> None:
    program = _RULES_PROGRAM.format(modules=RULE_MODULES, response=response, options=options)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    before, after, shown = ast.literal_eval(done.stdout)
    assert (before, after, shown) == ([], loaded_by_the_call, verdict)


_CATALOGUE_PROGRAM = """\
import sys
from mcp_verdict import classify
def built():  # (the module itself is loaded by the first call)
    findings = sys.modules.get("mcp_verdict.verdict._findings")
    return findings is not None and "RULES" in vars(findings)
before = built()
verdict = None if {response!r} is None else classify({response!r})
after = built()
shown = None if verdict is None else (verdict.kind.value, [(f.code, f.severity) for f in verdict.findings])
print(repr((before, after, shown)))
"""


@pytest.mark.parametrize(("name", "response", "built_by_the_call", "verdict"), [
    # the import alone: the catalogue of finding codes (RULES) is not built
    ("import only", None, False, None),
    # an answer without findings needs no rule's severity
    ("compact text block", COMPACT, False, ("normal_complete", [])),
    # the first finding reads its severity from the catalogue (RFC 8259 s4: json.duplicate_key, an error)
    ("duplicate id", DUPLICATE, True, ("unclassified", [("json.duplicate_key", "error")])),
])
def test_the_catalogue_is_built_by_the_first_finding(
        name: str, response: bytes | None, built_by_the_call: bool,
        verdict: tuple[str, list[tuple[str, str]]] | None) -> None:
    program = _CATALOGUE_PROGRAM.format(response=response)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    before, after, shown = ast.literal_eval(done.stdout)
    assert (before, after, shown) == (False, built_by_the_call, verdict)


_MODULES_PROGRAM = """\
import sys
from mcp_verdict import classify
def loaded():
    return sorted(m for m in sys.modules if m.startswith("mcp_verdict"))
before = loaded()
verdict = None if {response!r} is None else classify({response!r})
print(repr((before, loaded(), None if verdict is None else verdict.kind.value)))
"""

_FRONT = ["mcp_verdict", "mcp_verdict.verdict", "mcp_verdict.verdict._classify", "mcp_verdict.verdict._frozen",
          "mcp_verdict.verdict._versions"]
"""What an import of classify loads of the package: the function, its options' types and errors
(``_classify``, with ``_frozen`` for ``Limits``), the versions it knows (``_versions``)."""
_FIRST_CALL = ["mcp_verdict.verdict._common_kind", "mcp_verdict.verdict._fastpath", "mcp_verdict.verdict._findings",
               "mcp_verdict.verdict._judge", "mcp_verdict.verdict._kind", "mcp_verdict.verdict._meta_keys",
               "mcp_verdict.verdict._nodes", "mcp_verdict.verdict._options", "mcp_verdict.verdict._verdict"]
"""What the first call adds on the fast path: its options checked (``_judge``, ``_options``), the
fast path's readers and kinds, the verdict value and the finding type (msgspec's Structs), and
the ``_meta`` key name format the fast path holds a result's ``_meta`` to (its patterns compiled
by the first ``_meta`` met, not by the import)."""


@pytest.mark.parametrize(("name", "response", "after", "kind"), [
    ("import only", None, _FRONT, None),
    # the common answer, proven by the fast path: the readers and the verdict, no strict reader
    ("compact text block", COMPACT, sorted(_FRONT + _FIRST_CALL), "normal_complete"),
    # a repeated member name: the strict reader (_parser) finds it (RFC 8259 s4)
    ("duplicate id", DUPLICATE, sorted([*_FRONT, *_FIRST_CALL, "mcp_verdict.verdict._parser"]), "unclassified"),
])
def test_the_import_of_classify_loads_its_front_and_the_first_call_the_rest(
        name: str, response: bytes | None, after: list[str], kind: str | None) -> None:
    program = _MODULES_PROGRAM.format(response=response)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert ast.literal_eval(done.stdout) == (_FRONT, after, kind)

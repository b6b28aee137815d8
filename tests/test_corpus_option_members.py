"""A corpus line's options named member by member at any depth, from classify's own option
errors (``OptionError.option``): a capability member classify reads that is no object
(``client_capabilities.elicitation.form``) is named where it is, every wrong one of them at
once; extensions given as an object (the capabilities' ``{id: settings}``), an empty string or
an empty object are refused, where they were read as their keys or as no extension at all.

Each table holds the exact message, written by hand (after ``mine.jsonl:1: ``)."""

from __future__ import annotations

import json

import pytest

from mcp_verdict import corpus
from mcp_verdict.corpus import CorpusError

GOOD = {"id": "mine/ok", "version": "2026-07-28",
        "input": {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}},
        "expect": "normal_complete", "spec": "2026-07-28/schema#calltoolresult", "description": "a plain success"}
TASKS = "io.modelcontextprotocol/tasks"


def _with_options(**options: object) -> bytes:
    return json.dumps({**GOOD, "options": options}).encode()


# (id, the line, the problems)
LINES: list[tuple[str, bytes, list[str]]] = [
    ("form false", _with_options(client_capabilities={"elicitation": {"form": False}}),
     ["options.client_capabilities.elicitation.form: expected an object, got false"]),
    ("every wrong member at any depth", _with_options(client_capabilities={
        "elicitation": {"form": False, "url": 1}, "sampling": {"tools": True, "context": {}}, "roots": [],
        "experimental": {"x": 1}}),
     ["options.client_capabilities.elicitation.form: expected an object, got false",
      "options.client_capabilities.elicitation.url: expected an object, got 1",
      "options.client_capabilities.sampling.tools: expected an object, got true",
      "options.client_capabilities.roots: expected an object, got []"]),
    ("context null", _with_options(client_capabilities={"sampling": {"context": None}}),
     ["options.client_capabilities.sampling.context: expected an object, got null"]),
    ("extensions the capabilities' object", _with_options(extensions={TASKS: {}}),
     [f'options.extensions: expected an iterable of extension id strings, got {{"{TASKS}": {{}}}}']),
    ("extensions an empty object", _with_options(extensions={}),
     ["options.extensions: expected an iterable of extension id strings, got {}"]),
    ("extensions an empty string", _with_options(extensions=""),
     ['options.extensions: expected an iterable of extension id strings, got ""']),
    ("extensions false", _with_options(extensions=False),
     ["options.extensions: expected an iterable of extension id strings, got false"]),
    ("extensions 0", _with_options(extensions=0),
     ["options.extensions: expected an iterable of extension id strings, got 0"]),
    ("an extension an object, one a boolean", _with_options(extensions=[{}, TASKS, True]),
     ["options.extensions[0]: expected an extension id string, got {}",
      "options.extensions[2]: expected an extension id string, got true"]),
]


@pytest.mark.parametrize(("data", "problems"), [row[1:] for row in LINES], ids=[row[0] for row in LINES])
def test_a_bad_option_member_is_named_where_it_is(data: bytes, problems: list[str]) -> None:
    with pytest.raises(CorpusError) as caught:
        corpus._load_files([("mine.jsonl", data)])
    shown = [f"mine.jsonl:1: {problem}" for problem in problems]
    expected = shown[0] if len(shown) == 1 else "\n  ".join([f"{len(shown)} problems in the corpus data:", *shown])
    assert str(caught.value) == expected


# good options, each member an object where classify reads one → the case loads
GOOD_OPTIONS: list[dict[str, object]] = [
    {"client_capabilities": {"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}, "context": {}},
                             "roots": {"listChanged": True}}},
    {"client_capabilities": {}, "extensions": []},
    {"extensions": [TASKS]},
]


@pytest.mark.parametrize("options", GOOD_OPTIONS)
def test_good_options_load(options: dict[str, object]) -> None:
    (case,) = corpus._load_files([("mine.jsonl", _with_options(**options))])
    assert case.id == "mine/ok"

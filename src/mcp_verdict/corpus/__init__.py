"""The labelled corpus: responses to ``tools/call`` with the verdict each one must get.

Every case is package data (``data/*.jsonl``, one JSON object per line) with a label written
by hand: the expected kind, the finding code that must explain an ``unclassified`` label,
and the specification text it rests on. A line may list several ``versions``; it then
stands for one case per version (``<id>@<version>``), all with the label stated on the line.
Labels are never produced by running the classifier.

Line fields:

- ``id``: unique name; ``version`` (one) or ``versions`` (a list) of the protocol;
- exactly one of ``input`` (the parsed response), ``raw`` (the exact wire text, a string
  encoded as UTF-8) and ``raw_base64`` (wire bytes that are not UTF-8);
- ``options``: any of ``request_id``, ``client_capabilities``, ``extensions``,
  ``absent_result_type`` and ``limits`` (an object of ``Limits`` fields);
- ``expect``: the kind; ``finding``: the code that must be among the findings (required for
  ``unclassified``; for other kinds, a warning that must be present);
- ``schema``: what the official JSON schema of the version says of the case: ``valid``,
  ``invalid`` (unclassified for a reason the schema itself states), or ``n/a`` (a rule of
  the wire or the prose the schema cannot express); defaults to ``valid`` for every kind but
  unclassified, which must state it;
- ``spec``: the reference; ``description``: why the label is what it is;
- ``recorded`` (recorded traffic, ``data/recorded.jsonl``): where a real server's answer came
  from: ``server``, ``package``, ``package_version``, ``server_info``, ``tool``, ``arguments``,
  ``transport`` (stdio or http), ``method``, ``round``, and the ``request_id``,
  ``client_capabilities`` and ``extensions`` of the recording client (the recorder,
  tests/interop/traffic.py, writes these lines; their labels are its hand-written call tables).
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final, Literal

from ..verdict._classify import Limits
from ..verdict._kind import Kind
from ..verdict._versions import VERSIONS

CORPUS_VERSION: Final = "1.3.0"
"""Bumped when a case is added, removed or relabelled (see CHANGELOG.md beside this file)."""

SchemaLabel = Literal["valid", "invalid", "n/a"]
_OPTION_NAMES: Final = frozenset({"request_id", "client_capabilities", "extensions", "absent_result_type",
                                  "limits"})
_FIELDS: Final = frozenset({"id", "version", "versions", "input", "raw", "raw_base64", "options",
                            "expect", "finding", "schema", "spec", "description", "recorded"})
_RECORDED_FIELDS: Final = frozenset({"server", "package", "package_version", "server_info", "tool", "arguments",
                                     "transport", "method", "round", "request_id", "client_capabilities",
                                     "extensions"})


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled response."""

    id: str
    version: str
    input: Any
    """The parsed response, or the wire bytes when ``raw`` is true."""
    raw: bool
    expect: Kind
    finding: str | None
    schema: SchemaLabel
    spec: str
    description: str
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    """``file:line`` of the case in the package data."""
    recorded: Mapping[str, Any] | None = None
    """For recorded traffic: the server, its version, the tool and arguments of the call."""

    def wire(self) -> bytes:
        """The response as wire bytes (parsed inputs are serialised compactly)."""
        if self.raw:
            return bytes(self.input)
        return json.dumps(self.input, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8")

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``classify``: the version and the case's options."""
        options = dict(self.options)
        if "limits" in options:
            options["limits"] = Limits(**options["limits"])
        return {"version": self.version, **options}


class CorpusError(ValueError):
    """A data line of the corpus is malformed (a packaging bug, reported with its place)."""


def _parse_line(text: str, source: str) -> list[Case]:
    try:
        line = json.loads(text)
    except ValueError as exc:
        raise CorpusError(f"{source}: not JSON: {exc}") from None
    if not isinstance(line, dict):
        raise CorpusError(f"{source}: a case is an object")
    unknown = set(line) - _FIELDS
    if unknown:
        raise CorpusError(f"{source}: unknown fields {sorted(unknown)}")
    case_id = line.get("id")
    if not isinstance(case_id, str) or not case_id:
        raise CorpusError(f"{source}: id must be a non-empty string")
    if ("version" in line) == ("versions" in line):
        raise CorpusError(f"{source}: give exactly one of version and versions")
    versions = [line["version"]] if "version" in line else line["versions"]
    if not isinstance(versions, list) or not versions or any(v not in VERSIONS for v in versions):
        raise CorpusError(f"{source}: unknown version in {versions!r}")
    sources = [k for k in ("input", "raw", "raw_base64") if k in line]
    if len(sources) != 1:
        raise CorpusError(f"{source}: give exactly one of input, raw and raw_base64")
    raw = sources[0] != "input"
    if sources[0] == "raw":
        value: Any = line["raw"].encode("utf-8", "surrogatepass")
    elif sources[0] == "raw_base64":
        value = base64.b64decode(line["raw_base64"], validate=True)
    else:
        value = line["input"]
    try:
        expect = Kind(str(line.get("expect")))
    except ValueError:
        raise CorpusError(f"{source}: unknown expect {line.get('expect')!r}") from None
    finding = line.get("finding")
    if expect is Kind.UNCLASSIFIED and not isinstance(finding, str):
        raise CorpusError(f"{source}: an unclassified case names the finding that explains it")
    schema = line.get("schema", "valid" if expect is not Kind.UNCLASSIFIED else None)
    if schema not in ("valid", "invalid", "n/a"):
        raise CorpusError(f"{source}: schema must be valid, invalid or n/a (unclassified cases state it)")
    options = line.get("options", {})
    if not isinstance(options, dict) or set(options) - _OPTION_NAMES:
        raise CorpusError(f"{source}: options may hold only {sorted(_OPTION_NAMES)}")
    for name in ("spec", "description"):
        if not isinstance(line.get(name), str) or not line[name]:
            raise CorpusError(f"{source}: {name} is required")
    recorded = line.get("recorded")
    if recorded is not None and (not isinstance(recorded, dict) or not set(recorded) >= _RECORDED_FIELDS):
        raise CorpusError(f"{source}: recorded must be an object with {sorted(_RECORDED_FIELDS)}")
    multi = "versions" in line
    return [Case(f"{case_id}@{version}" if multi else case_id, version, value, raw, expect, finding,
                 schema, line["spec"], line["description"], options, source, recorded)
            for version in versions]


@functools.cache
def _load_all() -> tuple[Case, ...]:
    cases: list[Case] = []
    folder = resources.files(__package__).joinpath("data")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".jsonl"):
            continue
        for number, text in enumerate(entry.read_text("utf-8").splitlines(), start=1):
            if text.strip() and not text.lstrip().startswith("//"):
                cases.extend(_parse_line(text, f"{entry.name}:{number}"))
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise CorpusError(f"{case.source}: duplicate case id {case.id!r} (also {seen[case.id]})")
        seen[case.id] = case.source
    return tuple(cases)


def load(*, versions: Iterable[str] | None = None, kinds: Iterable[Kind | str] | None = None,
         raw: bool | None = None) -> tuple[Case, ...]:
    """Every case, optionally only those of some versions, some expected kinds, raw or parsed."""
    cases = _load_all()
    if versions is not None:
        wanted = set(versions)
        unknown = wanted - set(VERSIONS)
        if unknown:
            raise ValueError(f"unknown versions {sorted(unknown)}; the corpus has {', '.join(VERSIONS)}")
        cases = tuple(c for c in cases if c.version in wanted)
    if kinds is not None:
        wanted_kinds = {Kind(k) for k in kinds}
        cases = tuple(c for c in cases if c.expect in wanted_kinds)
    if raw is not None:
        cases = tuple(c for c in cases if c.raw is raw)
    return cases


def get(case_id: str) -> Case:
    """One case by its id (as a conformance failure names it); ``KeyError`` when there is none."""
    for case in _load_all():
        if case.id == case_id:
            return case
    raise KeyError(f"no corpus case {case_id!r}")


def changelog() -> str:
    """The corpus changelog (Markdown): what each :data:`CORPUS_VERSION` added, removed or relabelled."""
    return resources.files(__package__).joinpath("CHANGELOG.md").read_text("utf-8")


LAYER_CONTRACT = {"layers": ("verdict",), "libraries": ()}
"""What this layer may import (read by tests/test_layers.py, which also holds the fixed rules)."""

__all__ = ["CORPUS_VERSION", "Case", "CorpusError", "SchemaLabel", "changelog", "get", "load"]

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

A line that is blank or starts with ``//`` is a comment. Every other line is checked member by
member: a malformed one (not UTF-8, not JSON, NaN, a member name given twice, an unknown or
missing member, a member of the wrong type, an option or limit ``classify`` would refuse) is
reported with its ``file:line``, the member and what was expected, every such line of every
file in one :class:`CorpusError` (the first 20 shown). A :class:`Case` built in Python is held
to the same rules.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final, Literal

from ..verdict._classify import OPTION_NAMES, Limits, OptionError, check_option
from ..verdict._kind import Kind
from ..verdict._peer_text import neutral
from ..verdict._shown import shown
from ..verdict._versions import VERSIONS

CORPUS_VERSION: Final = "1.6.0"
"""Bumped when a case is added, removed or relabelled (see CHANGELOG.md beside this file)."""

SchemaLabel = Literal["valid", "invalid", "n/a"]
_SCHEMA_LABELS: Final = ("valid", "invalid", "n/a")
_LIMIT_NAMES: Final = Limits.__match_args__
_FIELDS: Final = ("id", "version", "versions", "input", "raw", "raw_base64", "options", "expect", "finding",
                  "schema", "spec", "description", "recorded")
_SOURCES: Final = ("input", "raw", "raw_base64")
_KINDS: Final = tuple(kind.value for kind in Kind)
_UNCLASSIFIED: Final = Kind.UNCLASSIFIED
"""Kept here: a member of an enum is slow to look up on the class, and the loader asks per line."""
_SHOWN_PROBLEMS: Final = 20
"""How many problems a report lists (it counts the rest)."""
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

    def __post_init__(self) -> None:
        problems = _case_problems(self)
        if problems:
            where = self.source if isinstance(self.source, str) and self.source else f"case {self.id!r}"
            raise CorpusError(f"{where}: {problems[0]}" if len(problems) == 1 else
                              _listing(f"{where}: {len(problems)} problems:", problems))

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
    """A data line of the corpus, or a :class:`Case` built in Python, is malformed: every problem
    named with its place (``file:line``), its member and what was expected."""


def _shown(value: object) -> str:
    """A value from a file or a caller, for a message: its JSON text cut at 60 characters, every
    control, bidi and lone surrogate character in it a visible escape; a value JSON cannot write
    is named by its type."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return _a(type(value).__name__)
    return neutral(text if len(text) <= 60 else text[:60] + "…")


def _a(name: str) -> str:
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _did_you_mean(name: object, known: Sequence[str], *, quoted: bool = False) -> str:
    """`` (did you mean x?)`` for a name one typo away from a known one, else nothing."""
    if not isinstance(name, str) or len(name) > 64:
        return ""
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    if not close:
        return ""
    return f" (did you mean {json.dumps(close[0]) if quoted else close[0]}?)"


def _listing(title: str, problems: Sequence[str]) -> str:
    """The title, then the first problems one a line, then how many more there are."""
    shown = "".join(f"\n  {problem}" for problem in problems[:_SHOWN_PROBLEMS])
    more = len(problems) - _SHOWN_PROBLEMS
    return title + shown + (f"\n  … and {more} more" if more > 0 else "")


def _is_version(value: object) -> bool:
    return isinstance(value, str) and value in VERSIONS


def _text_problem(name: str, value: object) -> str | None:
    if isinstance(value, str) and value:
        return None
    return f"{name}: expected a non-empty string, got {_shown(value)}"


def _input_problem(value: object) -> str | None:
    """A parsed input must be written as UTF-8 JSON (``Case.wire``): no NaN, no lone surrogate."""
    try:
        json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return f"input: expected a JSON value writable as UTF-8, got {_shown(value)}"
    return None


def _option_problems(options: object) -> list[str]:
    """What ``classify`` refuses in a case's options, named member by member: each option is asked
    of classify's own checks (``check_option``, ``Limits``), one place for the rules; the loader
    adds only the shape of the data (an object of options, limits as an object, no null)."""
    if not isinstance(options, Mapping):
        return [f"options: expected an object of any of {', '.join(OPTION_NAMES)}, got {_shown(options)}"]
    problems: list[str] = []
    for name, value in options.items():
        if name not in OPTION_NAMES:
            problems.append(f"options.{_shown(name)}: unknown option{_did_you_mean(name, OPTION_NAMES)}; the options "
                            f"are {', '.join(OPTION_NAMES)}")
        elif value is None:
            problems.append(f"options.{name}: null is classify's default; leave the option out instead")
        elif name == "limits":
            problems.extend(_limit_problems(value))
        else:
            problems.extend(_refused(name, value, functools.partial(check_option, name)))
    return problems


def _limit_problems(limits: object) -> list[str]:
    if not isinstance(limits, Mapping):
        return [f"options.limits: expected an object of any of {', '.join(_LIMIT_NAMES)}, got {_shown(limits)}"]
    problems = [f"options.limits.{_shown(name)}: unknown limit{_did_you_mean(name, _LIMIT_NAMES)}; the limits are "
                f"{', '.join(_LIMIT_NAMES)}" for name in limits if name not in _LIMIT_NAMES]
    known = {name: value for name, value in limits.items() if name in _LIMIT_NAMES}
    return problems + _refused("limits", known, lambda given: Limits(**given))


def _refused(name: str, value: object, ask: Callable[[Any], object], named: str | None = None) -> list[str]:
    """What ``ask`` (classify's check of option ``name``) refuses in ``value``, each at its member:
    the option as a whole, or every member of an object or an array that is wrong alone, at any
    depth (``client_capabilities.elicitation.form``). ``named``: what classify calls ``value``
    when asked so (a member of an array is asked alone, as the array's first)."""
    named = name if named is None else named
    whole = _refusal(ask, value)
    if whole is None:
        return []
    if whole.option != named:  # a member is wrong: ask of each alone, to name every one
        problems: list[str] = []
        if isinstance(value, Mapping):
            for key, item in value.items():
                problems += _refused(f"{name}.{key}", item, functools.partial(_ask_in, ask, key), f"{named}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                problems += _refused(f"{name}[{index}]", item, lambda alone: ask([alone]), f"{named}[0]")
        if problems:
            return problems
    where = name + whole.option[len(named):] if whole.option.startswith(named) else name
    return [f"options.{where}: expected {whole.expected}, got {_shown(whole.value)}"]


def _ask_in(ask: Callable[[Any], object], key: object, value: object) -> object:
    return ask({key: value})


def _refusal(ask: Callable[[Any], object], value: object) -> OptionError | None:
    try:
        ask(value)
    except OptionError as exc:
        return exc
    return None


def _case_problems(case: Case) -> list[str]:
    """A built case's fields, each as the kit will use it."""
    problems: list[str] = []
    if (problem := _text_problem("id", case.id)) is not None:
        problems.append(problem)
    if not _is_version(case.version):
        problems.append(f"version: expected one of {', '.join(VERSIONS)}, got {_shown(case.version)}")
    if type(case.raw) is not bool:
        problems.append(f"raw: expected True or False, got {_shown(case.raw)}")
    elif case.raw:
        if not isinstance(case.input, (bytes, bytearray)):
            problems.append(f"input: expected the wire bytes of a raw case, got {_a(type(case.input).__name__)}")
    elif (problem := _input_problem(case.input)) is not None:
        problems.append(problem)
    if not isinstance(case.expect, Kind):
        problems.append(f"expect: expected a Kind, got {_shown(case.expect)}")
    if case.finding is None:
        if case.expect is _UNCLASSIFIED:
            problems.append("finding: missing; an unclassified case names the finding that explains it")
    elif not isinstance(case.finding, str) or not case.finding:
        problems.append(f"finding: expected a finding code, a non-empty string, got {_shown(case.finding)}")
    if not isinstance(case.schema, str) or case.schema not in _SCHEMA_LABELS:
        problems.append(f'schema: expected "valid", "invalid" or "n/a", got {_shown(case.schema)}')
    problems.extend(problem for problem in (_text_problem("spec", case.spec),
                                            _text_problem("description", case.description)) if problem)
    problems.extend(_option_problems(case.options))
    if case.recorded is not None and not isinstance(case.recorded, Mapping):
        problems.append(f"recorded: expected an object, got {_shown(case.recorded)}")
    return problems


def _read_json_line(text: str) -> tuple[object, list[str]]:
    """The line's value, and what JSON does not allow but Python's reader takes: NaN and the
    infinities, a member name given twice (the last would silently win)."""
    problems: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                problems.append(f"{_shown(key)}: a member name given twice in one object (write wire text with "
                                "duplicates as raw)")
            result[key] = value
        return result

    def constant(name: str) -> None:
        problems.append(f"{name} is not JSON (write wire text that holds it as raw)")

    value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    return value, list(dict.fromkeys(problems))


def _line_problems(line: dict[str, Any]) -> list[str]:
    """Every member of a data line checked (see the module doc); the problems in member order."""
    problems = [f"{_shown(name)}: unknown member{_did_you_mean(name, _FIELDS)}; the members are {', '.join(_FIELDS)}"
                for name in line if name not in _FIELDS]
    problems.append("id: missing (a non-empty string)" if "id" not in line else _text_problem("id", line["id"]) or "")
    problems.extend(_version_problems(line))
    given = [name for name in _SOURCES if name in line]
    if not given:
        problems.append("input: missing (give one of input, raw and raw_base64)")
    elif len(given) > 1:
        problems.append(f"{', '.join(given)}: give one of input, raw and raw_base64, not several")
    elif given == ["raw"]:
        if not isinstance(line["raw"], str):
            problems.append(f"raw: expected the wire text, a string, got {_shown(line['raw'])}")
    elif given == ["raw_base64"]:
        encoded = line["raw_base64"]
        if not isinstance(encoded, str):
            problems.append(f"raw_base64: expected wire bytes in base64, a string, got {_shown(encoded)}")
        elif _base64(encoded) is None:
            problems.append(f"raw_base64: expected wire bytes in base64, got {_shown(encoded)}, which is not base64")
    if "options" in line:
        problems.extend(_option_problems(line["options"]))
    expect = line.get("expect")
    if "expect" not in line:
        problems.append(f"expect: missing (one of {', '.join(_KINDS)})")
    elif not isinstance(expect, str) or expect not in _KINDS:
        problems.append(f"expect: expected one of {', '.join(_KINDS)}, got {_shown(expect)}")
    if "finding" in line:
        if not isinstance(line["finding"], str) or not line["finding"]:
            problems.append(f"finding: expected a finding code, a non-empty string, got {_shown(line['finding'])}")
    elif expect == _UNCLASSIFIED:
        problems.append("finding: missing; an unclassified case names the finding that explains it")
    if "schema" in line:
        if not isinstance(line["schema"], str) or line["schema"] not in _SCHEMA_LABELS:
            problems.append(f'schema: expected "valid", "invalid" or "n/a", got {_shown(line["schema"])}')
    elif expect == _UNCLASSIFIED:
        problems.append('schema: missing; an unclassified case states it ("valid", "invalid" or "n/a")')
    problems.extend(f"{name}: missing (a non-empty string)" if name not in line else
                    _text_problem(name, line[name]) or "" for name in ("spec", "description"))
    if "recorded" in line:
        recorded = line["recorded"]
        if not isinstance(recorded, dict):
            problems.append(f"recorded: expected an object with {', '.join(sorted(_RECORDED_FIELDS))}, got "
                            f"{_shown(recorded)}")
        elif missing := sorted(_RECORDED_FIELDS - set(recorded)):
            problems.append(f"recorded: missing {', '.join(missing)}")
    return [problem for problem in problems if problem]


def _version_problems(line: dict[str, Any]) -> list[str]:
    expected = f"expected one of {', '.join(VERSIONS)}"
    if "version" in line and "versions" in line:
        return ["version, versions: give one of them, not both"]
    if "version" in line:
        return [] if _is_version(line["version"]) else [f"version: {expected}, got {_shown(line['version'])}"]
    if "versions" not in line:
        return ["version: missing (give version, a protocol version, or versions, an array of them)"]
    versions = line["versions"]
    if not isinstance(versions, list) or not versions:
        return [f"versions: expected a non-empty array of protocol versions, got {_shown(versions)}"]
    problems: list[str] = []
    for index, version in enumerate(versions):
        if not _is_version(version):
            problems.append(f"versions[{index}]: {expected}, got {_shown(version)}")
        elif version in versions[:index]:
            problems.append(f"versions[{index}]: {_shown(version)} listed twice")
    return problems


def _base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error, and a str that is not ASCII
        return None


def _parse_line(text: str, source: str) -> tuple[list[Case], list[str]]:
    """The cases of one data line, or its problems, each prefixed with ``source`` (``file:line``)."""
    try:
        line, problems = _read_json_line(text)
    except json.JSONDecodeError as exc:
        return [], [f"{source}:{exc.colno}: not JSON: {exc.msg}"]
    except RecursionError:
        return [], [f"{source}: not JSON: nested too deep to read"]
    if not isinstance(line, dict):
        return [], [f"{source}: expected a case, a JSON object, got {_shown(line)}"]
    problems += _line_problems(line)
    if problems:
        return [], [f"{source}: {problem}" for problem in problems]
    if "raw" in line:
        value: Any = line["raw"].encode("utf-8", "surrogatepass")
    elif "raw_base64" in line:
        value = _base64(line["raw_base64"])
    else:
        value = line["input"]
    expect = Kind(line["expect"])
    schema = line.get("schema", "valid")
    versions = [line["version"]] if "version" in line else line["versions"]
    multi = "versions" in line
    try:
        return [Case(f"{line['id']}@{version}" if multi else line["id"], version, value, "input" not in line, expect,
                     line.get("finding"), schema, line["spec"], line["description"], line.get("options", {}), source,
                     line.get("recorded")) for version in versions], []
    except CorpusError as exc:  # the input, which Case checks (written as JSON once, not twice)
        return [], [str(exc)]


def _load_files(files: Iterable[tuple[str, bytes]]) -> tuple[Case, ...]:
    """Every case of these data files (name, bytes), in order; a :class:`CorpusError` naming every
    malformed line (the first 20 shown) when any is."""
    cases: list[Case] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for name, data in files:
        for number, encoded in enumerate(data.split(b"\n"), start=1):
            source = f"{name}:{number}"
            try:
                text = encoded.decode("utf-8")
            except UnicodeDecodeError as exc:
                column = len(encoded[:exc.start].decode("utf-8")) + 1
                problems.append(f"{source}:{column}: not UTF-8 ({exc.reason})")
                continue
            if not text.strip() or text.lstrip().startswith("//"):
                continue
            found, bad = _parse_line(text, source)
            problems.extend(bad)
            for case in found:
                if case.id in seen:
                    problems.append(f"{source}: id: {_shown(case.id)} given twice (first at {seen[case.id]})")
                else:
                    seen[case.id] = source
                    cases.append(case)
    if problems:
        raise CorpusError(problems[0] if len(problems) == 1 else
                          _listing(f"{len(problems)} problems in the corpus data:", problems))
    return tuple(cases)


@functools.cache
def _load_all() -> tuple[Case, ...]:
    folder = resources.files(__package__).joinpath("data")
    entries = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".jsonl")), key=lambda e: e.name)
    return _load_files((entry.name, entry.read_bytes()) for entry in entries)


_KIND_VALUES: Final = tuple(kind.value for kind in Kind)


def load(*, versions: Iterable[str] | None = None, kinds: Iterable[Kind | str] | None = None,
         raw: bool | None = None) -> tuple[Case, ...]:
    """Every case, optionally only those of some versions, some expected kinds, raw or parsed.
    ``versions`` and ``kinds`` are a list, tuple or set (an iterable that may never end is not
    read): an option of another kind is an OptionError, before the corpus is read."""
    for option, given in (("versions", versions), ("kinds", kinds)):
        if given is not None and not isinstance(given, (list, tuple, set, frozenset)):
            raise OptionError(option, "a list, tuple or set of strings, or None", given)
    if versions is not None:
        for item in versions:
            if not isinstance(item, str):
                raise OptionError("versions", "strings", item, f"versions must hold strings, not {shown(item)}")
    if kinds is not None:
        for item in kinds:
            if not isinstance(item, Kind) and (type(item) is not str or item not in _KIND_VALUES):
                expected = f"a Kind or one of {', '.join(_KIND_VALUES)}"
                raise OptionError("kinds", expected, item, f"kinds must hold {expected}, not {shown(item)}")
    if raw is not None and raw is not True and raw is not False:
        raise OptionError("raw", "True, False or None", raw)
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

"""classify's checks of its options are the one place for their rules: a bad option is an
``OptionError`` (a ValueError) saying which option or member is wrong (``option``), what it must
be (``expected``) and what was given (``value``), so the corpus loader names a data line's member
from them instead of a copy of the rules. An extension that cannot be hashed (``[{}]``) was a
TypeError out of classify.

Each option as a user may get it wrong (the second part of the table): a mapping, an empty
string, None, False or empty bytes for ``extensions`` was read silently (a mapping as its keys,
the others as no extension), a generator's or a view's wrong member was named as the whole
generator, an endless iterator of non-strings never came back; a capability member classify
reads that is no object (``{"elicitation": {"form": false}}``) declared what it meant to deny.
Those rows fail on the code before them; the rest of the table holds what was already right."""

from __future__ import annotations

import enum
import itertools
import json
import math
from collections import deque
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from mcp_verdict import Limits, classify
from mcp_verdict.verdict._classify import OptionError, check_option
from mcp_verdict.verdict._judge import OptionsMemo, classify_options

from .hostile import nested_list
from .raising import RaisingMapping

ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
VERSIONS = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
EXTENSIONS = "an iterable of extension id strings"


class _Nan:
    """Equal to a float NaN (which equals nothing): the value a NaN request id is refused with."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, float) and math.isnan(other)

    __hash__ = None  # type: ignore[assignment]


NAN_ID: Any = _Nan()

# classify's options → (option, expected, value, the message), written by hand
BAD: list[tuple[str, dict[str, Any], str, str, object, str]] = [
    ("unknown version", {"version": "1999"}, "version", f"one of {VERSIONS}", "1999",
     f"unknown protocol version '1999'; expected one of {VERSIONS}"),
    ("request_id a float", {"request_id": 1.5}, "request_id", "a string or an integer", 1.5,
     "request_id must be a string, an integer or None, not 1.5"),
    ("request_id true", {"request_id": True}, "request_id", "a string or an integer", True,
     "request_id must be a string, an integer or None, not True"),
    ("capabilities a list", {"client_capabilities": []}, "client_capabilities", "the capabilities object", [],
     "client_capabilities must be the capabilities object (a mapping), not []"),
    ("roots a number", {"client_capabilities": {"roots": 1}}, "client_capabilities.roots", "an object", 1,
     "client_capabilities['roots'] must be an object, not 1"),
    ("extensions a string", {"extensions": "x"}, "extensions", "an iterable of extension id strings", "x",
     "extensions must be an iterable of extension id strings, not 'x'"),
    ("extension a number", {"extensions": ["a", 1]}, "extensions[1]", "an extension id string", 1,
     "extensions[1] must be an extension id string, not 1"),
    ("extension an object", {"extensions": ("a", {})}, "extensions[1]", "an extension id string", {},
     "extensions[1] must be an extension id string, not {}"),
    ("extension a list", {"extensions": [[]]}, "extensions[0]", "an extension id string", [],
     "extensions[0] must be an extension id string, not []"),
    ("a set with a number", {"extensions": {2}}, "extensions", "an iterable of extension id strings", {2},
     "extensions must be an iterable of extension id strings, not {2}"),
    ("absent_result_type", {"absent_result_type": "maybe"}, "absent_result_type", '"invalid" or "complete"', "maybe",
     "absent_result_type must be \"invalid\" or \"complete\", not 'maybe'"),
    ("limits a dict", {"limits": {"max_bytes": 1}}, "limits", "a Limits", {"max_bytes": 1},
     "limits must be a Limits, not {'max_bytes': 1}"),
    # extensions: a sequence of extension ids (README "The API in five minutes"); a mapping is
    # iterated as its keys (the capabilities' extensions object, {id: settings}, is not that list)
    ("extensions a mapping", {"extensions": {TASKS: {}}}, "extensions", EXTENSIONS, {TASKS: {}},
     f"extensions must be {EXTENSIONS}, not a mapping ({{'{TASKS}': {{}}}}); give the negotiated ids, as a list "
     "or tuple"),
    ("extensions an empty mapping", {"extensions": {}}, "extensions", EXTENSIONS, {},
     f"extensions must be {EXTENSIONS}, not a mapping ({{}}); give the negotiated ids, as a list or tuple"),
    ("extensions a mappingproxy", {"extensions": MappingProxyType({TASKS: {}})}, "extensions", EXTENSIONS,
     MappingProxyType({TASKS: {}}),
     f"extensions must be {EXTENSIONS}, not a mapping (mappingproxy({{'{TASKS}': {{}}}})); give the negotiated "
     "ids, as a list or tuple"),
    ("extensions an empty string", {"extensions": ""}, "extensions", EXTENSIONS, "",
     f"extensions must be {EXTENSIONS}, not ''"),
    ("extensions None", {"extensions": None}, "extensions", EXTENSIONS, None,
     f"extensions must be {EXTENSIONS}, not None"),
    ("extensions False", {"extensions": False}, "extensions", EXTENSIONS, False,
     f"extensions must be {EXTENSIONS}, not False"),
    ("extensions 0", {"extensions": 0}, "extensions", EXTENSIONS, 0, f"extensions must be {EXTENSIONS}, not 0"),
    ("extensions empty bytes", {"extensions": b""}, "extensions", EXTENSIONS, b"",
     f"extensions must be {EXTENSIONS}, not b''"),
    ("extensions bytes", {"extensions": TASKS.encode()}, "extensions", EXTENSIONS, TASKS.encode(),
     f"extensions must be {EXTENSIONS}, not b'{TASKS}'"),
    ("extensions a bytearray", {"extensions": bytearray(b"x")}, "extensions", EXTENSIONS, bytearray(b"x"),
     f"extensions must be {EXTENSIONS}, not bytearray(b'x')"),
    ("extensions a number", {"extensions": 5}, "extensions", EXTENSIONS, 5, f"extensions must be {EXTENSIONS}, not 5"),
    ("a generator's member a number", {"extensions": (e for e in (TASKS, 1))}, "extensions[1]",
     "an extension id string", 1, "extensions[1] must be an extension id string, not 1"),
    ("a mapping's items", {"extensions": {TASKS: {}}.items()}, "extensions[0]", "an extension id string",
     (TASKS, {}), f"extensions[0] must be an extension id string, not ('{TASKS}', {{}})"),
    ("a deque's member None", {"extensions": deque([TASKS, None])}, "extensions[1]", "an extension id string",
     None, "extensions[1] must be an extension id string, not None"),
    # client_capabilities: the members classify reads are objects (schema ClientCapabilities:
    # elicitation.form, elicitation.url, sampling.tools, sampling.context); present means declared
    ("form false", {"client_capabilities": {"elicitation": {"form": False}}}, "client_capabilities.elicitation.form",
     "an object", False, "client_capabilities['elicitation']['form'] must be an object (present, it declares form; "
     "leave it out not to), not False"),
    ("url null", {"client_capabilities": {"elicitation": {"form": {}, "url": None}}},
     "client_capabilities.elicitation.url", "an object", None, "client_capabilities['elicitation']['url'] must be "
     "an object (present, it declares url; leave it out not to), not None"),
    ("tools true", {"client_capabilities": {"sampling": {"tools": True}}}, "client_capabilities.sampling.tools",
     "an object", True, "client_capabilities['sampling']['tools'] must be an object (present, it declares tools; "
     "leave it out not to), not True"),
    ("context a string", {"client_capabilities": {"sampling": {"context": "thisServer"}}},
     "client_capabilities.sampling.context", "an object", "thisServer", "client_capabilities['sampling']['context'] "
     "must be an object (present, it declares context; leave it out not to), not 'thisServer'"),
    ("form false in a mappingproxy", {"client_capabilities": MappingProxyType({"elicitation": MappingProxyType(
        {"form": False})})}, "client_capabilities.elicitation.form", "an object", False,
     "client_capabilities['elicitation']['form'] must be an object (present, it declares form; leave it out not "
     "to), not False"),
    ("elicitation null", {"client_capabilities": {"elicitation": None}}, "client_capabilities.elicitation",
     "an object", None, "client_capabilities['elicitation'] must be an object, not None"),
    ("capabilities a string", {"client_capabilities": "sampling"}, "client_capabilities", "the capabilities object",
     "sampling", "client_capabilities must be the capabilities object (a mapping), not 'sampling'"),
    ("capabilities an object's attributes", {"client_capabilities": SimpleNamespace(sampling={})},
     "client_capabilities", "the capabilities object", SimpleNamespace(sampling={}),
     "client_capabilities must be the capabilities object (a mapping), not namespace(sampling={})"),
    # request_id, absent_result_type, limits, version
    ("request_id NaN", {"request_id": math.nan}, "request_id", "a string or an integer", NAN_ID,
     "request_id must be a string, an integer or None, not nan"),
    ("request_id bytes", {"request_id": b"1"}, "request_id", "a string or an integer", b"1",
     "request_id must be a string, an integer or None, not b'1'"),
    ("absent_result_type None", {"absent_result_type": None}, "absent_result_type", '"invalid" or "complete"', None,
     'absent_result_type must be "invalid" or "complete", not None'),
    ("absent_result_type True", {"absent_result_type": True}, "absent_result_type", '"invalid" or "complete"', True,
     'absent_result_type must be "invalid" or "complete", not True'),
    ("absent_result_type a list", {"absent_result_type": ["complete"]}, "absent_result_type",
     '"invalid" or "complete"', ["complete"], 'absent_result_type must be "invalid" or "complete", not [\'complete\']'),
    ("limits None", {"limits": None}, "limits", "a Limits", None, "limits must be a Limits, not None"),
    ("limits the class", {"limits": Limits}, "limits", "a Limits", Limits,
     "limits must be a Limits, not <class 'mcp_verdict.verdict._classify.Limits'>"),
    ("version None", {"version": None}, "version", f"one of {VERSIONS}", None,
     f"unknown protocol version None; expected one of {VERSIONS}"),
    ("version bytes", {"version": b"2025-06-18"}, "version", f"one of {VERSIONS}", b"2025-06-18",
     f"unknown protocol version b'2025-06-18'; expected one of {VERSIONS}"),
    ("version a list", {"version": ["2025-06-18"]}, "version", f"one of {VERSIONS}", ["2025-06-18"],
     f"unknown protocol version ['2025-06-18']; expected one of {VERSIONS}"),
    ("version spaced", {"version": "2025-06-18 "}, "version", f"one of {VERSIONS}", "2025-06-18 ",
     f"unknown protocol version '2025-06-18 '; expected one of {VERSIONS}"),
]


@pytest.mark.parametrize(("options", "option", "expected", "value", "message"), [row[1:] for row in BAD],
                         ids=[row[0] for row in BAD])
def test_a_bad_option_says_where_what_and_why(options: dict[str, Any], option: str, expected: str, value: object,
                                              message: str) -> None:
    with pytest.raises(OptionError) as caught:
        classify(ANSWER, **options)
    error = caught.value
    assert (error.option, error.expected, error.value, str(error)) == (option, expected, value, message)
    assert isinstance(error, ValueError)


# Limits' fields → (option, expected, value, the message), written by hand
BAD_LIMITS: list[tuple[dict[str, Any], str, str, object, str]] = [
    ({"max_bytes": 0}, "limits.max_bytes", "a positive integer", 0,
     "Limits.max_bytes must be a positive integer, not 0"),
    ({"max_nodes": "10"}, "limits.max_nodes", "a positive integer", "10",
     "Limits.max_nodes must be a positive integer, not '10'"),
    ({"max_depth": 201}, "limits.max_depth", "a positive integer of at most 200", 201,
     "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not 201"),
    ({"max_depth": True}, "limits.max_depth", "a positive integer of at most 200", True,
     "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not True"),
    ({"max_bytes": math.inf}, "limits.max_bytes", "a positive integer", math.inf,
     "Limits.max_bytes must be a positive integer, not inf"),
    ({"max_nodes": math.nan}, "limits.max_nodes", "a positive integer", NAN_ID,
     "Limits.max_nodes must be a positive integer, not nan"),
    ({"max_bytes": -1}, "limits.max_bytes", "a positive integer", -1, "Limits.max_bytes must be a positive integer, "
     "not -1"),
    ({"max_depth": 2.0}, "limits.max_depth", "a positive integer of at most 200", 2.0,
     "Limits.max_depth must be a positive integer of at most 200 (the wire parser bound), not 2.0"),
    ({"max_nodes": None}, "limits.max_nodes", "a positive integer", None,
     "Limits.max_nodes must be a positive integer, not None"),
]


@pytest.mark.parametrize(("fields", "option", "expected", "value", "message"), BAD_LIMITS)
def test_a_bad_limit_says_where_what_and_why(fields: dict[str, Any], option: str, expected: str, value: object,
                                             message: str) -> None:
    with pytest.raises(OptionError) as caught:
        Limits(**fields)
    error = caught.value
    assert (error.option, error.expected, error.value, str(error)) == (option, expected, value, message)


# check_option: one option alone, as classify checks it → the option the error names (None: fine)
ALONE: list[tuple[str, object, str | None]] = [
    ("request_id", None, None),
    ("request_id", "a", None),
    ("request_id", [1], "request_id"),
    ("client_capabilities", {"sampling": {}, "tasks": 5}, None),
    ("client_capabilities", {"elicitation": "yes"}, "client_capabilities.elicitation"),
    ("extensions", ["io.modelcontextprotocol/tasks"], None),
    ("extensions", [{}], "extensions[0]"),
    ("absent_result_type", "complete", None),
    ("absent_result_type", None, "absent_result_type"),
    ("limits", Limits(max_depth=3), None),
    ("limits", None, "limits"),
    ("extensions", {TASKS: {}}, "extensions"),
    ("extensions", {}, "extensions"),
    ("extensions", "", "extensions"),
    ("extensions", None, "extensions"),
    ("extensions", (), None),
    ("extensions", frozenset({TASKS}), None),
    ("client_capabilities", {"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}, "context": {}}}, None),
    ("client_capabilities", {"roots": {"listChanged": True}, "experimental": {"x": 1}}, None),
    ("client_capabilities", {"sampling": {"tools": False}}, "client_capabilities.sampling.tools"),
    ("client_capabilities", {"elicitation": {"url": 1}}, "client_capabilities.elicitation.url"),
]


@pytest.mark.parametrize(("name", "value", "option"), ALONE)
def test_one_option_is_checked_alone_by_classifys_checks(name: str, value: object, option: str | None) -> None:
    try:
        check_option(name, value)
    except OptionError as error:
        assert error.option == option
    else:
        assert option is None


def test_an_unknown_option_is_no_option_error() -> None:
    with pytest.raises(ValueError) as caught:
        check_option("request-id", 1)
    assert type(caught.value) is ValueError
    assert str(caught.value) == ("unknown option 'request-id'; classify's options are request_id, client_capabilities, "
                                 "extensions, absent_result_type, limits")


# The same check from each entry point that takes extensions: a mapping is refused, never read
# as its keys (classify_options: the proxy's options per connection; OptionsMemo: the tap's,
# the proxy's and the audit's per request context)
ENTRY_POINTS: list[tuple[str, Any]] = [
    ("classify", lambda extensions: classify(ANSWER, extensions=extensions)),
    ("classify_options", lambda extensions: classify_options(extensions=extensions)),
    ("OptionsMemo.get", lambda extensions: OptionsMemo().get("2026-07-28", None, extensions)),
    ("check_option", lambda extensions: check_option("extensions", extensions)),
]


@pytest.mark.parametrize("call", [row[1] for row in ENTRY_POINTS], ids=[row[0] for row in ENTRY_POINTS])
def test_extensions_as_a_mapping_are_refused_by_every_entry_point(call: Any) -> None:
    with pytest.raises(OptionError) as caught:
        call({TASKS: {}})
    assert (caught.value.option, caught.value.value) == ("extensions", {TASKS: {}})


TASK_ANSWER = (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"786512e2","status":"working",'
               b'"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000}}')

# extensions in the forms a user has them → the kind of a 2026-07-28 task answer, which the
# tasks extension alone allows (ext-tasks, "Task creation"); without it: result.result_type_unknown
EXTENSION_FORMS: list[tuple[str, Any, str]] = [
    ("none", (), "unclassified"),
    ("an empty list", [], "unclassified"),
    ("an empty set", set(), "unclassified"),
    ("a tuple", (TASKS,), "task"),
    ("a list", [TASKS], "task"),
    ("a frozenset", frozenset({TASKS}), "task"),
    ("a generator", (e for e in [TASKS]), "task"),
    ("a mapping's keys", {TASKS: {}}.keys(), "task"),
    ("a deque", deque([TASKS]), "task"),
]


@pytest.mark.parametrize(("extensions", "kind"), [row[1:] for row in EXTENSION_FORMS],
                         ids=[row[0] for row in EXTENSION_FORMS])
def test_extensions_in_any_iterable_of_ids_are_in_force(extensions: Any, kind: str) -> None:
    assert classify(TASK_ANSWER, extensions=extensions).kind.value == kind


def test_an_endless_iterator_of_non_strings_is_refused_at_its_first_member() -> None:
    with pytest.raises(OptionError) as caught:
        classify(ANSWER, extensions=itertools.repeat(0))  # type: ignore[arg-type]
    assert (caught.value.option, caught.value.value, str(caught.value)) == (
        "extensions[0]", 0, "extensions[0] must be an extension id string, not 0")


class StrId(enum.StrEnum):
    A = "a"


class IntId(enum.IntEnum):
    SEVEN = 7


class TextId(str):
    pass


# a request id of a str or int subclass (an enum of ids) → the verdict on an answer carrying that
# id, as JSON writes it: the id is compared as the plain string or integer it is (JSON-RPC 2.0
# "Response object": the id is the same as the request's); an id of the other JSON type still differs
TYPED_IDS: list[tuple[str, object, bytes, str, list[str]]] = [
    ("StrEnum", StrId.A, b'"a"', "normal_complete", []),
    ("str subclass", TextId("a"), b'"a"', "normal_complete", []),
    ("IntEnum", IntId.SEVEN, b"7", "normal_complete", []),
    ("IntEnum against a string id", IntId.SEVEN, b'"7"', "unclassified", ["envelope.id_mismatch"]),
    ("StrEnum against another", StrId.A, b'"b"', "unclassified", ["envelope.id_mismatch"]),
]


@pytest.mark.parametrize(("request_id", "wire_id", "kind", "codes"), [row[1:] for row in TYPED_IDS],
                         ids=[row[0] for row in TYPED_IDS])
@pytest.mark.parametrize("parsed", [False, True], ids=["bytes", "parsed"])
def test_a_request_id_of_a_str_or_int_subclass_is_compared_as_its_json_value(
        request_id: object, wire_id: bytes, kind: str, codes: list[str], parsed: bool) -> None:
    answer = b'{"jsonrpc":"2.0","id":' + wire_id + b',"result":{"resultType":"complete","content":[]}}'
    verdict = classify(json.loads(answer) if parsed else answer, request_id=request_id)  # type: ignore[arg-type]
    assert (verdict.kind.value, [f.code for f in verdict.findings]) == (kind, codes)


BIG = 10**5000  # past Python's limit for str() of an int (4300 digits): its repr raises
NESTED = nested_list()
CUT = "[" * 77 + "..."  # the first 80 characters of NESTED's writing, cut

# Values whose repr cannot be written, and an endless iterator of good ids: the error still says
# where, what and why, its value written bounded. Before: ValueError (int to str),
# RecursionError (repr) raised while writing the message, and a hang reading the iterator.
UNWRITABLE: list[tuple[str, Any, str, str, str]] = [
    ("version an int of 5000 digits", lambda: classify(ANSWER, version=BIG), "version", f"one of {VERSIONS}",  # type: ignore[arg-type]
     f"unknown protocol version <an integer of about 5000 digits>; expected one of {VERSIONS}"),
    ("version nested past the recursion limit", lambda: classify(ANSWER, version=NESTED), "version",  # type: ignore[arg-type]
     f"one of {VERSIONS}", f"unknown protocol version {CUT}; expected one of {VERSIONS}"),
    ("client_capabilities an int of 5000 digits", lambda: classify(ANSWER, client_capabilities=BIG),  # type: ignore[arg-type]
     "client_capabilities", "the capabilities object",
     "client_capabilities must be the capabilities object (a mapping), not <an integer of about 5000 digits>"),
    ("a capability nested past the recursion limit",
     lambda: classify(ANSWER, client_capabilities={"sampling": NESTED}), "client_capabilities.sampling",
     "an object", f"client_capabilities['sampling'] must be an object, not {CUT}"),
    ("extensions an endless iterator of ids", lambda: classify(ANSWER, extensions=itertools.repeat("x")),
     "extensions", "at most 10000 extension ids",
     "extensions must hold at most 10000 extension ids; repeat('x') holds more (an endless iterator?)"),
    ("extensions an int of 5000 digits", lambda: classify(ANSWER, extensions=BIG), "extensions",  # type: ignore[arg-type]
     "an iterable of extension id strings",
     "extensions must be an iterable of extension id strings, not <an integer of about 5000 digits>"),
    ("request_id nested past the recursion limit", lambda: classify(ANSWER, request_id=NESTED), "request_id",  # type: ignore[arg-type]
     "a string or an integer", f"request_id must be a string, an integer or None, not {CUT}"),
    ("Limits.max_nodes nested past the recursion limit", lambda: Limits(max_nodes=NESTED), "limits.max_nodes",  # type: ignore[arg-type]
     "a positive integer", f"Limits.max_nodes must be a positive integer, not {CUT}"),
]


@pytest.mark.parametrize(("call", "option", "expected", "message"), [row[1:] for row in UNWRITABLE],
                         ids=[row[0] for row in UNWRITABLE])
def test_a_bad_option_whose_value_cannot_be_written_whole(call: Any, option: str, expected: str,
                                                          message: str) -> None:
    with pytest.raises(OptionError) as caught:
        call()
    error = caught.value
    assert (error.option, error.expected, str(error)) == (option, expected, message)


def test_a_request_id_of_5000_digits_is_named_by_its_size() -> None:
    """A request id past Python's limit for str(): the answer's id cannot be it (no parser reads
    such an id), and the finding says so without writing it (a ValueError out of classify before)."""
    verdict = classify(ANSWER, request_id=BIG)
    assert [(f.code, f.message) for f in verdict.findings] == [
        ("envelope.id_mismatch", "the id is 1; the request's id is <an integer of about 5000 digits>")]


class _ContainsRaises(dict[str, Any]):
    """Capabilities whose ``in`` raises (a dict by type, so classify reads it member by member)."""

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("boom")


class _IdsThenRaise:
    """An iterable of extension ids that raises after its first id."""

    def __iter__(self) -> Any:
        yield TASKS
        raise RuntimeError("gen boom")

    def __repr__(self) -> str:
        return "<ids then boom>"


# classify's options whose reading raises → (option, the message): the README's one wording,
# "{option} must be {expected}; reading {value} raised {exception}" (README, "The API in five
# minutes"). Was: the caller's own exception out of classify (RuntimeError, Boom).
RAISING: list[tuple[str, dict[str, Any], str, str]] = [
    ("capabilities raise on in", {"client_capabilities": _ContainsRaises()}, "client_capabilities",
     "client_capabilities must be the capabilities object; reading {} raised RuntimeError: boom"),
    ("every read raises", {"client_capabilities": RaisingMapping()}, "client_capabilities",
     "client_capabilities must be the capabilities object; reading <RaisingMapping object; its repr raised Boom> "
     "raised Boom: boom"),
    ("a capability raises", {"client_capabilities": {"elicitation": RaisingMapping()}}, "client_capabilities",
     "client_capabilities must be the capabilities object; reading {'elicitation': <RaisingMapping object; its "
     "repr raised Boom>} raised Boom: boom"),
    ("extensions raise part-way", {"extensions": _IdsThenRaise()}, "extensions",
     "extensions must be an iterable of extension id strings; reading <ids then boom> raised RuntimeError: gen boom"),
]


@pytest.mark.parametrize(("options", "option", "message"), [row[1:] for row in RAISING], ids=[r[0] for r in RAISING])
def test_an_option_whose_reading_raises_is_an_option_error(options: dict[str, Any], option: str,
                                                           message: str) -> None:
    with pytest.raises(OptionError) as caught:
        classify(ANSWER, version="2026-07-28", **options)
    assert (caught.value.option, str(caught.value)) == (option, message)

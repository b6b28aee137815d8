"""What ``classify`` loads on its first call: its options checked and held, and the judging
of an answer the fast path in ``classify`` does not take (``judge``), through the fast path's
other routes, the strict reader and the full checker (``check_fully``).

``classify`` (``_classify``) holds the entry and the options' types; this module holds what
needs the readers and the verdict value, whose library (msgspec) an import of classify does
not load. The edges (the proxy, the tap, the audit, the client) check their options here once
and call :func:`judge` with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from ._classify import (
    _COLLECTIONS,
    _PLAIN,
    DEFAULT_LIMITS,
    AbsentResultType,
    Limits,
    OptionError,
    _shown,
    _unreadable,
    on_first_use,
)
from ._common_kind import common_kind
from ._fastpath import _WIDE_BYTES, common_reader, quoted, read_common, wide_text
from ._kind import Kind
from ._options import SKIM_BYTES, Options
from ._verdict import Verdict, make_verdict
from ._versions import LATEST_VERSION, RULES_BY_VERSION, VERSIONS

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._findings import Finding
    from ._walk import Context

_RAW_TYPES: Final = (bytes, bytearray, memoryview, str)

def classify_options(version: str = LATEST_VERSION, client_capabilities: Mapping[str, Any] | None = None,
                     extensions: Iterable[str] = (), absent_result_type: AbsentResultType = "invalid",
                     limits: Limits = DEFAULT_LIMITS) -> Options:
    """``classify``'s options, checked once (``ValueError`` for a bad one), for a caller that
    judges many answers under the same ones (the proxy keeps them per connection)."""
    return _options(version, client_capabilities, extensions, absent_result_type, limits)


class InForce(Protocol):
    """What is in force for a request, as :meth:`OptionsMemo.of` reads it (a frames ``Context``)."""

    @property
    def version(self) -> str: ...
    @property
    def client_capabilities(self) -> Mapping[str, Any] | None: ...
    @property
    def extensions(self) -> tuple[str, ...]: ...


_NOT_HELD: Final[tuple[object, str, Limits, Options]] = (object(), "", DEFAULT_LIMITS, cast("Options", None))
""":attr:`OptionsMemo._last` before a context is held: its first member is no context."""


class OptionsMemo:
    """``classify``'s options, checked once per set of them, for a caller that judges many
    answers under a few sets (the proxy, the tap and the audit, whose requests share a version,
    a capabilities object and extensions: the frames Tracker hands the requests of a connection
    one context while what is in force on it stays the same).

    A capabilities object and the limits are told apart by identity, and held while their
    options are, so their ids are not reused meanwhile; an equal object that is another one is
    checked again. At most ``size`` sets are held (then the memo starts afresh), and at most
    ``contexts`` context objects for :meth:`of`. Not shared between threads.
    """

    __slots__ = ("_contexts", "_held", "_last", "_most", "_size")

    def __init__(self, size: int = 64, contexts: int = 256) -> None:
        self._held: dict[tuple[Any, ...], tuple[object, Limits, Options]] = {}
        self._size = size
        self._contexts: dict[int, tuple[InForce, str, Limits, Options]] = {}
        """id of a context object -> (it, absent_result_type, limits, its options): :meth:`of`.
        The entry holds the context, so no other object has its id while it is here."""
        self._most = contexts
        self._last: tuple[object, str, Limits, Options] = _NOT_HELD
        """The entry :meth:`of` gave last (consecutive requests of a connection share a
        context), looked at before ``_contexts``."""

    def of(self, context: InForce, absent_result_type: AbsentResultType = "invalid",
           limits: Limits = DEFAULT_LIMITS) -> Options:
        """:meth:`get` of a request context's ``version``, ``client_capabilities`` and
        ``extensions`` (a frames ``Context``) with these: the same Options object. The context
        object is held with them (so its id is not reused meanwhile) and told apart by identity,
        as ``absent_result_type`` and ``limits`` are: another object, or the same one with
        another ``absent_result_type`` or ``limits``, goes to :meth:`get`."""
        last = self._last
        if last[0] is context and last[1] is absent_result_type and last[2] is limits:
            return last[3]
        try:
            held = self._contexts[id(context)]  # this context's entry (it holds the context)
        except KeyError:
            pass
        else:
            if held[1] is absent_result_type and held[2] is limits:
                self._last = held
                return held[3]
        options = self.get(context.version, context.client_capabilities, context.extensions, absent_result_type, limits)
        if len(self._contexts) >= self._most:
            self._contexts.clear()
        self._contexts[id(context)] = self._last = (context, absent_result_type, limits, options)
        return options

    def get(self, version: str, client_capabilities: Mapping[str, Any] | None = None,
            extensions: tuple[str, ...] = (), absent_result_type: AbsentResultType = "invalid",
            limits: Limits = DEFAULT_LIMITS) -> Options:
        """:func:`classify_options` of these (``ValueError`` for a bad one, as there)."""
        key = (version, id(client_capabilities), extensions, absent_result_type, id(limits))
        try:
            held = self._held.get(key)
        except TypeError:  # extensions given as a list: not held
            return _options(version, client_capabilities, extensions, absent_result_type, limits)
        if held is not None and held[0] is client_capabilities and held[1] is limits:
            return held[2]
        options = _options(version, client_capabilities, extensions, absent_result_type, limits)
        if len(self._held) >= self._size:
            self._held.clear()
        self._held[key] = (client_capabilities, limits, options)
        return options


def held_id(value: object) -> str | int | None:
    """The request id ``classify`` holds an answer to: a string or an integer that is not a
    bool; any other (a float id, which JSON-RPC advises against, or none) is not checked."""
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def judge(response: object, options: Options, request_id: str | int | None, fast: bool = True,
          not_utf8: bool = False) -> Verdict:
    """``classify`` with options from :func:`classify_options` and a request id already checked
    (a string, an integer that is not a bool, or None). Never raises for any ``response``.
    ``fast=False``: the caller (``classify``) has tried the fast path on this short text;
    ``not_utf8``: and it said ``False`` (its reader refused the text as no UTF-8, or left it unread
    until its UTF-8 is checked)."""
    # The fast path (_fastpath) recognises a common well-formed response in one pass; for
    # anything else it returns None, and the full checker runs and explains.
    skimmed = False
    if fast and type(response) is bytes:
        size = len(response)
        if SKIM_BYTES < size <= options.max_bytes:  # a long text: no value built for a syntax error
            read = False
            if options.read_common is not None and wide_text(response):
                # long strings past ASCII: orjson checks the text's UTF-8 itself, before reading
                # it, faster than the skim would (~1x its read of CJK); a text it does not prove
                # is left to the strict reader (the fast path would read it again), skimmed
                # first; one orjson read whole is UTF-8 and well-formed, but maybe for a
                # repeated name, which is searched for as the skim would (names are sparse)
                quick = quoted(response, options, request_id)
                if type(quick) is Verdict:
                    return quick
                read = quick is True
                fast = False
            problem = _read_duplicate(response) if read else _skim(response)
            if problem is not None:
                return make_verdict(Kind.UNCLASSIFIED, (problem,), options.rules.version, None)
            skimmed = True
        if fast and size <= options.quick_bytes:
            verdict = read_common(response, options, request_id, utf8=skimmed)
            if verdict:
                return verdict
            not_utf8 = verdict is False
        elif fast and size <= options.max_bytes and options.read_common is not None:
            verdict = read_common(response, options, request_id, count_values=True, utf8=skimmed)
            if verdict:
                return verdict
            not_utf8 = verdict is False
    if not_utf8 and type(response) is bytes and not skimmed:  # a reader refused the text as no UTF-8, or
        # left a long text past ASCII unread until it is checked (read_common): named before a reader reads
        problem = _not_utf8(response)  # it to that byte (as the skim does); else read now
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), options.rules.version, None)
        if options.read_common is not None and len(response) <= options.max_bytes:
            verdict = read_common(response, options, request_id, len(response) > options.quick_bytes, utf8=True)
            if verdict:
                return verdict
    message = response
    caller = True  # a parsed value of the caller's: its strings may hold what no reader puts there
    if type(response) is not dict and isinstance(response, _RAW_TYPES):
        message, problem = _parse(response, options.max_bytes, options.max_depth, skimmed=skimmed, utf8=skimmed)
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), options.rules.version, None)
        caller = False
    kind = common_kind(message, options, request_id, caller)
    if kind is not None:
        return make_verdict(kind, (), options.rules.version, message)
    return check_fully(message, options, request_id, caller)


def check_fully(message: object, options: Options, request_id: str | int | None, caller: bool = False) -> Verdict:
    """The full checker: every rule, each in its module; the findings say what is wrong.

    ``caller``: ``message`` is the caller's parsed value, not a reader's. A string of it (a
    member name included) holding a surrogate code point, which no JSON text in UTF-8 carries,
    is then what the wire's lone surrogate escape is: ``json.encoding``, the only finding, as
    the strict reader's (``_walk.unencodable``)."""
    checked = message
    if caller:  # (the rules read its subclasses of JSON types as those types; the verdict holds it as it came)
        checked = _exact_value(message, options.max_nodes)
        problem = _unencodable_string(checked, options.max_depth, options.max_nodes)
        if problem is not None:
            return make_verdict(Kind.UNCLASSIFIED, (problem,), options.rules.version, message)
    ctx = _context(options)
    kind = _classify(ctx, checked, request_id)
    if ctx.errors or kind is None:
        kind = Kind.UNCLASSIFIED
    return make_verdict(kind, tuple(ctx.findings) if ctx.findings else (), options.rules.version, message)


def _check_request_id(request_id: object) -> str | int:
    """A request id that is a string or an integer (not a bool), as the plain ``str`` or ``int``
    the response's id is compared with, type and value (a ``StrEnum`` or ``IntEnum`` member
    given as the id would otherwise never equal a JSON id)."""
    if isinstance(request_id, str):
        return str.__str__(request_id)
    if type(request_id) is bool or not isinstance(request_id, int):
        raise OptionError("request_id", "a string or an integer", request_id,
                          f"request_id must be a string, an integer or None, not {_shown(request_id)}")
    return int.__int__(request_id)


def _options(version: object, client_capabilities: object = None, extensions: object = (),
             absent_result_type: object = "invalid", limits: object = DEFAULT_LIMITS) -> Options:
    """Check the caller's options; a mistake here is the caller's, so it raises (OptionError)."""
    rules = RULES_BY_VERSION.get(version) if isinstance(version, str) else None  # as _PLAIN[version] finds it
    if rules is None:
        expected = f"one of {', '.join(VERSIONS)}"
        raise OptionError("version", expected, version,
                          f"unknown protocol version {_shown(version)}; expected {expected}")
    form = True
    if client_capabilities is not None:
        try:
            _check_capabilities(client_capabilities)
            form = _form_elicitation(client_capabilities)  # type: ignore[arg-type]
        except OptionError:
            raise
        except Exception as exc:  # the caller's mapping (its __contains__, __getitem__...) raised as it was read
            raise _unreadable("client_capabilities", "the capabilities object", client_capabilities, exc) from None
    try:
        negotiated = _NO_EXTENSIONS if type(extensions) in _COLLECTIONS and not extensions else _negotiated(extensions)
    except OptionError:
        raise
    except Exception as exc:  # the caller's iterable (its __iter__, a generator's body...) raised as it was read
        raise _unreadable("extensions", _EXTENSIONS, extensions, exc) from None
    if not isinstance(absent_result_type, str) or absent_result_type not in ("invalid", "complete"):
        raise OptionError("absent_result_type", '"invalid" or "complete"', absent_result_type)
    if type(limits) is not Limits:
        raise OptionError("limits", "a Limits", limits)
    plain = _PLAIN.get(rules.version) if limits is DEFAULT_LIMITS else None
    if plain is not None:  # the reader and its bound as the plain options of the version hold them
        reader, quick_bytes = plain.read_common, plain.quick_bytes
    else:
        reader = common_reader(rules.version, limits.max_depth)
        quick_bytes = -1 if reader is None else min(limits.max_bytes, limits.max_nodes)
    options = Options(rules, limits.max_bytes, limits.max_depth, limits.max_nodes,
                      client_capabilities,  # type: ignore[arg-type]
                      negotiated, absent_result_type == "complete", reader, quick_bytes,
                      form,
                      min(quick_bytes, SKIM_BYTES), min(quick_bytes, _WIDE_BYTES))
    if (client_capabilities is None and not negotiated and absent_result_type == "invalid"
            and limits is DEFAULT_LIMITS):
        _PLAIN[rules.version] = options
    return options



_parse: Callable[..., tuple[object, Finding | None]] = on_first_use(globals(), "_parse", "_parser", "parse")
"""The strict reader, ``_parser.parse``, bound by its first read."""
_skim: Callable[[bytes], Finding | None] = on_first_use(globals(), "_skim", "_parser", "skim")
"""The syntax skim of long texts, ``_parser.skim``, bound by the first long text."""
_not_utf8: Callable[[bytes], Finding | None] = on_first_use(globals(), "_not_utf8", "_parser", "not_utf8")
"""Where a text a reader refused as no UTF-8 first fails to be UTF-8, ``_parser.not_utf8``."""
_read_duplicate: Callable[[bytes], Finding | None] = on_first_use(
    globals(), "_read_duplicate", "_parser", "read_duplicate")
"""The repeated-name search of a long text orjson read whole, ``_parser.read_duplicate``."""
_unencodable_string: Callable[[object, int, int], Finding | None] = on_first_use(
    globals(), "_unencodable_string", "_walk", "unencodable")
"""The first string of a caller's parsed value that UTF-8 cannot carry, ``_walk.unencodable``."""
_exact_value: Callable[[object, int], object] = on_first_use(globals(), "_exact_value", "_walk", "exact_value")
"""A caller's parsed value with its subclasses of JSON types read as those types, ``_walk.exact_value``."""
_context: Callable[[Options], Context] = on_first_use(globals(), "_context", "_walk", "Context")
"""A full check's state, ``_walk.Context`` (with the walk over open-shaped values), bound by the
first full check."""
_classify: Callable[[Context, object, str | int | None], Kind | None] = on_first_use(
    globals(), "_classify", "_check", "check_message")
"""The full checker, ``_check.check_message`` (and the rules' modules it imports: ``_envelope``,
``_error``, ``_result``, ``_content``, ``_icons``, ``_input``, ``_elicitation``, ``_sampling``,
``_meta``, ``_task``: eleven modules, ~2 ms of import), bound by its first run."""
_form_elicitation: Callable[[Mapping[str, Any]], bool] = on_first_use(
    globals(), "_form_elicitation", "_input", "form_elicitation")
"""Whether capabilities allow a form-mode elicitation, ``_input.form_elicitation`` (``_input``
imports the elicitation and sampling rules), bound by the first options given capabilities."""


_NO_EXTENSIONS: Final[frozenset[str]] = frozenset()
_STR: Final = frozenset({str})
_EXTENSIONS: Final = "an iterable of extension id strings"


def _check_capabilities(capabilities: object) -> None:
    if type(capabilities) is not dict and not isinstance(capabilities, Mapping):  # a dict without the ABC test
        raise OptionError("client_capabilities", "the capabilities object", capabilities,
                          "client_capabilities must be the capabilities object (a mapping), "
                          f"not {_shown(capabilities)}")
    # Unrolled, since classify runs this on each call given capabilities: a dict of dicts passes
    # here, anything else is looked at member by member (_check_capability)
    if "elicitation" in capabilities:
        value = capabilities["elicitation"]
        if type(value) is not dict or (value and (("form" in value and type(value["form"]) is not dict)
                                                  or ("url" in value and type(value["url"]) is not dict))):
            _check_capability("elicitation", value, ("form", "url"))
    if "sampling" in capabilities:
        value = capabilities["sampling"]
        if type(value) is not dict or (value and (("tools" in value and type(value["tools"]) is not dict)
                                                  or ("context" in value and type(value["context"]) is not dict))):
            _check_capability("sampling", value, ("tools", "context"))
    if "roots" in capabilities and type(capabilities["roots"]) is not dict:
        _check_capability("roots", capabilities["roots"], ())


def _check_capability(name: str, value: object, members: tuple[str, ...]) -> None:
    """A capability ``classify`` reads is an object, and so is each member of it that it reads
    (the schema's ``ClientCapabilities``): a member is declared by being present, so
    ``{"form": false}`` would declare form mode."""
    if type(value) is not dict and not isinstance(value, Mapping):
        raise OptionError(f"client_capabilities.{name}", "an object", value,
                          f"client_capabilities[{_shown(name)}] must be an object, not {_shown(value)}")
    for member in members:
        if member in value and type(value[member]) is not dict and not isinstance(value[member], Mapping):
            raise OptionError(f"client_capabilities.{name}.{member}", "an object", value[member],
                              f"client_capabilities[{_shown(name)}][{member!r}] must be an object (present, it "
                              f"declares {member}; leave it out not to), not {_shown(value[member])}")


MAX_EXTENSIONS: Final = 10_000
"""The most extension ids an iterator given as ``extensions`` is read for (a protocol negotiates
a handful): past it, an endless generator is the caller's mistake, not a hang."""


def _negotiated(extensions: object) -> frozenset[str]:
    """The extension ids of a non-empty built-in collection, or of any other iterable of
    strings, read once (a generator, a dict's keys); an ``OptionError`` for anything else: a
    string or bytes (iterable, but one id is no list of them), a mapping (whose iteration
    would silently give its keys alone: the capabilities' ``extensions`` object is not the list
    of ids), None or any value that is no collection at all, or a member that is no string."""
    if type(extensions) not in _COLLECTIONS:  # the built-in collections without the ABC tests
        if isinstance(extensions, Mapping):
            raise OptionError("extensions", _EXTENSIONS, extensions,
                              f"extensions must be {_EXTENSIONS}, not a mapping ({_shown(extensions)}); give the "
                              "negotiated ids, as a list or tuple")
        if isinstance(extensions, (str, bytes, bytearray, memoryview)) or not isinstance(extensions, Iterable):
            raise OptionError("extensions", _EXTENSIONS, extensions)
        given: list[object] = []  # member by member: an endless iterator stops at its first non-string, or past the cap
        for index, extension in enumerate(extensions):
            if index == MAX_EXTENSIONS:
                raise OptionError("extensions", f"at most {MAX_EXTENSIONS} extension ids", extensions,
                                  f"extensions must hold at most {MAX_EXTENSIONS} extension ids; {_shown(extensions)} "
                                  "holds more (an endless iterator?)")
            if not isinstance(extension, str):
                raise OptionError(f"extensions[{index}]", "an extension id string", extension)
            given.append(extension)
        extensions = given
    try:
        negotiated = extensions if type(extensions) is frozenset else frozenset(cast("Iterable[str]", extensions))
    except TypeError:  # an unhashable member ({} or []): no extension id string
        raise _bad_extension(extensions) from None
    if not _STR.issuperset(map(type, negotiated)) and not all(isinstance(e, str) for e in negotiated):
        raise _bad_extension(extensions)
    return negotiated


def _bad_extension(extensions: object) -> OptionError:
    """The first extension that is no string, by its place in a list or tuple (a set has none)."""
    if isinstance(extensions, (list, tuple)):
        for index, extension in enumerate(extensions):
            if not isinstance(extension, str):
                return OptionError(f"extensions[{index}]", "an extension id string", extension)
    return OptionError("extensions", _EXTENSIONS, extensions)



__all__ = ["MAX_EXTENSIONS", "InForce", "OptionsMemo", "check_fully", "classify_options", "held_id", "judge"]

"""The fast path: the common well-formed responses, recognised in one pass.

This module enforces no rule of its own. It recognises a few shapes that are both common
and plainly well-formed, and for those it returns the kind the full checker (``_envelope``,
``_error``, ``_result``, ``_content``, ``_input``, ``_walk``) would return, so that a common
response does not pay for the full checker's generality. It never produces a finding: for
anything it does not recognise it returns ``None``, and the full checker then runs from the
start and says what, if anything, is wrong. A rule lives where it always did, in the module
named for what it checks; this one only knows shapes on which no rule can fire.

The contract, held by ``tests/test_fastpath.py`` on every corpus case and on generated and
mutated responses: when :func:`read_common` (or :func:`read_typed`, its typed read of a short text,
which ``classify`` calls itself) or :func:`common_kind` returns a kind, the strict
reader and the full checker return the same kind, with no finding at all (not even a
warning), and the same parsed message.

Shapes recognised (exact JSON types only: a subclass of dict, str or int is "unusual"):

- the envelope ``{"jsonrpc": "2.0", "id": <str or int>, "result"|"error": ...}`` with exactly
  those three members, and the request id, when given, equal with the same JSON type;
- an error ``{"code": <int>, "message": <str>}`` with an optional ``data``, whose code is
  none the full checker must see (``VersionRules.full_check_codes``: -32099..-32002 on versions
  that warn about reserved codes, and the codes whose data the version types);
- a complete result (``resultType: "complete"``, or absent where the version reads absence
  as complete) with ``content`` of bare text blocks ``{"type": "text", "text": <str>}``,
  resource_link blocks (string uri and name, at most a string title, description and
  mimeType and an integer size) where the version defines them, and (parsed values only)
  image or audio blocks ``{"type", "data", "mimeType"}`` the version defines (on the wire
  these go to the strict reader, which reads long strings fastest); ``isError``
  absent or a JSON boolean; ``structuredContent`` where the version defines it (an object
  where the version requires one); ``_meta`` an object; no other member;
- an ``input_required`` result (on versions that define it, for a client whose capabilities
  are not given or declare form-mode elicitation) whose requests are all form-mode
  elicitations with a requested schema of common properties: string, number, integer or
  boolean schemas and untitled multi-selects whose keywords have their exact JSON types,
  string enums included (titled enums are left to ``_elicitation``);
- in a result ``_meta``, every key in the key name format where the version has it
  (``_meta_keys``), no trace-context key where the version formats them (``_trace_context``),
  and no key the version reserves with a type but a serverInfo of the plainest Implementation
  shape (string members only; icons are left to ``_meta``);
- the open-shaped values inside them (structuredContent, _meta, error data, the requested
  schema) hold only JSON values with finite numbers and string member names, within the
  depth limit and the node budget: the bounds ``_walk.check_value`` applies.

Two ways in, one contract:

- :func:`read_common` reads wire text. The shapes above are declared as types, per version
  and depth limit, and msgspec reads the text against them in C (refusing what the strict
  reader, ``_parser``, refuses: invalid UTF-8, lone surrogates, NaN and Infinity, numbers
  beyond a double such as 1e400, control characters, trailing data...). So every member it
  returns already has the JSON type its declaration names, an open-shaped value nests no
  deeper than the limit, and a member not declared is dropped. What types cannot say (the
  request id, reserved codes, which members go together, property types) is checked after
  the read.
- :func:`common_kind` checks a parsed value: the caller's, or the strict reader's (which
  reads 1e400 as infinity). Every value is inspected: exact types, finite numbers, string
  member names; and in the caller's (``caller``), strings UTF-8 can carry, member names
  included: a surrogate code point (U+D800..U+DFFF) is in no string a reader builds (each
  refuses a lone surrogate's escape: ``json.encoding``), so a value holding one is unusual, and
  the full checker names it (``_walk.unencodable``). An ASCII string, the commonest, is told at
  once (``str.isascii`` reads a flag CPython keeps); any other is encoded (in C, under 1 ns a
  character).

msgspec keeps the last copy of a repeated member name silently, and drops undeclared ones;
its value is used only when one of two proofs holds:

- the write-back: orjson, writing it back, produces exactly the text (followed by nothing
  but whitespace). The text is then the writing of Python dicts, whose keys are distinct,
  with orjson's one-to-one escaping: it repeats no member name and holds no member the value
  lacks. Compact JSON as the TypeScript and Python SDKs write it is such a text;
- the colon count, for a text of at most 4 KiB written otherwise (``json.dumps``' spaced
  separators, escaped non-ASCII, ``1e2``...) that holds no ``\\u003`` (no colon written as an escape): the text
  holds as many colon bytes as orjson's writing of the value. Every colon of a JSON text
  either follows a member name (one per member) or sits raw inside a string; the value has
  at most the text's members (fewer if a name repeats in an object or msgspec dropped a
  member) and at most its raw string colons (each string of the value is a string of the
  text, whose colons are all raw), and orjson writes one colon per member and every string
  colon raw. Equal counts thus leave no member repeated or dropped;
- the strict reader (``_parser.read_strict``), on a text of at most 4 KiB neither proves: it
  reads the text without error, so no member name repeats, to a value equal to msgspec's,
  so msgspec dropped nothing; the strict reader's value is the one kept.

A text longer than 4 KiB that starts ``{"jsonrpc": `` (spaced, as ``json.dumps`` writes) is
mostly strings, often escaped, which orjson reads fastest (the typed read and the strict reader
cost 1.5-2.5x more on the benchmark's 20 kB text); so is a compact text longer than 2.5 KiB
that is mostly long strings past ASCII (:func:`wide_text`: CJK, emoji), whose characters msgspec
builds more slowly than orjson (and CPython encodes afresh for the write-back). orjson refuses
what the strict reader refuses but a repeated member name (it keeps the last) and reads an
integer past 64 bits as a float; its value is used (:func:`read_quoted`, then
:func:`common_kind`) only when one of two proofs holds:

- the splice, when the first content block is a long text past ASCII (:func:`_spliced`): the
  write-back with that text left out. The value is written with the text swapped for a
  sentinel, and the text must be that writing with the sentinel's string token replaced by
  one string token, the text's own bytes (writing them is most of a whole write-back's cost);

- the quote count, when the value holds no float of 2**63 or more in magnitude: the text holds
  as many double-quote bytes as twice the value's strings (member names included) plus the
  double quotes inside them, and, when there are any inside, no ``\\u0022``. Every quote byte
  of a JSON text opens or closes a string or is the second byte of a ``\\"`` escape, so the
  text holds two per string of the text plus one per such escape. Each string of the value is a
  string of the text, and a repeated name drops at least one string (the name) from the value: a
  text with a repeated name holds at least two quote bytes more than the count, unless quotes
  written ``\\u0022`` (a quote in the value, no quote byte in the text) make up the difference —
  hence the second condition.

Bytes that are no UTF-8 (RFC 8259 section 8.1): msgspec checks the UTF-8 of each string as it
builds it, so its typed read would build every value before such a byte and only then refuse the
text (~17 ns a small token: a listing of 200 KiB of one-digit numbers then such a byte cost ~0.9
ms, ~280x ``orjson.loads``, which checks a whole text's UTF-8 first and refuses it at once). So
a text longer than :data:`_WIDE_BYTES` that goes to the typed read is first told ASCII by
``bytes.isascii`` (in C, ~0.035 ns a byte; it stops at the first byte past ASCII) and then read
(past 64 KiB of dense tokens, not even that: :data:`_DECODED_BYTES`); any other is left unread
(:func:`read_common`'s ``False``) for the caller to check its UTF-8 first (``_parser.not_utf8``:
CPython's decoder a block at a time, ~0.05 ns a byte of ASCII, ~0.6-1.2 ns past it), which names
the byte at once, else calls again with ``utf8``. Measured side by side (4 to 200 KiB): such a
text of small tokens then the byte costs 2.3-4.1x ``orjson.loads`` (was 18-250x), a long ASCII
string then the byte 2.4-6.9x (was 4.7-25x), records with CJK names then the byte 3-11x (was
20-160x). A well-formed text past ASCII pays one more decoding of its characters past ASCII
(msgspec decodes them once more itself): 0-20% of such a listing's bytes to verdict (short CJK
strings the most, +13-18%: 2.7x -> 3.1x ``orjson.loads`` at 4 KiB); an ASCII listing, ~1-2%; a
long ASCII string, whose typed read costs least, 10-30% (the 100 kB image block, 0.48x ->
0.62x). A text of at most :data:`_WIDE_BYTES` is read at once whatever it holds: there the check
would cost the common answers more than it spares the wrong ones (``bytes.isascii`` ~0.05 us on
a 300 B answer of ~2 us; the decoding ~1 us on the 1 kB CJK block's ~3.3 us), and such a text of
small tokens or records then the byte costs 6-13x ``orjson.loads``' 1-2 us. orjson's route
checks a text's UTF-8 itself, first, as fast as orjson does; where orjson refuses it, CPython's
decoder names the byte (~0.6-1.2 ns a byte past ASCII: a long CJK text then the byte 5x at 4
KiB, 10-12x at 64-200 KiB). No faster way to name it was found: orjson does not say where the
byte is, and its read of a part that is UTF-8 builds that part's string (its error's doc string
included), so halving the text with it pays for every valid byte before the bad one as the
decoder does (measured: at best ~1.2x faster on long CJK, slower on mixed text).

Anything else goes to the strict reader, which decides and explains. A content block other
than a bare text block makes the first typed read fail; the text is then read once more with
text and resource_link blocks declared together (their member combinations checked in one
look per block), so that a block costs about the same whatever its type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final, Literal, NewType, NotRequired, TypedDict, Union

import msgspec

from ._common_kind import (
    _INPUT_REQUIRED,
    _NORMAL_COMPLETE,
    _PROTOCOL_ERROR,
    _TOOL_ERROR,
    _open_value,
    _plain_property,
    common_kind,
    plain_meta,
)
from ._options import Options
from ._verdict import Verdict, make_verdict
from ._versions import RULES_BY_VERSION, VersionRules

_ALONE: Final = ("string", "number", "integer", "boolean")
"""The types a requested property's schema may give alone (``{"type": "string"}``): a tuple, whose
``in`` compares (a string compared with each in turn) where a set's would hash a string msgspec just
built, and fail on a list."""
_ESCAPED_COLON: Final = b"\\u003"
"""How a colon inside a string can be written other than as itself (``\\u003a``, ``\\u003A``;
the digits ``\\u0030``..``\\u0039`` are refused alike): the colon count proves nothing then.
Looked for with ``bytes.find``: ``in`` on bytes first tries its operand as an integer and
clears the TypeError, which costs more than the search on a short text."""
_ESCAPED_QUOTE: Final = b"\\u0022"
"""A double quote inside a string written as an escape other than ``\\"``: the quote count
(:func:`read_quoted`) proves nothing when the value's strings hold quotes and the text this."""
_BIG_FLOAT: Final = 9.2e18
"""Below 2**63 in magnitude (9.223e18): a float orjson read there was written as a float. orjson
reads an integer past 64 bits (2**64, -2**63 - 1) as a float; the strict reader, exactly."""
_WIDE_BYTES: Final = 2560
"""Compact texts longer than this that are mostly long strings past ASCII (:func:`wide_text`)
are read by orjson: below it the proof's fixed cost (~1 us of Python for the splice, ~2.5 us
for the quote count, then ``common_kind``) outweighs msgspec's slower strings and their
write-back (measured side by side on CJK, emoji and French texts of 1 to 8 kB: orjson's
route is the cheaper from ~2.5-3 kB). Longer texts that go to msgspec's typed read are first told
ASCII, or else checked to be UTF-8 (module docstring, "Bytes that are no UTF-8")."""
_LINK_REFUSED: Final = "value 'resource_link' - at `$.result.content["
"""How msgspec's refusal of a resource_link block by the declaration of bare text blocks reads
(``Invalid enum value 'resource_link' - at `$.result.content[0].type```)."""
_ASCII_STRICT_BYTES: Final = 4608
"""A compact text longer than this that is mostly long ASCII strings (:func:`long_ascii`) is left
to the strict reader, which reads such strings fastest. Below it the typed read and its proof
cost as much or less (measured side by side in one process, one text block of English prose
with a newline every 57 characters, bytes to verdict: 3.2 kB 3.88 us typed, 4.35 us strict;
4.2 kB 4.31 / 4.47 us; 6.2 kB 5.24 / 4.79 us; 8.2 kB 6.35 / 5.12 us; 20 kB 12.6 / 7.6 us;
61 kB 32.5 / 14.8 us; the 100 kB image block 17.2 / 11.1 us)."""
_COUNTED_BYTES: Final = 8192
"""The quote count of a text this long or shorter is ``bytes.count``'s (:func:`_quotes`) ..."""
_FOUND: Final = 32
"""... of a longer one, this many quotes are found one by one before the rest is counted."""
_STRICT_PROOF_BYTES: Final = 4096
"""The longest text the strict reader proves for the fast path when a write-back cannot. On a
small text the typed read and the strict reader together cost less than the strict reader and
``common_kind``'s checks in Python; on a longer one, mostly strings, the typed read costs more
than it spares (and a wrong text would be read twice)."""
_DECODED_BYTES: Final = 1 << 16
"""A text longer than this for the typed read whose tokens are dense at its middle (more than
:data:`_DENSE_COMMAS` commas in its 512 middle bytes, one count in C) is left to the caller's UTF-8
check at once, without ``bytes.isascii`` first (module docstring, "Bytes that are no UTF-8"): the
decoder reads ASCII nearly as fast (~0.05 ns a byte against ~0.035), so a wrong text is read once,
not twice (200 KiB of small tokens then a byte that is no UTF-8: ~6x ``orjson.loads`` -> ~3.5x),
and a listing that is UTF-8 pays ~0.015 ns a byte and the second call (~1.5 us): under 0.5% of its
bytes to verdict past 64 KiB (~0.6 ms and more). Below it, or where a long string runs at the
middle (whose typed read costs least: a long ASCII string ~0.35 ns a byte), the second call and
the slower pass would cost a well-formed text more than they spare a wrong one."""
_DENSE_COMMAS: Final = 32
"""One comma per 16 bytes, as ``_parser._dense`` counts dense tokens."""
_NOT_UTF8: Final = "Invalid UTF-8 encoded string"
"""msgspec's refusal of a text that is no UTF-8 (the text is then checked before the strict reader
reads it: :func:`read_common`'s ``False``)."""
_NOT_UTF8_ORJSON: Final = "str is not valid UTF-8"
"""The start of orjson's refusal of such a text (it checks the whole text's UTF-8 first)."""
_SPLICED_CHARS: Final = 128
"""A first text block of this many characters or more, past ASCII, is left out of the write-back
that proves orjson's value (:func:`_spliced`); a shorter one costs less to write than to look for."""
_SENTINEL: Final = "\x00"
_SENTINEL_WRITTEN: Final = b':"\\u0000"'
"""How orjson writes :data:`_SENTINEL` as a member's value."""
_QUOTE: Final = ord('"')
_BACKSLASH: Final = ord("\\")


# --- wire text: the common shapes, declared for msgspec -------------------------------------
# The shapes are declared per version (the members a version defines, the resultType values
# it knows, the shape of structuredContent) and per depth limit: an open-shaped value is
# declared as JSON nested no deeper than the limit allows, so that msgspec itself refuses a
# value nested too deep. Declaring nesting level by level costs msgspec a type node per
# possible path, twice as many per level; past _TYPED_DEPTH a value is left to the full
# checker, which reads it at any depth the limit allows.

_TYPED_DEPTH: Final = 8
"""The deepest level (the envelope being level 1) at which the declared shapes hold an
object or array; ``structuredContent`` may thus nest six levels inside itself. msgspec's
build of a reader grows with each level (~1 ms at 8, ~2.3 ms at 10, measured, each level a
NewType: :func:`_json_levels`): the first call on a version pays it, so the common shapes stop
where real responses do."""
_FIXED_DEPTH: Final = 9
"""The level of the deepest member the common shapes fix: a requested property's members."""
# The shapes are built from member types computed at run time, which mypy cannot read as
# types: it sees these as plain values.
_TYPED_DICT: Final[Any] = TypedDict
_UNION: Final[Any] = Union
_NOT_REQUIRED: Final[Any] = NotRequired
_NEW_TYPE: Final[Any] = NewType
_DICT: Final[Any] = dict
_LIST: Final[Any] = list


@functools.cache
def _members() -> tuple[Any, Any, Any]:
    """(a bare text block, a text or resource_link block, a requested property's member): the
    shapes every version's reader holds, built with the first reader (~0.15 ms an import of
    classify need not pay)."""
    text_block = _TYPED_DICT("_TextBlock", {"type": Literal["text"], "text": str})
    block = _TYPED_DICT("_Block", {  # which members go together is checked after the read
        "type": Literal["text", "resource_link"], "text": _NOT_REQUIRED[str], "uri": _NOT_REQUIRED[str],
        "name": _NOT_REQUIRED[str], "title": _NOT_REQUIRED[str], "description": _NOT_REQUIRED[str],
        "mimeType": _NOT_REQUIRED[str], "size": _NOT_REQUIRED[int]})
    # a requested property's member (level 9): a multi-select's items hold a list at level 10
    property_member = _UNION[str, int, float, bool, None, _LIST[str], _DICT[str, _UNION[str, _LIST[str]]]]
    return text_block, block, property_member


def _json_levels(deepest: int) -> dict[int, Any]:
    """The type of a JSON value at each nesting level from 3 on, holding objects and arrays
    at levels up to ``deepest`` only.

    Each level is a NewType of its union, which msgspec reads as the union itself. A bare
    union holds the next level twice (an object's members, an array's elements), and typing's
    ``_eval_type``, which msgspec runs over each TypedDict's annotations when it builds a
    reader, walks those as a tree (2**levels visits) but stops at a NewType: the reader of the
    shapes to level 8 is built in ~1 ms instead of ~3 ms (measured), on each version's first
    call."""
    levels: dict[int, Any] = {deepest + 1: _UNION[str, int, float, bool, None]}
    for level in range(deepest, 2, -1):
        inner = levels[level + 1]
        union = _UNION[str, int, float, bool, None, _DICT[str, inner], _LIST[inner]]
        levels[level] = _NEW_TYPE(f"_Level{level}", union)
    return levels


def _envelope_type(rules: VersionRules, deepest: int, links: bool = False) -> Any:
    """The common response shapes of one version, open-shaped values nested at most to
    level ``deepest``; content blocks bare text blocks, or with ``links`` text and
    resource_link blocks."""
    levels = _json_levels(deepest)
    text_block, block, property_member = _members()
    result: dict[str, Any] = {
        "resultType": Literal["complete", "input_required"] if rules.input_required else Literal["complete"],
        "content": _NOT_REQUIRED[_LIST[block if links else text_block]],
        "isError": _NOT_REQUIRED[bool],
        "_meta": _NOT_REQUIRED[_DICT[str, levels[4]]],
    }
    if not rules.result_type_required and not rules.input_required:  # (read_typed reads it at once where it tells
        result["resultType"] = _NOT_REQUIRED[result["resultType"]]  # an input_required result)
    if rules.structured_content == "object":
        result["structuredContent"] = _NOT_REQUIRED[_DICT[str, levels[4]]]
    elif rules.structured_content == "any":
        result["structuredContent"] = _NOT_REQUIRED[levels[3]]
    if rules.input_required:
        schema = _TYPED_DICT("_RequestedSchema", {
            "type": Literal["object"],
            # each property's members: scalars, lists of strings (enum, default) or a multi-select's
            # items {"type": "string", "enum": [...]}; their shapes are checked after the read
            "properties": _DICT[str, _DICT[str, property_member]],
            "required": _NOT_REQUIRED[_LIST[str]]})
        params = _TYPED_DICT("_FormParams", {
            "mode": _NOT_REQUIRED[Literal["form"]], "message": str, "requestedSchema": schema})
        elicitation = _TYPED_DICT("_Elicitation", {"method": Literal["elicitation/create"], "params": params})
        result["inputRequests"] = _NOT_REQUIRED[_DICT[str, elicitation]]
        result["requestState"] = _NOT_REQUIRED[str]
    error = _TYPED_DICT("_Error", {"code": int, "message": str, "data": _NOT_REQUIRED[levels[3]]})
    return _TYPED_DICT("_Envelope", {
        "jsonrpc": Literal["2.0"], "id": int | str,
        "result": _NOT_REQUIRED[_TYPED_DICT("_Result", result)], "error": _NOT_REQUIRED[error]})


def common_reader(version: str, max_depth: int) -> Callable[[bytes], Any] | None:
    """msgspec's reader of the common shapes of ``version`` under a depth limit, for
    ``Options.read_common``; ``None`` when the limit leaves no room for them."""
    return _reader(version, min(max_depth, _TYPED_DEPTH)) if max_depth >= _FIXED_DEPTH else None


@functools.cache
def _reader(version: str, deepest: int, links: bool = False) -> Callable[[bytes], Any]:
    """Built on first use (a few milliseconds), remembered: a pure function of its arguments."""
    return msgspec.json.Decoder(_envelope_type(RULES_BY_VERSION[version], deepest, links)).decode


def _read_links(data: bytes, options: Options, problem: msgspec.ValidationError) -> Any:
    """The text read again with text and resource_link blocks declared, when the read of bare
    text blocks failed on a resource_link block (its type the first value refused: msgspec's
    words, :data:`_LINK_REFUSED`); ``None`` otherwise or if the blocks do not go together.
    Each block then costs one look in Python whatever its type (as ``common_kind`` checks
    blocks)."""
    rules = options.rules
    if "resource_link" not in rules.content_types or _LINK_REFUSED not in str(problem):
        return None  # (an image or audio block, which neither declaration holds: not read twice)
    try:
        message = _reader(rules.version, min(options.max_depth, _TYPED_DEPTH), True)(data)
    except Exception:  # as in read_common
        return None
    content = message.get("result", {}).get("content", ())
    for block in content:
        if block["type"] == "text":
            if len(block) != 2 or "text" not in block:
                return None
        elif "uri" not in block or "name" not in block or "text" in block:
            return None
    return message


def read_common(data: bytes, options: Options, request_id: str | int | None,
                count_values: bool = False, utf8: bool = False) -> Verdict | Literal[False] | None:
    """The verdict on a common well-formed response read from wire text; ``None`` to leave
    the text to the strict reader and the full checker, ``False`` when its reader refused it
    as no UTF-8, or when it left unread a text longer than :data:`_WIDE_BYTES`, for its typed
    read, holding a byte past ASCII (module docstring, "Bytes that are no UTF-8"): the caller
    checks the text's UTF-8 (before the strict reader reads it to that byte again), and if it
    is, calls again with ``utf8``. ``options.read_common`` is set; ``count_values`` when the
    text is longer than ``options.max_nodes``; ``utf8``: the caller has checked the text's UTF-8.
    A text of at most :data:`_WIDE_BYTES` goes to :func:`read_typed` at once."""
    if len(data) > _WIDE_BYTES:
        try:
            if data[11] == 32:  # spaced: {"jsonrpc": "2.0" as json.dumps writes it, which orjson never writes
                if len(data) > _STRICT_PROOF_BYTES:  # long and mostly strings: which orjson reads fastest,
                    return read_quoted(data, options, request_id)  # the quote count proving it
            else:
                middle = _middle_string(data)
                if middle:  # long strings past ASCII: which orjson reads fastest, the splice or the quote
                    return read_quoted(data, options, request_id)  # count proving it
                if middle is False and len(data) > _ASCII_STRICT_BYTES and long_ascii(data):
                    return None  # long ASCII strings: which the strict reader reads fastest, needing no proof
            if not utf8 and ((len(data) > _DECODED_BYTES  # dense tokens at its middle: decoded at once
                              and data.count(b",", (len(data) >> 1) - 256, (len(data) >> 1) + 256) > _DENSE_COMMAS)
                             or not data.isascii()):
                return False  # maybe no UTF-8: checked first, so that no value is built before such a byte
        except Exception:  # (none expected: as the typed read's)
            return None
    verdict = read_typed(data, options, request_id)
    if count_values and verdict:
        message = verdict.message
        if not _within_budget(message["result"] if "result" in message else message["error"], options):
            return None
    return verdict


def read_typed(data: bytes, options: Options, request_id: str | int | None) -> Verdict | Literal[False] | None:
    """:func:`read_common`'s typed read, its proofs and the checks after it, without the routing of
    long texts or the node budget: ``classify`` calls it itself on a text of at most
    ``options.quick_typed`` bytes (within :data:`_WIDE_BYTES` and ``options.max_nodes``)."""
    read = options.read_common  # (a slot's value called at once would be looked up as a method, unspecialised)
    try:
        message: Any = read(data)  # type: ignore[misc]
    except msgspec.ValidationError as problem:  # not the shapes: maybe other blocks
        message = _read_links(data, options, problem)
        if message is None:
            return None
    except msgspec.DecodeError as problem:  # not JSON, 1e400, too deep; no UTF-8
        return False if str(problem) == _NOT_UTF8 else None
    except Exception:  # (none expected: msgspec refuses a text with one of the two above)
        return None
    # The proofs (module docstring). The write-back: msgspec accepted all of data, so whatever
    # follows the written value is whitespace. A spaced text (data[11]: a text msgspec reads is
    # longer) cannot be written back: it goes to the colon count at once.
    try:
        written = _write(message)
    except Exception:  # orjson: an integer beyond 64 bits
        written = b""
    if written != data and (data[11] == 32 or not (written and data.startswith(written))) and (
            len(data) > _STRICT_PROOF_BYTES or not written  # (on a long text counting costs more than it spares)
            or data.count(b":") != written.count(b":") or data.find(_ESCAPED_COLON) >= 0):  # the colon count
        message = _strictly_proven(data, message)
        if message is None:
            return None
    if len(message) != 3:  # jsonrpc, id, result|error
        return None
    if request_id is not None and (type(message["id"]) is not type(request_id) or message["id"] != request_id):
        return None
    result = message.get("result")
    if result is None:
        if message["error"]["code"] in options.rules.full_check_codes:
            return None  # maybe a reserved or retired code (a warning), or one whose data the version defines
        return make_verdict(_PROTOCOL_ERROR, (), options.rules.version, message)
    if "_meta" in result and not plain_meta(result["_meta"], options.rules):
        return None  # a key out of format, a trace-context key, a reserved key of a richer shape: _meta's
    if not options.rules.input_required or result["resultType"] != "input_required":  # (then required: the reader's)
        if "content" not in result or "inputRequests" in result or "requestState" in result:
            return None
        return make_verdict(_TOOL_ERROR if result.get("isError") is True else _NORMAL_COMPLETE, (),
                            options.rules.version, message)
    if "content" in result or "isError" in result or "structuredContent" in result:
        return None
    requests = result.get("inputRequests")
    if requests is None:
        if "requestState" not in result:
            return None  # neither inputRequests nor requestState
    elif not requests or not options.form_elicitation:  # (every request is a form elicitation)
        return None
    else:
        for request in requests.values():
            for definition in request["params"]["requestedSchema"]["properties"].values():
                if len(definition) == 1 and definition.get("type") in _ALONE:
                    continue  # {"type": ...} alone, the commonest, seen here (an array needs its items)
                if not _plain_property(definition) or ("items" in definition and options.max_depth < 10):
                    return None  # (a multi-select's enum sits at level 10)
    return make_verdict(_INPUT_REQUIRED, (), options.rules.version, message)


def _spliced(data: bytes, message: Any) -> bool:
    """The write-back proof with the first content block's text left out, when that text is
    long and past ASCII (orjson's writing of such a string is mostly its UTF-8 encoding, which
    CPython makes afresh for a string a reader just built: ~0.6 us per kB of CJK). The text is
    swapped for :data:`_SENTINEL` while the value is written; the proof holds when ``data`` is
    that writing with the sentinel's string token replaced by one string token.

    Why that suffices: the writing is the text of Python dicts (no member name repeated, no
    member the value lacks, as for the whole write-back), and a string token in place of
    another, where a member's value stands (after a colon: a member name never does), changes
    no member name. The span between the two parts holds no quote byte but its first and last,
    and its last is not escaped (the byte before it is no backslash), so it is one string
    token; the reader (orjson; msgspec's typed read alike) read ``data`` to this value, so that
    token is the text's. An integer past 64 bits, which orjson reads as a float, is written
    back as a float (with a point or an exponent): the parts then differ from the text."""
    try:
        block = message["result"]["content"][0]
        text = block["text"]
    except Exception:  # an error, no content, a first block that is not text; no object (orjson's value)
        return False
    if type(text) is not str or len(text) < _SPLICED_CHARS or text.isascii():  # (ASCII: UTF-8 is its bytes)
        return False
    block["text"] = _SENTINEL
    try:
        written = _write(message)
    except Exception:  # orjson: an integer beyond 64 bits
        return False
    finally:
        block["text"] = text
    at = written.find(_SENTINEL_WRITTEN) + 1  # (the colon's place, and one: where the token starts)
    if at <= 0 or not data.startswith(written[:at]):
        return False
    tail = written[at + len(_SENTINEL_WRITTEN) - 1:]
    end = len(data) - len(tail)  # (where the token ends)
    return (end - at >= 2 and data.endswith(tail) and data[at] == _QUOTE and data[end - 1] == _QUOTE
            and data[end - 2] != _BACKSLASH and data.find(b'"', at + 1, end - 1) < 0)


def wide_text(data: bytes) -> bool:
    """Whether a compact text is mostly long strings holding characters past ASCII, as told by
    the 512 bytes at its middle: no quote byte there (one long string runs there: a listing,
    whose values msgspec reads fastest, shows dozens) and a byte past ASCII. msgspec builds a
    string of characters past Latin-1 (CJK, emoji, an em dash) at ~1.6x ``orjson.loads``' time,
    so that the typed read and the write-back cost 2.6-2.8x where orjson's read and the splice
    cost 1.2-2.2x from ~2.5 kB (``benchmarks/bench_classify.py``'s CJK and emoji shapes). Its cost:
    ~0.2 us whatever the text's size (an ASCII text with one bad byte is not read to its end
    here: its error path stays as it was)."""
    return _middle_string(data) is True


def _middle_string(data: bytes) -> bool | None:
    """What the 512 bytes at the middle of a text say of it: None when they hold a quote byte (no
    long string runs there); else whether they hold a byte past ASCII (True: :func:`wide_text`;
    False: a long ASCII string runs there, :func:`long_ascii` looks further)."""
    start = max((len(data) >> 1) - 256, 0)  # (a negative start would count from the end)
    if data.find(b'"', start, start + 512) >= 0:
        return None
    return not data[start:start + 512].isascii()


def long_ascii(data: bytes) -> bool:
    """Whether a compact text whose 512 bytes at the middle hold no quote byte and no byte past
    ASCII (the caller looked: :func:`_middle_string`) is mostly long ASCII strings (a long text
    block, an image's or an audio clip's base64 data): the 512 bytes at a quarter and at three
    quarters of it hold none either, and none of the three windows holds dense tokens (at most
    :data:`_DENSE_COMMAS` commas: a listing of numbers holds no quote either, one comma every two
    bytes, and its values the typed read builds fastest, ~4x faster than the strict reader and
    ``common_kind``'s walk; prose holds ~10). The strict reader (jiter) reads long strings at ~13
    GB/s where orjson and msgspec read them at ~3.5 GB/s (60 kB of text: jiter with duplicate
    names caught 5.3 us, ``orjson.loads`` 17 us, msgspec 15 us), and it needs no proof: from 4.5
    KiB the text goes to it at once (:data:`_ASCII_STRICT_BYTES`)."""
    step = len(data) >> 2
    quarter = step - 256
    middle = quarter + step
    last = middle + step
    return (data.find(b'"', quarter, quarter + 512) < 0 and data[quarter:quarter + 512].isascii()
            and data.find(b'"', last, last + 512) < 0 and data[last:last + 512].isascii()
            and data.count(b",", middle, middle + 512) <= _DENSE_COMMAS
            and data.count(b",", quarter, quarter + 512) <= _DENSE_COMMAS
            and data.count(b",", last, last + 512) <= _DENSE_COMMAS)


def _quotes(data: bytes) -> int:
    """The quote bytes of ``data``: counted by ``bytes.count`` (~3 GB/s, half of orjson's read
    of a long CJK text) on a short text, else found one after another by ``bytes.find``
    (``memchr``, ~0.1 us a quote), which on a text of few long strings reads ten to twenty
    times faster; past :data:`_FOUND` quotes the rest is counted."""
    if len(data) <= _COUNTED_BYTES:
        return data.count(b'"')
    found = 0
    at = data.find(b'"')
    while at >= 0:
        found += 1
        if found == _FOUND:
            return found + data.count(b'"', at + 1)
        at = data.find(b'"', at + 1)
    return found


def read_quoted(data: bytes, options: Options, request_id: str | int | None) -> Verdict | Literal[False] | None:
    """The verdict on a long text that is mostly strings (:func:`wide_text`, or spaced as
    ``json.dumps`` writes it) read by orjson, when the splice or the quote count proves orjson's
    value is the strict reader's; ``None`` to leave it to the strict reader, ``False`` when
    orjson refused it as no UTF-8 (as :func:`read_common`)."""
    verdict = quoted(data, options, request_id)
    return verdict if type(verdict) is Verdict else None if verdict is not None else False


def quoted(data: bytes, options: Options, request_id: str | int | None) -> Verdict | bool | None:
    """:func:`read_quoted`'s verdict, else whether orjson read the whole text without error
    (what the count or ``common_kind`` do not prove): the text is then UTF-8, which orjson
    checks before it reads (a text that is not fails at once), and the caller need not check it
    again before the strict reader reads it; ``None`` when orjson refused it as no UTF-8."""
    try:
        message = _loads(data)
    except ValueError as problem:  # orjson.JSONDecodeError
        return None if str(problem).startswith(_NOT_UTF8_ORJSON) else False
    if not _spliced(data, message):
        strings, quotes = _strings(message)
        if strings < 0 or _quotes(data) != 2 * strings + quotes or (quotes and data.find(_ESCAPED_QUOTE) >= 0):
            return True
    kind = common_kind(message, options, request_id)
    return True if kind is None else make_verdict(kind, (), options.rules.version, message)


def _import_write(value: Any) -> bytes:
    """orjson's ``dumps``, imported by the first write-back, which binds it for the next ones:
    an import of classify does not pay for orjson (~0.5 ms, with the json module it imports
    ~1.7 ms); the first call on a compact text does."""
    global _write  # noqa: PLW0603 - replaced once, by the library's own function
    import orjson
    _write = orjson.dumps
    return _write(value)


def _import_loads(data: bytes) -> Any:
    """orjson's ``loads``, imported as :func:`_import_write` imports ``dumps``."""
    global _loads  # noqa: PLW0603 - replaced once, by the library's own function
    import orjson
    _loads = orjson.loads
    return _loads(data)


_write: Callable[[Any], bytes] = _import_write
"""The write-back proof's writer: orjson's ``dumps`` once :func:`_import_write` has run."""
_loads: Callable[[bytes], Any] = _import_loads
"""The reader of long spaced texts: orjson's ``loads`` once :func:`_import_loads` has run."""


def _strings(value: Any) -> tuple[int, int]:
    """(the strings of a value read by orjson, member names included; the double quotes in
    them), or (-1, 0) when it holds a float orjson may have read from an integer past 64 bits
    (at least 2**63 in magnitude), which the strict reader reads exactly."""
    strings = quotes = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            strings += 1
            if '"' in item:  # (a search costs a tenth of a count, which few strings need)
                quotes += item.count('"')
        elif kind is dict:
            strings += len(item)
            for key in item:
                if '"' in key:
                    quotes += key.count('"')
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float and not -_BIG_FLOAT < item < _BIG_FLOAT:
            return -1, 0
    return strings, quotes


def _strictly_proven(data: bytes, message: Any) -> Any:
    """The strict reader's value of ``data`` when it equals the typed read ``message`` (the
    second proof of the module docstring), on a text of at most :data:`_STRICT_PROOF_BYTES`;
    ``None`` otherwise."""
    if len(data) > _STRICT_PROOF_BYTES:
        return None  # the strict reader reads it next anyway, and explains
    strict = _read_strict(data)  # or NOT_PARSED, a bare object, which equals no message
    return strict if strict == message else None


def _import_read_strict(data: bytes) -> object:
    """``_parser.read_strict``, imported by the first proof that needs it, which binds
    :data:`_read_strict` to it: an import of classify does not load the strict reader's module,
    nor does a compact text that the write-back proves."""
    global _read_strict  # noqa: PLW0603 - replaced once, by the reader's own function
    from ._parser import read_strict
    _read_strict = read_strict
    return read_strict(data)


_read_strict: Callable[[bytes], object] = _import_read_strict
"""The strict reader's value or ``_parser.NOT_PARSED``: ``_parser.read_strict`` once bound."""


def _within_budget(owner: Any, options: Options) -> bool:
    """The open-shaped values in ``owner`` (a result or an error read by :func:`read_common`)
    hold no more values than the node budget, counted as ``_walk.check_value`` counts them."""
    values = [(owner[name], 3) for name in ("_meta", "structuredContent", "data") if name in owner]
    values.extend((request["params"]["requestedSchema"], 6) for request in owner.get("inputRequests", {}).values())
    budget = options.max_nodes
    for value, depth in values:
        budget = _open_value(value, depth, options.max_depth, budget)
        if budget < 0:
            return False
    return True

"""The error path is bounded: time and peak memory of classify on wrong texts of 1, 8 and 60 MiB.

Run: python benchmarks/bench_bounds.py [--sizes 1,8,60] [--rounds N]
     python benchmarks/bench_bounds.py --cases UTF-8 [--sizes 1,8,60]   (the cases whose name holds it)
     python benchmarks/bench_bounds.py --kib 4,64,200 [--cases UTF-8]   (texts of KiB: the fast path's)
     python benchmarks/bench_bounds.py --valid [--rounds N]

Each text is a tools/call response within the default limits (64 MiB) with one wire error
placed after most of its bytes, where finding and explaining the error costs the most:

- a long string, then a duplicate member name (``json.duplicate_key``);
- a long string, then a bad escape (``json.syntax``);
- a long string, then data after the value (``json.trailing_data``);
- many small tokens (a listing of one-digit numbers in structuredContent, one token every two
  bytes: 0.5 million at 1 MiB, 30 million at 60 MiB), then a syntax error;
- the same tokens, the text cut off inside the listing (a stream that stopped);
- the same tokens, then a duplicate member name;
- short strings (a listing of two-letter strings, a token every five bytes), then a duplicate
  member name;
- small objects (a listing of ``{"a":1}``, three names, braces or colons every eight bytes),
  then a duplicate member name: names too dense for the skim's duplicate search, so jiter
  finds it, having built the listing (``_parser`` module docstring);
- small tokens with a small object every 2 KiB, then a duplicate member name: names sparse,
  but past the duplicate search's budget (one brace, colon or backslash per 4 KiB), so jiter
  finds it, having built the listing;
- a long string of CJK (characters past ASCII: orjson reads the text first, and checks its
  UTF-8 itself), then a duplicate member name, a bad escape or a byte that is no UTF-8;
- small tokens, then a string holding a byte that is no UTF-8, and a long string, then such a
  byte (``json.encoding``: orjson.loads checks a text's UTF-8 before reading it and refuses it
  at once; a text longer than 256 KiB is checked first here too, a block at a time, whatever
  its tokens: ~0.04 ms per MiB of ASCII, ~0.4 ms per MiB of French prose); small records with
  names past ASCII (CJK file names), then such a byte;
- well-formed, with a warning where most of the text is (the result stands: ``normal_complete``):
  a ``_meta`` key of one-letter labels and no slash that ends with a hyphen, a ``_meta`` of keys
  out of the key name format (``meta.key_name``), a ``baggage`` of one-letter properties ending
  in a space (``meta.trace_context``): each a pattern group a label or a property
  (docs/performance-history.md, stop 51).

``--kib``: the same texts at sizes in KiB (up to 256 KiB: the texts the fast path reads without
the skim; a text longer than 2.5 KiB for msgspec's typed read that is not all ASCII has its UTF-8
checked first, ``_fastpath``'s module docstring), each timing the mean of enough calls to take
~1 MiB of text (a call on 4 KiB takes microseconds); no memory figure (a few KiB are below the
resident set's resolution).

Measured side by side in this one process: classify's time over ``orjson.loads`` of the same
bytes (which fails at the same error; median of per-round ratios, the two interleaved), and the
peak resident set above the level before the call (Linux ``VmHWM``, reset before each run), over
the size of the text, beside orjson.loads' own. Target (README, issue #11 section 4): at most
~5x orjson.loads in time and 3x the text's size in extra memory, wherever the error sits.

``--valid``: what the skim's duplicate search costs where nothing is wrong. Well-formed 1 MiB
responses (a listing of numbers, of short strings, of small objects, and listings of numbers
with a small object every 128 bytes to 32 KiB, around the search's threshold of one brace,
colon or backslash per 4 KiB), bytes to verdict with the search on and off
(``_parser.skim(duplicates=False)``) in the same rounds, interleaved, beside the search alone
within its budget (``_parser._first_duplicate``; "searched": not at all where the sampled
windows show dense names, "gave up" past its budget, else "through") and orjson.loads.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from mcp_verdict import RULES, Kind, classify

sys.path.insert(0, str(Path(__file__).parent))
from bench_memory import _CLEAR_REFS, _STATUS, peak_rss

_HEAD = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"'


def long_string_then_duplicate_key(size: int) -> bytes:
    return _HEAD + b"x" * size + b'","text":"again"}]}}'


def long_string_then_bad_escape(size: int) -> bytes:
    return _HEAD + b"x" * size + b'\\q"}]}}'


def long_string_then_trailing_data(size: int) -> bytes:
    return _HEAD + b"x" * size + b'"}]}} {"jsonrpc":"2.0"}'


_LISTING = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"structuredContent":{"v":['


def small_tokens_then_syntax_error(size: int) -> bytes:
    return _LISTING + b"1,2,3,4,5,6,7,8," * (size // 16) + b"]}}}"  # a trailing comma


def small_tokens_then_duplicate_key(size: int) -> bytes:
    return _LISTING + b"1,2,3,4,5,6,7,8," * (size // 16) + b'9],"v":0}}}'


def small_tokens_truncated(size: int) -> bytes:
    return _LISTING + b"1,2,3,4,5,6,7,8," * (size // 16) + b"9"  # a stream cut off


def short_strings_then_duplicate_key(size: int) -> bytes:
    return _LISTING + b'"ab","cd",' * (size // 10) + b'"e"],"v":0}}}'


def small_objects_then_duplicate_key(size: int) -> bytes:
    return _LISTING + b'{"a":1},' * (size // 8) + b'9],"v":0}}}'


def long_string_then_bad_utf8(size: int) -> bytes:
    return _HEAD + b"x" * size + b'\xff"}]}}'


def small_tokens_then_bad_utf8(size: int) -> bytes:
    return _LISTING + b"1,2,3,4,5,6,7,8," * (size // 16) + b'"\xff"]}}}'


_CJK = "会议纪要：团队已确认部署计划。".encode()


def cjk_string_then_duplicate_key(size: int) -> bytes:
    return _HEAD + _CJK * (size // len(_CJK)) + b'","text":"again"}]}}'


def cjk_string_then_bad_utf8(size: int) -> bytes:
    return _HEAD + _CJK * (size // len(_CJK)) + b'\xff"}]}}'


def cjk_string_then_bad_escape(size: int) -> bytes:
    return _HEAD + _CJK * (size // len(_CJK)) + b'\\q"}]}}'


_RECORD = '{"name":"文件 report.txt","size":1},'.encode()


def records_past_ascii_then_bad_utf8(size: int) -> bytes:
    return _LISTING + _RECORD * (size // len(_RECORD)) + b'"\xff"]}}}'


def numbers_and_objects_then_duplicate_key(size: int) -> bytes:
    return _LISTING + (b"1," * 1020 + b'{"a":1},') * (size // 2048) + b'9],"v":0}}}'


_META = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"_meta":{'


def meta_key_of_labels(size: int) -> bytes:
    return _META + b'"' + b"a." * (size // 2) + b'-":1}}}'


def meta_keys_out_of_format(size: int) -> bytes:
    return _META + b",".join(b'"_k%d":1' % i for i in range(size // 12)) + b"}}}"


def baggage_of_properties(size: int) -> bytes:
    return _META + b'"baggage":"k=v' + b";p" * (size // 2) + b' x"}}}'


CASES: dict[str, tuple[Callable[[int], bytes], str]] = {
    "long string, duplicate key": (long_string_then_duplicate_key, "json.duplicate_key"),
    "long string, bad escape": (long_string_then_bad_escape, "json.syntax"),
    "long string, trailing data": (long_string_then_trailing_data, "json.trailing_data"),
    "small tokens, syntax error": (small_tokens_then_syntax_error, "json.syntax"),
    "small tokens, truncated": (small_tokens_truncated, "json.syntax"),
    "small tokens, duplicate key": (small_tokens_then_duplicate_key, "json.duplicate_key"),
    "short strings, duplicate key": (short_strings_then_duplicate_key, "json.duplicate_key"),
    "small objects, duplicate key": (small_objects_then_duplicate_key, "json.duplicate_key"),
    "an object per 2 KiB, dup key": (numbers_and_objects_then_duplicate_key, "json.duplicate_key"),
    "small tokens, bad UTF-8": (small_tokens_then_bad_utf8, "json.encoding"),
    "long string, bad UTF-8": (long_string_then_bad_utf8, "json.encoding"),
    "records past ASCII, bad UTF-8": (records_past_ascii_then_bad_utf8, "json.encoding"),
    "CJK string, duplicate key": (cjk_string_then_duplicate_key, "json.duplicate_key"),
    "CJK string, bad escape": (cjk_string_then_bad_escape, "json.syntax"),
    "CJK string, bad UTF-8": (cjk_string_then_bad_utf8, "json.encoding"),
    # well-formed, a warning where most of the text is: the result stands (normal_complete)
    "_meta key of labels, no slash": (meta_key_of_labels, "meta.key_name"),
    "_meta keys out of format": (meta_keys_out_of_format, "meta.key_name"),
    "_meta baggage of properties": (baggage_of_properties, "meta.trace_context"),
}


def _valid(body: bytes) -> bytes:
    return _LISTING + body + b'9],"w":0}}}'


_MIB = 1 << 20
VALID: dict[str, bytes] = {
    "numbers": _valid(b"1,2,3,4,5,6,7,8," * (_MIB // 16)),
    "short strings": _valid(b'"ab","cd",' * (_MIB // 10)),
    "small objects": _valid(b'{"a":1},' * (_MIB // 8)),
    **{f"numbers, an object per {every} B": _valid((b"1," * ((every - 8) // 2) + b'{"a":1},') * (_MIB // every))
       for every in (128, 1024, 4096, 8192, 16384, 32768)},
}


def _orjson(data: bytes) -> None:
    with contextlib.suppress(orjson.JSONDecodeError):
        orjson.loads(data)


def _seconds(fn: Callable[[], object], calls: int = 1) -> float:
    """The time of one call of ``fn``: the mean of ``calls`` in a row."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def valid(rounds: int) -> int:
    """Bytes to verdict on well-formed texts, the skim's duplicate search on and off."""
    from mcp_verdict.verdict import _judge, _parser

    off = functools.partial(_parser.skim, duplicates=False)
    print(f"{'well-formed 1 MiB':<32}{'searched':>9}{'orjson ms':>11}{'off ms':>9}{'on ms':>9}{'on/off':>9}"
          f"{'search ms':>11}{'off/orjson':>12}{'on/orjson':>11}")
    for name, data in VALID.items():
        assert classify(data).kind is Kind.NORMAL_COMPLETE
        budget = len(data) // _parser._BUDGET + _parser._SLACK
        searched = ("no" if not (_parser._dense(data) and _parser._sparse_names(data))
                    else "gave up" if _parser._first_duplicate(data, budget) is None else "through")
        times: dict[str, list[float]] = {"orjson": [], "off": [], "on": [], "search": []}
        gc.disable()
        try:
            for round_ in range(rounds):
                times["orjson"].append(_seconds(lambda d=data: orjson.loads(d)))  # type: ignore[misc]
                for which in ("off", "on") if round_ % 2 else ("on", "off"):  # each first in half the rounds
                    _judge._skim = off if which == "off" else _parser.skim
                    times[which].append(_seconds(lambda d=data: classify(d)))  # type: ignore[misc]
                _judge._skim = _parser.skim
                times["search"].append(_seconds(lambda d=data, b=budget: _parser._first_duplicate(d, b)))  # type: ignore[misc]
        finally:
            gc.enable()
            _judge._skim = _parser.skim
        ms = {key: statistics.median(values) * 1e3 for key, values in times.items()}
        ratio = statistics.median(o / f for o, f in zip(times["on"], times["off"], strict=True))
        print(f"{name:<32}{searched:>9}{ms['orjson']:>11.2f}{ms['off']:>9.2f}{ms['on']:>9.2f}"
              f"{ratio:>8.3f}x{ms['search']:>11.2f}{ms['off'] / ms['orjson']:>11.2f}x{ms['on'] / ms['orjson']:>10.2f}x")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,8,60", help="text sizes in MiB (default 1,8,60)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    parser.add_argument("--valid", action="store_true", help="well-formed texts: the duplicate search on and off")
    parser.add_argument("--cases", default="", help="only the cases whose name holds this text (e.g. UTF-8)")
    parser.add_argument("--kib", default="", help="text sizes in KiB instead (e.g. 0.5,2.4,64; at most 256)")
    args = parser.parse_args()
    if args.valid:
        return valid(args.rounds)
    can_reset = _CLEAR_REFS.exists() and _STATUS.exists() and not args.kib
    unit, shift = ("KiB", 10) if args.kib else ("MiB", 20)
    print(f"{'case':<30}{unit:>5}{'orjson ms':>11}{'ours ms':>10}{'ours/orjson':>13}"
          f"{'peak ours':>11}{'peak orjson':>13}   finding")
    worst_time = worst_memory = 0.0
    for size in (float(part) for part in (args.kib or args.sizes).split(",")):
        length = int(size * (1 << shift))  # (fractions of a KiB: the texts classify reads at once, 0.5 to 2.5 KiB)
        calls = max(1, (1 << 20) // length)  # (~1 MiB of text per timing)
        for name, (build, code) in CASES.items():
            if args.cases not in name:
                continue
            data = build(length)
            verdict = classify(data)
            kind = Kind.UNCLASSIFIED if RULES[code].severity == "error" else Kind.NORMAL_COMPLETE
            assert verdict.kind is kind and [f.code for f in verdict.findings] == [code], verdict
            ours: list[float] = []
            reference: list[float] = []
            gc.disable()
            try:
                for _ in range(args.rounds):
                    reference.append(_seconds(lambda d=data: _orjson(d), calls))  # type: ignore[misc]
                    ours.append(_seconds(lambda d=data: classify(d), calls))  # type: ignore[misc]
            finally:
                gc.enable()
            ratio = statistics.median(o / r for o, r in zip(ours, reference, strict=True))
            if can_reset:
                peak = min(peak_rss(lambda d=data: classify(d)) for _ in range(2)) / len(data)  # type: ignore[misc]
                peak_reference = min(peak_rss(lambda d=data: _orjson(d)) for _ in range(2)) / len(data)  # type: ignore[misc]
                memory = f"{peak:>10.2f}x{peak_reference:>12.2f}x"
                worst_memory = max(worst_memory, peak)
            else:
                memory = f"{'n/a':>11}{'n/a':>13}"
            worst_time = max(worst_time, ratio)
            finding = verdict.findings[0]
            digits = 4 if args.kib else 1
            print(f"{name:<30}{size:>5g}{statistics.median(reference) * 1e3:>11.{digits}f}"
                  f"{statistics.median(ours) * 1e3:>10.{digits}f}{ratio:>12.1f}x{memory}   "
                  f"{finding.code} at {finding.path or '/'!s}")
            del data, verdict
    memory_figure = f"{worst_memory:.2f}x" if can_reset else "n/a"
    print(f"\nworst time / orjson.loads: {worst_time:.1f}x (target ~5x); "
          f"worst peak extra memory / text size: {memory_figure} (target 3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

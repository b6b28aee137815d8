"""The error path is bounded: time and peak memory of classify on wrong texts of 1, 8 and 60 MiB.

Run: python benchmarks/bench_bounds.py [--sizes 1,8,60] [--rounds N]

Each text is a tools/call response within the default limits (64 MiB) with one wire error
placed after most of its bytes, where finding and explaining the error costs the most:

- a long string, then a duplicate member name (``json.duplicate_key``);
- a long string, then a bad escape (``json.syntax``);
- a long string, then data after the value (``json.trailing_data``);
- many small tokens (a listing of one-digit numbers in structuredContent, one token every two
  bytes: 0.5 million at 1 MiB, 30 million at 60 MiB), then a syntax error;
- the same tokens, the text cut off inside the listing (a stream that stopped);
- the same tokens, then a duplicate member name.

Measured side by side in this one process: classify's time over ``orjson.loads`` of the same
bytes (which fails at the same error; median of per-round ratios, the two interleaved), and the
peak resident set above the level before the call (Linux ``VmHWM``, reset before each run), over
the size of the text, beside orjson.loads' own. Target (README, issue #11 section 4): at most
~5x orjson.loads in time and 3x the text's size in extra memory, wherever the error sits.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from mcp_verdict import Kind, classify

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


CASES: dict[str, tuple[Callable[[int], bytes], str]] = {
    "long string, duplicate key": (long_string_then_duplicate_key, "json.duplicate_key"),
    "long string, bad escape": (long_string_then_bad_escape, "json.syntax"),
    "long string, trailing data": (long_string_then_trailing_data, "json.trailing_data"),
    "small tokens, syntax error": (small_tokens_then_syntax_error, "json.syntax"),
    "small tokens, truncated": (small_tokens_truncated, "json.syntax"),
    "small tokens, duplicate key": (small_tokens_then_duplicate_key, "json.duplicate_key"),
}


def _orjson(data: bytes) -> None:
    with contextlib.suppress(orjson.JSONDecodeError):
        orjson.loads(data)


def _seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,8,60", help="text sizes in MiB (default 1,8,60)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    args = parser.parse_args()
    can_reset = _CLEAR_REFS.exists() and _STATUS.exists()
    print(f"{'case':<28}{'MiB':>5}{'orjson ms':>11}{'ours ms':>10}{'ours/orjson':>13}"
          f"{'peak ours':>11}{'peak orjson':>13}   finding")
    worst_time = worst_memory = 0.0
    for mib in (int(part) for part in args.sizes.split(",")):
        for name, (build, code) in CASES.items():
            data = build(mib << 20)
            verdict = classify(data)
            assert verdict.kind is Kind.UNCLASSIFIED and [f.code for f in verdict.findings] == [code], verdict
            ours: list[float] = []
            reference: list[float] = []
            gc.disable()
            try:
                for _ in range(args.rounds):
                    reference.append(_seconds(lambda d=data: _orjson(d)))  # type: ignore[misc]
                    ours.append(_seconds(lambda d=data: classify(d)))  # type: ignore[misc]
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
            print(f"{name:<28}{mib:>5}{statistics.median(reference) * 1e3:>11.1f}"
                  f"{statistics.median(ours) * 1e3:>10.1f}{ratio:>12.1f}x{memory}   "
                  f"{finding.code} at {finding.path or '/'!s}")
            del data, verdict
    print(f"\nworst time / orjson.loads: {worst_time:.1f}x (target ~5x); "
          f"worst peak extra memory / text size: {worst_memory:.2f}x (target 3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

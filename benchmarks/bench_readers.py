"""The JSON readers measured for the wire reader (README, "Choosing the JSON reader").

Run: python benchmarks/bench_readers.py [--quick]

µs per call, median of short interleaved rounds (as in bench_classify.py), on the benchmark
shapes:

- orjson.loads, msgspec (untyped), jiter, json.loads: plain reads, none of which reports a
  duplicated member name (jiter only when asked, next column);
- jiter + duplicates: jiter with ``catch_duplicate_keys=True`` (the strict reader);
- msgspec + colon census: msgspec, then T == M + S checked with a plain walk counting the
  members and the colons in strings (the census the README describes);
- msgspec + write-back: msgspec, then ``orjson.dumps(value) == text`` (the proof used);
- typed + write-back: msgspec reading against the common shapes declared in ``_fastpath``,
  then the same proof: the read as classify's fast path does it.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jiter
import msgspec
import orjson

from mcp_verdict import DEFAULT_LIMITS
from mcp_verdict.verdict._fastpath import common_reader

sys.path.insert(0, str(Path(__file__).parent))
from shapes import SHAPES

NOT_PARSED = None
_DECODE = msgspec.json.Decoder().decode
_TYPED = common_reader("2026-07-28", DEFAULT_LIMITS.max_depth)


def write_back(data: bytes, decode: Callable[[bytes], object]) -> object:
    """The proof ``_fastpath.read_common`` uses: orjson writes the value back as the text."""
    value = decode(data)
    return value if orjson.dumps(value) == data else NOT_PARSED


def census(value: Any) -> int:
    """M + S: members of every object plus the colons in every string (a plain walk)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is str:
            total += item.count(":")
        elif type(item) is dict:
            total += len(item)
            for key, member in item.items():
                total += key.count(":")
                stack.append(member)
        elif type(item) is list:
            stack.extend(item)
    return total


def with_census(data: bytes) -> object:
    value = _DECODE(data)
    colons = census(value)
    if data.count(b":") != colons or (b"\\u003" in data and colons):
        return NOT_PARSED
    return value


READERS: dict[str, Callable[[bytes], object]] = {
    "orjson.loads": orjson.loads,
    "msgspec": _DECODE,
    "jiter": lambda data: jiter.from_json(data, cache_mode="none"),
    "jiter + duplicates": lambda data: jiter.from_json(data, cache_mode="none", allow_inf_nan=False,
                                                       catch_duplicate_keys=True),
    "json.loads": json.loads,
    "msgspec + colon census": with_census,
    "msgspec + write-back": lambda data: write_back(data, _DECODE),
    "typed + write-back": lambda data: write_back(data, _TYPED),  # type: ignore[arg-type]
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    rounds = 10 if args.quick else 60
    print(f"{'shape':<17}{'bytes':>7}" + "".join(f"{name:>24}" for name in READERS))
    gc.disable()
    try:
        for name, build in SHAPES.items():
            wire = build()
            for read in READERS.values():
                assert read(wire) is not NOT_PARSED
            timers = {reader: timeit.Timer(lambda f=read, w=wire: f(w))  # type: ignore[misc]
                      for reader, read in READERS.items()}
            numbers = {reader: max(1, int(3000 / max(min(timer.timeit(1) for _ in range(5)) * 1e6, 0.01)))
                       for reader, timer in timers.items()}  # about three milliseconds a sample
            for reader, timer in timers.items():
                timer.timeit(numbers[reader] * 30)  # the machine's clock settles
            samples: dict[str, list[float]] = {reader: [] for reader in READERS}
            for _ in range(rounds):
                for reader, timer in timers.items():
                    timer.timeit(numbers[reader])  # warm up after the other readers ran
                    samples[reader].append(timer.timeit(numbers[reader]) / numbers[reader] * 1e6)
            print(f"{name:<17}{len(wire):>7}"
                  + "".join(f"{statistics.median(samples[reader]):>24.2f}" for reader in READERS))
    finally:
        gc.enable()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

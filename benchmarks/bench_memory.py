"""Peak memory of classify on 50 MB responses, beside orjson.loads and the SDK's typed parse.

Run: python benchmarks/bench_memory.py [--mb N]

Two 50 MB responses: one text block of 50 MB, and many small text blocks (the 500-block
benchmark shape, scaled up). Each candidate runs on the same bytes in this one process, and
its peak is measured two ways:

- peak RSS: the process's resident-set high-water mark (Linux ``VmHWM``, reset before each
  run through ``/proc/self/clear_refs``) above the resident set before the run. This sees
  every allocation, including the parsers' own buffers in Rust or C;
- peak traced: ``tracemalloc``'s peak of the Python heap above its level before the run (a
  second pass, since tracing costs memory of its own).

The input bytes exist before each run and are not counted; what a candidate returns is (the
verdict holds the parsed message). Ratios are to the size of the response. Target (README):
classify's peak for the single 50 MB block at most 3x its size.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import re
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from mcp_verdict import Kind, classify

sys.path.insert(0, str(Path(__file__).parent))
from bench_classify import sdk_parser
from shapes import many_blocks, one_block, result_of

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _release() -> None:
    """Collect garbage and hand freed heap back to the system, so runs do not share it."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _status(field: str) -> int:
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    return int(match.group(1)) * 1024 if match else 0


def peak_rss(fn: Callable[[], Any]) -> int:
    """Bytes of resident memory at the peak of ``fn()`` above the level before it."""
    _release()
    _CLEAR_REFS.write_text("5")  # reset VmHWM to the current resident set
    before = _status("VmRSS")
    result = fn()
    peak = _status("VmHWM") - before
    del result
    _release()
    return peak


def peak_traced(fn: Callable[[], Any]) -> int:
    """Bytes of Python heap at the peak of ``fn()`` above the level before it (tracemalloc)."""
    _release()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - before
        del result
    finally:
        tracemalloc.stop()
    _release()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=50, help="response size in MB (default 50)")
    args = parser.parse_args()
    size = args.mb * 1024 * 1024
    can_reset = _CLEAR_REFS.exists() and _STATUS.exists()
    sdk = sdk_parser()
    shapes = {
        "one text block": one_block(size),
        "many small blocks": many_blocks(blocks=size // 126, width=100),
    }
    print(f"{'shape':<19}{'MB':>6}  {'candidate':<22}{'peak RSS MB':>12}{'x size':>8}"
          f"{'peak traced MB':>16}{'x size':>8}")
    for name, wire in shapes.items():
        assert classify(wire).kind is Kind.NORMAL_COMPLETE
        candidates: dict[str, Callable[[], Any]] = {
            "orjson.loads": lambda w=wire: orjson.loads(w),  # type: ignore[misc]
            "classify(bytes)": lambda w=wire: classify(w),  # type: ignore[misc]
        }
        if sdk is not None:
            result_bytes = result_of(wire)
            candidates["SDK typed parse"] = lambda r=result_bytes, f=sdk: f(r)  # type: ignore[misc]
        mb = len(wire) / 2**20
        ours = sdk_peak = 0.0
        for candidate, fn in candidates.items():
            rss = min(peak_rss(fn) for _ in range(2)) if can_reset else -1
            traced = peak_traced(fn)
            rss_text = f"{rss / 2**20:>12.1f}{rss / len(wire):>7.2f}x" if rss >= 0 else f"{'n/a':>12}{'':>8}"
            print(f"{name:<19}{mb:>6.1f}  {candidate:<22}{rss_text}{traced / 2**20:>16.1f}"
                  f"{traced / len(wire):>7.2f}x")
            if candidate == "classify(bytes)":
                ours = rss if rss >= 0 else traced
            elif candidate == "SDK typed parse":
                sdk_peak = rss if rss >= 0 else traced
        if sdk_peak:
            print(f"{'':<27}SDK typed parse / classify, peak: {sdk_peak / ours:.2f}x")
        del candidates, wire
        _release()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

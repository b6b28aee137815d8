"""Speed of classify against orjson.loads and the official SDK's typed parse, side by side.

Run: python benchmarks/bench_classify.py [--quick]

Everything is measured in this one process, the candidates interleaved in many short rounds
(about three milliseconds each, each after as long a warm-up: a candidate run just after
another starts with cold caches), and reported as medians. A ratio is the median of the ratios
within each round, so that it compares candidates measured moments apart: on a noisy machine
whose speed drifts from second to second, the absolute numbers move and the ratios hold.
Targets (README): bytes→verdict ≤ 2.5× orjson.loads on every shape; the SDK's typed parse
≥ 4× slower than ours on every shape; dict→verdict ≤ 3 µs on the small shapes; cost linear
in size.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from mcp_verdict import DEFAULT_LIMITS, Kind, Verdict, classify
from mcp_verdict.verdict._fastpath import common_reader

sys.path.insert(0, str(Path(__file__).parent))
from shapes import SHAPES, many_blocks, result_of


def sdk_parser() -> Callable[[bytes], Any] | None:
    """The official SDK's typed parse of a tools/call result, if mcp-types is installed."""
    try:
        import mcp_types
        import pydantic
    except ImportError:
        return None
    adapter: Any = pydantic.TypeAdapter(mcp_types.CallToolResult | mcp_types.InputRequiredResult)
    return adapter.validate_json  # type: ignore[no-any-return]


def sdk_client() -> Callable[[bytes], Any] | None:
    """What a user of the official SDK (mcp 2.x) pays for a tools/call response: the whole
    JSON-RPC message through the SDK's message adapter (as its transports read it), then the
    result through the session's checks (``validate_server_result`` for the negotiated
    version, then the ``CallToolResult | InputRequiredResult`` adapter ``call_tool`` uses)."""
    try:
        import mcp_types
        import pydantic
        from mcp_types import methods
    except ImportError:
        return None
    message_adapter = mcp_types.jsonrpc_message_adapter
    result_adapter: Any = pydantic.TypeAdapter(mcp_types.CallToolResult | mcp_types.InputRequiredResult)
    check = methods.validate_server_result

    def client(wire: bytes) -> Any:
        message: Any = message_adapter.validate_json(wire, by_name=False)
        raw = message.result
        check("tools/call", "2026-07-28", raw)
        return result_adapter.validate_python(raw, by_name=False)

    return client


def floor_classifier() -> Callable[[bytes], Verdict]:
    """What any verdict from wire text costs in Python with these libraries, checking no rule:
    msgspec's typed read of the common shapes, orjson's write-back proof, the verdict built.
    classify is this plus the rules types cannot express (README, "Status of the performance
    targets")."""
    read = common_reader("2026-07-28", DEFAULT_LIMITS.max_depth)
    assert read is not None
    write = orjson.dumps

    def floor(wire: bytes) -> Verdict:
        message = read(wire)
        if write(message) != wire:
            raise AssertionError("not a compact text")
        return Verdict(Kind.NORMAL_COMPLETE, (), "2026-07-28", message)

    return floor


def per_call_us(fn: Callable[[], Any], number: int) -> float:
    return timeit.timeit(fn, number=number) / number * 1e6


def bench_shapes(rounds: int) -> list[dict[str, Any]]:
    sdk = sdk_parser()
    client = sdk_client()
    floor = floor_classifier()
    rows = []
    for name, build in SHAPES.items():
        wire = build()
        parsed = json.loads(wire)
        result_bytes = result_of(wire)
        assert classify(wire).kind is not Kind.UNCLASSIFIED, name
        candidates: dict[str, Callable[[], Any]] = {
            "orjson": lambda w=wire: orjson.loads(w),  # type: ignore[misc]
            "ours": lambda w=wire: classify(w),  # type: ignore[misc]
            "ours_dict": lambda p=parsed: classify(p),  # type: ignore[misc]
        }
        try:
            floor(wire)
            candidates["floor"] = lambda w=wire, f=floor: f(w)  # type: ignore[misc]
        except Exception:  # not a shape the typed read takes, or not compact: no floor
            pass
        if sdk is not None:
            candidates["sdk"] = lambda r=result_bytes, f=sdk: f(r)  # type: ignore[misc]
        if client is not None:
            candidates["sdk_client"] = lambda w=wire, f=client: f(w)  # type: ignore[misc]
        timers = {key: timeit.Timer(fn) for key, fn in candidates.items()}
        numbers = {key: _calls_per_ms(fn) * 3 for key, fn in candidates.items()}
        for key, timer in timers.items():  # the machine's clock settles before the first sample
            timer.timeit(numbers[key] * 30)
        samples: dict[str, list[float]] = {key: [] for key in candidates}
        for _ in range(rounds):
            for key, timer in timers.items():
                timer.timeit(numbers[key])  # warm up after the other candidates ran
                samples[key].append(timer.timeit(numbers[key]) / numbers[key] * 1e6)
        row: dict[str, Any] = {"shape": name, "size": len(wire)}
        row.update({key: statistics.median(values) for key, values in samples.items()})
        row["ours/orjson"] = statistics.median(o / r for o, r in zip(samples["ours"], samples["orjson"], strict=True))
        if "sdk" in samples:
            row["sdk/ours"] = statistics.median(s / o for s, o in zip(samples["sdk"], samples["ours"], strict=True))
        if "sdk" in samples and "floor" in samples:
            row["sdk/floor"] = statistics.median(
                s / f for s, f in zip(samples["sdk"], samples["floor"], strict=True))
        if "sdk_client" in samples:
            row["client/ours"] = statistics.median(
                s / o for s, o in zip(samples["sdk_client"], samples["ours"], strict=True))
        rows.append(row)
    return rows


def _calls_per_ms(fn: Callable[[], Any]) -> int:
    """How many calls of ``fn`` take about a millisecond (at least one)."""
    once = min(per_call_us(fn, 1) for _ in range(5))
    return max(1, int(1000 / max(once, 0.01)))


def linearity() -> tuple[int, int, float, float]:
    """Time at ~10 MB over time at ~1 MB, for classify and (the reference) orjson.loads."""
    small, large = many_blocks(blocks=8_000), many_blocks(blocks=80_000)  # ~1 MB and ~10 MB
    times: dict[str, list[float]] = {"ours_small": [], "ours_large": [], "orjson_small": [], "orjson_large": []}
    for _ in range(5):  # interleaved, as above
        times["ours_small"].append(per_call_us(lambda: classify(small), 3))
        times["ours_large"].append(per_call_us(lambda: classify(large), 1))
        times["orjson_small"].append(per_call_us(lambda: orjson.loads(small), 3))
        times["orjson_large"].append(per_call_us(lambda: orjson.loads(large), 1))
    median = {key: statistics.median(values) for key, values in times.items()}
    return (len(small), len(large), median["ours_large"] / median["ours_small"],
            median["orjson_large"] / median["orjson_small"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    gc.disable()
    try:
        rows = bench_shapes(rounds=25 if args.quick else 100)
        small_kb, large_kb, cost, reference = linearity()
    finally:
        gc.enable()
    print(f"{'shape':<26}{'bytes':>7}{'orjson µs':>11}{'ours µs':>9}{'ours/orjson':>13}{'target':>8}"
          f"{'dict µs':>9}{'SDK µs':>9}{'SDK/ours':>10}{'client µs':>11}{'client/ours':>13}{'SDK/floor':>11}")
    worst = 0.0
    missed = []
    slowest_sdk = slowest_client = slowest_floor = float("inf")
    nan = float("nan")
    for row in rows:
        ratio = row["ours/orjson"]
        target = 4.0 if row["size"] < 1000 and "(dumps)" in row["shape"] else 2.5
        worst = max(worst, ratio)
        if ratio > target:
            missed.append(f"{row['shape']} {ratio:.2f}x > {target}x")
        sdk_ratio = row.get("sdk/ours", nan)
        client_ratio = row.get("client/ours", nan)
        floor_ratio = row.get("sdk/floor", nan)
        slowest_sdk = min(slowest_sdk, sdk_ratio)
        slowest_client = min(slowest_client, client_ratio)
        if not math.isnan(floor_ratio):
            slowest_floor = min(slowest_floor, floor_ratio)
        print(f"{row['shape']:<26}{row['size']:>7}{row['orjson']:>11.2f}{row['ours']:>9.2f}{ratio:>12.2f}x"
              f"{target:>7.1f}x{row['ours_dict']:>9.2f}{row.get('sdk', nan):>9.2f}{sdk_ratio:>9.1f}x"
              f"{row.get('sdk_client', nan):>11.2f}{client_ratio:>12.1f}x{floor_ratio:>10.1f}x")
    small_dict = max(row["ours_dict"] for row in rows if row["size"] < 1000)
    print(f"\nworst bytes→verdict / orjson.loads: {worst:.2f}x (targets: ≤ 2.5x; ≤ 4x for json.dumps-written "
          f"shapes under 1 kB); over target: {', '.join(missed) or 'none'}")
    print(f"SDK typed parse of the result (validate_json) / ours, slowest shape: {slowest_sdk:.1f}x (target ≥ 4x)")
    print(f"SDK client path (message adapter + result validation) / ours, slowest shape: {slowest_client:.1f}x")
    print(f"SDK typed parse / the floor (typed read + proof + verdict, no rule checked), slowest shape: "
          f"{slowest_floor:.1f}x")
    print(f"dict→verdict on the small shapes: ≤ {small_dict:.2f} µs (target ≤ 3 µs)")
    print(f"linearity: {large_kb / small_kb:.1f}x the bytes ({small_kb >> 10} KiB → {large_kb >> 10} KiB) "
          f"costs {cost:.1f}x the time (orjson.loads: {reference:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

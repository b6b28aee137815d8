"""Is each shape read by the cheapest correct reader, and does a fast path that cannot hold cost
no more than the reader it falls back to? (issue #11 section 4; README, "Choosing the JSON reader")

Run: python benchmarks/bench_routes.py [--quick]

For each shape, the wire bytes are judged four ways in the same interleaved rounds (µs per call,
the best of the rounds: on a shared machine a round's time is the route's plus whatever else ran
meanwhile, so the least is the closest to the route's own; compare within a row):

- ``classify``: the route classify takes (what a caller gets);
- ``typed``: msgspec's typed read and its proofs (``_fastpath.read_typed``), forced whatever the
  text's length or kind;
- ``orjson``: orjson's read and the splice or quote-count proof (``_fastpath.read_quoted``), forced;
- ``strict``: the strict reader (jiter, duplicate names caught) and the checks after it
  (``_classify.judge`` with the fast path off): the reader every other falls back to, and the
  only one that explains a wrong text.

A fast route "holds" on a shape when it returns a verdict (it proves its read and recognises the
shape); each verdict of a route that holds is checked to be the strict route's, kind and findings
(a route giving another verdict stops the run: it would be a defect, not a figure). Two figures:

- **routing**: on every shape, classify's time over the cheapest route that holds there (the
  strict route always holds). About 1.0 means classify found the cheapest reader; its own
  routing (a length test, a look at the text's middle) costs a few percent of a small answer.
- **fallback**: on the shapes where no fast route holds (wrong texts, shapes left to the full
  checker), classify's time over the strict route's: the fast path's failed attempt plus the
  fallback. At most 2.0 means the attempt cost no more than the reader it fell back to.

Numbers, not assertions: this machine's speed drifts by up to 2x from minute to minute.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_verdict import classify
from mcp_verdict.verdict._fastpath import read_quoted, read_typed
from mcp_verdict.verdict._judge import classify_options, judge

sys.path.insert(0, str(Path(__file__).parent))
from shapes import SHAPES, compact

_OPTIONS = classify_options()

Route = Callable[[bytes], object]


def _typed(data: bytes) -> object:
    return read_typed(data, _OPTIONS, None)


def _orjson(data: bytes) -> object:
    return read_quoted(data, _OPTIONS, None)


def _strict(data: bytes) -> object:
    return judge(data, _OPTIONS, None, fast=False)


ROUTES: dict[str, Route] = {"classify": classify, "typed": _typed, "orjson": _orjson, "strict": _strict}


def _envelope(result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 5, "result": result}


def _block(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


# Shapes no fast route holds on: wrong texts, and well-formed shapes the fast path leaves to the
# full checker. Written here by hand; what each is expected to get is classify's business (the
# tests hold it), this only times the routes.
FALLBACK: dict[str, bytes] = {
    "isError as a string": compact(_envelope({"resultType": "complete", "isError": "false",
                                              "content": _block("done")})),
    "isError given twice": b'{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","isError":false,'
                           b'"isError":true,"content":[{"type":"text","text":"done"}]}}',
    "an unknown resultType": compact(_envelope({"resultType": "partial", "content": _block("done")})),
    "a text block without text": compact(_envelope({"resultType": "complete", "content": [{"type": "text"}]})),
    "a reserved error code": compact({"jsonrpc": "2.0", "id": 5,
                                      "error": {"code": -32002, "message": "Resource not found"}}),
    "a titled single-select enum": compact(_envelope({
        "resultType": "input_required",
        "inputRequests": {"pick": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Pick a region",
            "requestedSchema": {"type": "object", "properties": {"region": {
                "type": "string", "oneOf": [{"const": "eu", "title": "Europe"},
                                            {"const": "us", "title": "United States"}]}}}}}}})),
    "an image block": compact(_envelope({"resultType": "complete", "content": [
        {"type": "image", "mimeType": "image/png",
         "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5"
                 "ErkJggg=="}]})),
    "duplicate name, 20 kB": compact(_envelope({"resultType": "complete", "content": _block("x" * 20_000)}))[:-2]
                             + b',"content":[]}}',
    "trailing comma, 20 kB listing": compact(_envelope({"resultType": "complete", "content": [],
                                                        "structuredContent": {"v": list(range(4000))}}))[:-4]
                                     + b',]}}}',
}


def _same(found: object, strict: object) -> bool:
    """Whether a fast route's verdict is the strict route's (kind, findings, version)."""
    return (getattr(found, "kind", None) == getattr(strict, "kind", None)
            and getattr(found, "findings", None) == getattr(strict, "findings", None))


def _calls(route: Route, data: bytes) -> int:
    """How many calls make ~1 ms of this route on this text."""
    start = time.perf_counter()
    route(data)
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(20_000, int(0.001 / once)))


def _time(route: Route, data: bytes, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        route(data)
    return (time.perf_counter() - start) / calls * 1e6


def measure(name: str, data: bytes, rounds: int) -> dict[str, Any]:
    strict = _strict(data)
    holds = {}
    for route_name, route in ROUTES.items():
        found = route(data)
        if route_name in ("typed", "orjson"):
            holds[route_name] = bool(found) and getattr(found, "kind", None) is not None
            if holds[route_name] and not _same(found, strict):
                raise SystemExit(f"{name}: the {route_name} route's verdict is not the strict reader's")
        else:
            holds[route_name] = True
            if not _same(found, strict):
                raise SystemExit(f"{name}: {route_name}'s verdict is not the strict reader's")
    counts = {route_name: _calls(route, data) for route_name, route in ROUTES.items()}
    times: dict[str, list[float]] = {route_name: [] for route_name in ROUTES}
    gc.collect()
    for _ in range(rounds):
        for route_name, route in ROUTES.items():
            times[route_name].append(_time(route, data, counts[route_name]))
    median = {route_name: min(values) for route_name, values in times.items()}
    holding = [route_name for route_name in ("typed", "orjson", "strict") if holds[route_name]]
    cheapest = min(holding, key=lambda route_name: median[route_name])
    return {"name": name, "bytes": len(data), "median": median, "holds": holds, "cheapest": cheapest,
            "kind": str(getattr(strict, "kind", "?")), "fallback": holding == ["strict"]}


def _cell(row: dict[str, Any], route_name: str) -> str:
    figure = f"{row['median'][route_name]:.2f}"
    return figure if row["holds"][route_name] else f"({figure})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds (~20 s)")
    args = parser.parse_args()
    rounds = 15 if args.quick else 41
    shapes = {name: build() for name, build in SHAPES.items()}
    shapes.update(FALLBACK)
    rows = [measure(name, data, rounds) for name, data in shapes.items()]
    print("µs per call, best of interleaved rounds; (in parentheses): the route does not hold there")
    print(f"{'shape':34} {'bytes':>7} {'classify':>9} {'typed':>9} {'orjson':>9} {'strict':>9}  "
          f"{'cheapest':8} {'classify/cheapest':>17}  kind")
    for row in rows:
        ratio = row["median"]["classify"] / row["median"][row["cheapest"]]
        print(f"{row['name'][:34]:34} {row['bytes']:>7} {row['median']['classify']:>9.2f} {_cell(row, 'typed'):>9} "
              f"{_cell(row, 'orjson'):>9} {_cell(row, 'strict'):>9}  {row['cheapest']:8} {ratio:>16.2f}x  "
              f"{row['kind']}")
    routed = [(row["median"]["classify"] / row["median"][row["cheapest"]], row["name"]) for row in rows]
    fallback = [(row["median"]["classify"] / row["median"]["strict"], row["name"]) for row in rows if row["fallback"]]
    worst = max(routed)
    print(f"\nrouting: classify / the cheapest route that holds, worst shape: {worst[0]:.2f}x ({worst[1]}); "
          f"median {statistics.median(r for r, _ in routed):.2f}x")
    if fallback:
        worst = max(fallback)
        print(f"fallback: classify / the strict reader alone where no fast route holds, worst: {worst[0]:.2f}x "
              f"({worst[1]}) (target ≤ 2: the failed attempt costs no more than the reader it falls back to)")
    print(json.dumps({"routing_worst": max(routed)[0], "fallback_worst": max(fallback)[0] if fallback else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What ``from mcp_verdict import classify`` and the first call cost a fresh interpreter.

Run: python benchmarks/bench_import.py [--rounds N] [--against SRC]

Each figure is the wall time of a whole fresh interpreter, median of N runs interleaved:

- a bare interpreter (``python -c pass``): the floor;
- ``import msgspec, orjson, jiter``: what the libraries the verdict stands on cost alone;
- ``import msgspec``: the one of them the import of classify needs (orjson is imported by the
  first call's write-back, jiter by the strict reader's first read);
- ``from mcp_verdict import classify``;
- the same, then one ``classify`` of a compact text-block response on the latest version,
  the first call (it builds that version's readers);
- the same import, then one first call on each version.

``--against SRC`` times another copy of the package (the ``src`` folder holding it, e.g. the
previous commit's: ``git archive HEAD src | tar -x -C /tmp/old``) in the same rounds,
interleaved with this one, and prints its figures beside these.

The modules are compiled first (``compileall``) and the runs may write bytecode (the
environment's ``PYTHONDONTWRITEBYTECODE`` is dropped for them), as an installed package is.
Targets (issue #11, section 4): the import ≤ 30 ms above the bare interpreter; the import and
the first call on a version together ≤ 40 ms.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import mcp_verdict

_CALL = ('b\'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",'
         '"content":[{"type":"text","text":"ok"}]}}\'')
PROGRAMS = {
    "bare interpreter": "pass",
    "the libraries alone": "import msgspec, orjson, jiter",
    "msgspec alone": "import msgspec",
    "import classify": "from mcp_verdict import classify",
    "import + first call": f"from mcp_verdict import classify; classify({_CALL})",
    "import + a call per version": (f"from mcp_verdict import VERSIONS, classify\n"
                                    f"for v in VERSIONS: classify({_CALL}, version=v)"),
}
_LIBRARIES = ("bare interpreter", "the libraries alone", "msgspec alone")
"""The programs that do not import the package: run once a round, with this copy's environment."""


def _env(package: Path) -> dict[str, str]:
    """The environment of a run importing ``package`` (compiled first; bytecode written)."""
    compileall.compile_dir(package, quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(package.parent)  # this copy of the package
    return env


def _run(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15, help="runs of each program (default 15)")
    parser.add_argument("--against", type=Path, help="the src folder of another copy of the package, timed beside")
    args = parser.parse_args()
    copies = {"this copy": _env(Path(mcp_verdict.__file__).parent)}  # as the benchmark imported it
    if args.against is not None:
        copies["against"] = _env(args.against.resolve() / "mcp_verdict")
    runs = [(name, copy, code) for copy in copies for name, code in PROGRAMS.items()
            if copy == "this copy" or name not in _LIBRARIES]
    for _, copy, code in runs:  # warm the file cache and write any bytecode missing
        _run(code, copies[copy])
    times: dict[tuple[str, str], list[float]] = {(name, copy): [] for name, copy, _ in runs}
    for _ in range(args.rounds):
        for name, copy, code in runs:
            times[name, copy].append(_run(code, copies[copy]))
    medians = {key: statistics.median(values) * 1e3 for key, values in times.items()}
    median = {name: value for (name, copy), value in medians.items() if copy == "this copy"}
    bare = median["bare interpreter"]
    for name in PROGRAMS:
        extra = "" if name == "bare interpreter" else f"   +{median[name] - bare:.1f} ms"
        against = medians.get((name, "against"))
        if against is not None and name not in _LIBRARIES:
            extra += f"   (against: +{against - bare:.1f} ms)"
        print(f"{name:<30}{median[name]:>8.1f} ms{extra}")
    print(f"\nimport classify: +{median['import classify'] - bare:.1f} ms (target ≤ 30 ms); import + first call: "
          f"+{median['import + first call'] - bare:.1f} ms (target ≤ 40 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

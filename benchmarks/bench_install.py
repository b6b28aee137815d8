"""What the lean core costs a user: packages, disk, start-up (numbers, not assertions).

Reads the virtualenvs `./run test` builds: `.venvs/core` (only `pip install .`, plus pytest) and
`.venv` (`[all,test]`). Prints, for each, the distributions installed and their size on disk,
and times in the core environment, side by side in one run, interleaved (median of N):

- a bare interpreter (`python -c pass`), the floor every command pays;
- `import mcp_verdict`, and the third-party libraries it stands on alone
  (`import msgspec, orjson, jiter`), so our own share is visible;
- `mcp-verdict --help` and `mcp-verdict classify FILE` (wall time, whole process).

Budgets (issue #9): `import mcp_verdict` ≤ 30 ms above the bare interpreter; `--help` and
`classify FILE` ≤ 250 ms wall. Usage: python benchmarks/bench_install.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / ".venvs" / "core" / "bin"
FULL = ROOT / ".venv" / "bin"
NOT_THE_PACKAGE = {"pip", "setuptools", "pytest", "iniconfig", "packaging", "pluggy"}
"""The virtualenv's own tools and the test runner: not what `pip install mcp-verdict` brings."""

_SIZES = """
import importlib.metadata as m, json, pathlib
out = {}
for d in m.distributions():
    total = 0
    for f in d.files or ():
        p = pathlib.Path(d.locate_file(f))
        if p.is_file():
            total += p.stat().st_size
    out[d.metadata["Name"].lower()] = total
print(json.dumps(out))
"""


def sizes(bin_dir: Path) -> dict[str, int]:
    done = subprocess.run([str(bin_dir / "python"), "-c", _SIZES], capture_output=True, check=True)
    table: dict[str, int] = json.loads(done.stdout)
    return {name: size for name, size in table.items() if name not in NOT_THE_PACKAGE}


def wall(command: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False, env=env)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if not (CORE / "mcp-verdict").exists():
        sys.exit(f"{CORE.parent} is missing: ./run test builds it")
    print("environment          packages   size MB")
    for label, bin_dir in (("core (pip install .)", CORE), ("full ([all,test])", FULL)):
        if (bin_dir / "python").exists():
            table = sizes(bin_dir)
            print(f"{label:<20} {len(table):>8}  {sum(table.values()) / 1e6:>8.1f}")
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as handle:
        handle.write(b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[],"isError":true}}')
        response = handle.name
    python = str(CORE / "python")
    candidates = {
        "bare interpreter": [python, "-c", "pass"],
        "import msgspec, orjson, jiter": [python, "-c", "import msgspec, orjson, jiter"],
        "import mcp_verdict": [python, "-c", "import mcp_verdict"],
        "mcp-verdict --help": [str(CORE / "mcp-verdict"), "--help"],
        "mcp-verdict classify FILE": [str(CORE / "mcp-verdict"), "classify", response],
    }
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for command in candidates.values():
        wall(command)  # warm the file cache
    for _ in range(args.rounds):
        for name, command in candidates.items():
            samples[name].append(wall(command))
    os.unlink(response)
    bare = statistics.median(samples["bare interpreter"])
    print(f"\nstart-up in the core environment (median of {args.rounds}, ms; above bare = minus the bare interpreter)")
    print("command                          wall ms   above bare ms   budget")
    budgets = {"import mcp_verdict": ("above", 30.0), "mcp-verdict --help": ("wall", 250.0),
               "mcp-verdict classify FILE": ("wall", 250.0)}
    for name, values in samples.items():
        median = statistics.median(values) * 1000
        above = median - bare * 1000
        budget = ""
        if name in budgets:
            how, limit = budgets[name]
            value = above if how == "above" else median
            where = "above bare" if how == "above" else "wall"
            budget = f"{'met' if value <= limit else 'NOT met'} (≤ {limit:g} ms {where})"
        print(f"{name:<32} {median:>7.1f}   {above:>13.1f}   {budget}")


if __name__ == "__main__":
    main()

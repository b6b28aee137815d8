"""The routing read of large frames (frames/_jsonrpc.py): ``peek`` and the id recovery of frames no
strict parser reads, against orjson's own read of a valid frame of the same size.

Run: python benchmarks/bench_peek.py [--mib 8] [--old PATH/src] [--only WORD]

Milliseconds, the best of interleaved rounds (each frame read by every reader in turn, a garbage
collection before each read). With ``--old``, the same functions of another copy of the package
(e.g. ``git archive <commit> src | tar -x -C /tmp/old``, then ``--old /tmp/old/src``) are read in
the same process, alternating, and the ratio new/old is printed: what a change saves, measured
side by side on a shared machine.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from mcp_verdict.frames import _jsonrpc

TEXT = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"'
ITEMS = b'{"jsonrpc":"2.0","id":7,"result":{"items":['
SMALL = b'{"a":1,"b":"x"},'
WITH_ID = b'{"id":12,"name":"n"},'


def frames(size: int) -> dict[str, tuple[bytes, bytes | None]]:
    """name: (frame, a valid frame of its size for orjson's time, or None: the frame itself)."""
    text = b"lorem ipsum dolor sit amet, " * (size // 28)
    small = SMALL * (size // len(SMALL))
    deep = b'{"id":1,"result":' + b"[" * 1010 + small + b"1" + b"]" * 1010
    row = b'{\\"type\\":\\"row\\",\\"n\\":12,\\"ok\\":true}, '
    escaped = row * (size // len(row))
    return {
        "valid ascii text": (TEXT + text + b'"}]}}', None),
        "valid french text": (TEXT + ("déjà vu, ça fait " * (size // 20)).encode() + b'"}]}}', None),
        "valid text with escapes": (TEXT + b'line \\"one\\"\\n\\tline two\\\\ ' * (size // 32) + b'"}]}}', None),
        "valid small objects": (ITEMS + small + b"{}]}}", None),
        "valid numbers": (ITEMS + b"12345.5," * (size // 8) + b"1]}}", None),
        "NaN at end, small objects": (ITEMS + small + b"NaN]}}", ITEMS + small + b"1  ]}}"),
        "NaN at end, objects with ids": (b'{"jsonrpc":"2.0","result":{"items":[' + WITH_ID * (size // 21)
                                         + b'NaN]},"id":"z"}',
                                         b'{"jsonrpc":"2.0","result":{"items":[' + WITH_ID * (size // 21)
                                         + b'1  ]},"id":"z"}'),
        "NaN at end, text": (TEXT + text + b'"},NaN]}}', TEXT + text + b'"},1  ]}}'),
        "1010 levels, a wrong last byte": (deep + b"x", deep + b"}"),
        "values then 2000 levels": (b'{"id":1,"result":[' + small + b"[" * 2000 + b"]" * 2000 + b"]}",
                                    b'{"id":1,"result":[' + small + b"[" * 1000 + b"]" * 1000 + b"]}"),
        # (unreadable frames of escaped JSON text, as tools return it: backslashes inside strings only)
        "NaN at end, escaped JSON text": (TEXT + escaped + b'"},NaN]}}', TEXT + escaped + b'"},1  ]}}'),
        # backslashes outside strings (no JSON text holds one): each ignored by the id's scan
        "cut, two backslashes and a quote repeated": (TEXT + b'\\\\"' * (size // 3), _valid_text(size)),
        "a stray backslash, then [ repeated": (b'{\\ "id":1,"a":' + b"[" * size, _valid_text(size)),
        "a stray backslash before each string, NaN": (ITEMS + b'\\"x",' * (size // 5) + b"NaN]}}",
                                                      ITEMS + b'"xy",' * (size // 5) + b"1  ]}}"),
        # members named "id" whose first quote closes a string: half the marks inside strings
        '"a"id": repeated (ids in strings)': (b'{"id":1,"a":' + b'"a"id":' * (size // 7), _valid_text(size)),
        '"id": repeated (top-level ids)': (b'{"id":1,"a":' + b'"id":' * (size // 5), _valid_text(size)),
    }


def _valid_text(size: int) -> bytes:
    """A valid frame of about ``size`` bytes: one text block."""
    return TEXT + b"lorem ipsum dolor sit amet, " * (size // 28) + b'"}]}}'


def _load_old(src: Path) -> dict[str, Any]:
    """The functions of another copy's frames/_jsonrpc.py, run in this process: that copy's package
    imported as ``old_mcp_verdict`` (its ``__init__`` not run), so the modules ``_jsonrpc`` imports
    beside it (``_structure``, ``_large`` since they were split from it) are that copy's too."""
    package = types.ModuleType("old_mcp_verdict")
    package.__path__ = [str(src / "mcp_verdict")]
    sys.modules["old_mcp_verdict"] = package  # (the package's own code, at another commit)
    return vars(importlib.import_module("old_mcp_verdict.frames._jsonrpc"))


def _best(readers: dict[str, Callable[[bytes], object]], data: dict[str, bytes], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(rounds):
        for name, read in readers.items():
            gc.collect()
            start = time.perf_counter()
            read(data[name])
            times[name].append(time.perf_counter() - start)
    return {name: min(spent) * 1e3 for name, spent in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=float, default=8.0, help="frame size (MiB)")
    parser.add_argument("--old", type=Path, help="another copy's src folder, read side by side")
    parser.add_argument("--only", help="the frames whose name holds this word")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    old = _load_old(options.old) if options.old else None
    for name, (frame, valid) in frames(int(options.mib * 2**20)).items():
        if options.only and options.only not in name:
            continue
        readers: dict[str, Callable[[bytes], object]] = {"orjson": orjson.loads, "peek": _jsonrpc.peek,
                                                        "id_text": _jsonrpc.id_text}
        data = {"orjson": valid or frame, "peek": frame, "id_text": frame}
        if old is not None:
            readers |= {"old peek": old["peek"], "old id_text": old["id_text"]}
            data |= {"old peek": frame, "old id_text": frame}
        best = _best(readers, data, options.rounds)
        line = (f"{name:42s} {len(frame) / 2**20:5.1f} MiB  orjson {best['orjson']:8.1f} ms"
                f"  peek {best['peek']:8.1f} ms ({best['peek'] / best['orjson']:.2f}x)  id {best['id_text']:8.1f} ms")
        if old is not None:
            line += (f"  | old peek {best['old peek']:8.1f} ms (new/old {best['peek'] / best['old peek']:.2f})"
                     f"  old id {best['old id_text']:8.1f} ms (new/old {best['id_text'] / best['old id_text']:.2f})")
        print(line, flush=True)


if __name__ == "__main__":
    main()

"""A byte-faithful stdio relay that records a frame log (the tests' recording harness).

    python -m tests.audit.recorder LOG CONN -- COMMAND...

Starts COMMAND, relays our stdin to its stdin and its stdout to our stdout line by line,
unchanged, and writes every line to LOG as a frame log v1 record (``frames.FrameLogWriter``):
``open``, then each line as a ``message`` (c2s / s2c, its exact bytes), ``eof`` when either
stream ends, and ``close`` when COMMAND exits. A client started on this command in place of
the server sees the server exactly as it is; the log holds what crossed the wire.

(The proxy and the tap write the same format; once they are merged, the audit tests can record
through them instead of through this relay.)
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from typing import IO, Any

from mcp_verdict.frames import FrameLogWriter, FrameRecord


class Recorder:
    def __init__(self, log: str, conn: str) -> None:
        self.writer = FrameLogWriter(log, max_bytes=1 << 40)
        self.conn = conn
        self.seq = 0
        self.lock = threading.Lock()

    def write(self, direction: str, kind: str, data: bytes | None = None, note: str | None = None,
              transport: str = "stdio", http: dict[str, Any] | None = None) -> None:
        with self.lock:  # seq and line order agree
            self.writer.write(FrameRecord(self.conn, self.seq, time.time(), direction, kind,  # type: ignore[arg-type]
                                          data, None, note, transport, http))  # type: ignore[arg-type]
            self.seq += 1


def _pump(source: IO[bytes], sink: IO[bytes], recorder: Recorder, direction: str) -> None:
    while True:
        line = source.readline()
        if not line:
            recorder.write(direction, "eof", note="the stream ended")
            with contextlib.suppress(OSError):
                sink.close()
            return
        recorder.write(direction, "message", line.rstrip(b"\n").removesuffix(b"\r"))
        try:
            sink.write(line)
            sink.flush()
        except (OSError, ValueError):
            pass


def main(argv: list[str]) -> int:
    log, conn, dashes, *command = argv
    assert dashes == "--" and command, __doc__
    recorder = Recorder(log, conn)
    recorder.write("c2s", "open", note=" ".join(command[:1]))
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    up = threading.Thread(target=_pump, args=(sys.stdin.buffer, child.stdin, recorder, "c2s"), daemon=True)
    down = threading.Thread(target=_pump, args=(child.stdout, sys.stdout.buffer, recorder, "s2c"), daemon=True)
    up.start()
    down.start()
    down.join()
    code = child.wait()
    recorder.write("s2c", "close", note=f"the server exited with {code}")
    recorder.writer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

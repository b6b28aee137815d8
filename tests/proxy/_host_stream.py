"""A host stream for tests that drive a ``Bridge`` in process: it keeps every frame the bridge
sends the host, in order (the bridge's side of ``proxy._bridge.HostStream``)."""

from __future__ import annotations


class KeptHost:
    def __init__(self) -> None:
        self.got: list[bytes] = []

    def send(self, data: bytes, *, final: bool, answer: bool = False) -> None:
        self.got.append(data)

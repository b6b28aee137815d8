"""Integrity-protected ``requestState`` for multi round-trip requests.

basic/patterns/mrtr#server-requirements-basic-workflow
(https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr):

- the server keeps no state between the round trips: what it needs travels in
  ``requestState``, which the client echoes byte for byte;
- a ``requestState`` coming back is attacker-controlled: since it drives the tool's logic, its
  integrity is protected (here HMAC-SHA256 with a per-process random key) and state that fails
  verification is rejected (the core answers -32602);
- against replay the payload carries a short expiry and the originating request (the tool name
  and a digest of its arguments), both verified on receipt. There is no authenticated principal
  on the demo server, so none is bound.

Format: ``v1.<base64url(payload JSON)>.<base64url(HMAC-SHA256(key, "v1." + payload part))>``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

_PREFIX: Final = "v1."
DEFAULT_STATE_TTL: Final = 600.0
"""Seconds a requestState stays valid."""


class StateError(ValueError):
    """The requestState failed verification (the message says why)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def arguments_digest(arguments: Mapping[str, Any]) -> str:
    """A digest of a call's arguments (canonical JSON), binding a state to its request."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class StateSealer:
    """Seals and opens request states with a key drawn at random when the sealer is made."""

    def __init__(self, *, key: bytes | None = None, ttl: float = DEFAULT_STATE_TTL,
                 clock: Callable[[], float] = time.time) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)
        self._ttl = ttl
        self._clock = clock

    def seal(self, tool: str, arguments: Mapping[str, Any], data: Mapping[str, Any]) -> str:
        """A state for a retry of ``tool`` with these ``arguments``, carrying ``data``."""
        payload = {"tool": tool, "args": arguments_digest(arguments),
                   "exp": round(self._clock() + self._ttl, 3), "nonce": secrets.token_hex(8),
                   "data": dict(data)}
        body = _PREFIX + _b64(json.dumps(payload, separators=(",", ":")).encode())
        return body + "." + _b64(self._mac(body))

    def open(self, state: str, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Verify ``state`` for a retry of ``tool`` with ``arguments``; returns its data.

        Raises :class:`StateError` when it is malformed, its MAC does not verify, it has
        expired, or it was issued for another tool or other arguments.
        """
        body, dot, mac = state.rpartition(".")
        if not dot or not body.startswith(_PREFIX) or not state.isascii():
            raise StateError("malformed requestState")
        try:
            given = _unb64(mac)
        except ValueError:
            raise StateError("malformed requestState") from None
        if not hmac.compare_digest(given, self._mac(body)):
            raise StateError("requestState failed integrity verification")
        payload = json.loads(_unb64(body[len(_PREFIX):]))  # authentic: we wrote it
        if payload["exp"] < self._clock():
            raise StateError("requestState has expired")
        if payload["tool"] != tool or payload["args"] != arguments_digest(arguments):
            raise StateError("requestState was issued for a different request")
        data = payload["data"]
        assert isinstance(data, dict)
        return data

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()

"""What the stdio test servers share: the requests a client writes, one JSON object a line."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any


def requests() -> Iterator[dict[str, Any]]:
    """Each request read from stdin (a JSON object with an id; anything else is passed over),
    until stdin closes."""
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") is not None:
            yield message

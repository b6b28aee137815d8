"""The JSON-RPC methods the audit follows a call by: the requests a 2025 server asks the client
for input with (elicitation, sampling, roots), a task's requests (``tasks/get``, ``tasks/result``,
``tasks/update``, ``tasks/cancel``), the client's requests a server's request may be made during,
and the client's cancellation.
"""

from __future__ import annotations

from typing import Final

_SERVER_METHODS: Final = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
_TASK_METHODS: Final = frozenset({"tasks/get", "tasks/result", "tasks/update", "tasks/cancel"})
_CALL_METHODS: Final = _TASK_METHODS | {"tools/call"}
"""The client's requests a server's request may be made during (:meth:`Auditor._asking`)."""
_CANCELLED: Final = "notifications/cancelled"

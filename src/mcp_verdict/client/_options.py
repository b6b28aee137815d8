"""The client's constructor options, each checked when a :class:`~mcp_verdict.client.VerdictClient`
is made (:func:`_check_options`): a wrong one is a ValueError naming it and the value.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence

from ..judgement._decide import finite
from ..verdict._shown import shown
from ._handlers import Handlers


def _check_options(*, command: object, url: object, env: object, cwd: object, headers: object, handlers: object,
                   tasks: object, timeout: object, connect_timeout: object, task_timeout: object,
                   trusted_server: object, client_info: object) -> None:
    """The constructor's options, each checked when the client is made: a wrong one is a
    ValueError naming it and the value, never a failure at the first connect or settle."""
    if command is not None and not isinstance(command, str) and (
            not isinstance(command, Sequence) or not all(isinstance(word, str) for word in command)):
        raise ValueError(f"command must be a string or a sequence of strings, not {shown(command)}")
    if url is not None and not isinstance(url, str):
        raise ValueError(f"url must be a string, not {shown(url)}")
    for name, strings in (("env", env), ("headers", headers)):
        if strings is not None and (not isinstance(strings, Mapping) or not all(
                isinstance(key, str) and isinstance(value, str) for key, value in strings.items())):
            raise ValueError(f"{name} must be a mapping of strings to strings or None, not {shown(strings)}")
    if cwd is not None and not isinstance(cwd, (str, os.PathLike)):
        raise ValueError(f"cwd must be a path (a string or os.PathLike) or None, not {shown(cwd)}")
    if handlers is not None and not isinstance(handlers, Handlers):
        raise ValueError(f"handlers must be a Handlers or None, not {shown(handlers)}")
    for name, flag in (("tasks", tasks), ("trusted_server", trusted_server)):
        if flag is not True and flag is not False:
            raise ValueError(f"{name} must be True or False, not {shown(flag)}")
    for name, seconds in (("timeout", timeout), ("connect_timeout", connect_timeout), ("task_timeout", task_timeout)):
        if name == "connect_timeout" and seconds is None:
            continue
        if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not finite(seconds) \
                or seconds <= 0:
            raise ValueError(f"{name} must be a positive finite number of seconds, not {shown(seconds)}")
    if not isinstance(client_info, tuple) or len(client_info) != 2 or not all(isinstance(p, str) for p in client_info):
        raise ValueError(f"client_info must be a (name, version) pair of strings, not {shown(client_info)}")

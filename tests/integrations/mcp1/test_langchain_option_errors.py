"""A wrong option of the langchain-mcp-adapters adapter is an ``OptionError`` when the
interceptor or the connection is made, its value written bounded. Before, ``tap``,
``trusted_server`` and ``expect`` were kept as given (the first call judged failed, or an
``AttributeError`` came out of it), and ``on_unclassified`` was written with ``repr`` (a list
nested deep raised ``RecursionError``), and an ``httpx_client_factory`` given to ``connection`` was
dropped without a word (the connection's clients are the tap's). The real adapters (mcp 1.x); the messages by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mcp_verdict import OptionError, VerdictTap
from mcp_verdict.integrations.langchain import VerdictInterceptor, connection

from ...hostile import nested_list

WRONG: list[tuple[str, Callable[[], Any], str, str]] = [
    ("VerdictInterceptor: tap a string", lambda: VerdictInterceptor("tap"), "tap",  # type: ignore[arg-type]
     "tap must be a VerdictTap, not 'tap'"),
    ("VerdictInterceptor: trusted_server a string", lambda: VerdictInterceptor(VerdictTap(), trusted_server="y"),  # type: ignore[arg-type]
     "trusted_server", "trusted_server must be True or False, not 'y'"),
    ("VerdictInterceptor: on_unclassified nested deep",
     lambda: VerdictInterceptor(VerdictTap(), on_unclassified=nested_list()),  # type: ignore[arg-type]
     "on_unclassified", "on_unclassified is 'error' or 'raise', not " + "[" * 77 + "..."),
    ("VerdictInterceptor: retry None", lambda: VerdictInterceptor(VerdictTap(), retry=None), "retry",  # type: ignore[arg-type]
     "retry must be a RetryPolicy (mcp_verdict.RetryPolicy), not None"),
    ("connection: tap None", lambda: connection(None, "http://127.0.0.1:1/mcp"), "tap",  # type: ignore[arg-type]
     "tap must be a VerdictTap, not None"),
    ("connection: url a number", lambda: connection(VerdictTap(), 5), "url",  # type: ignore[arg-type]
     "url must be a string (the server's http(s):// URL), not 5"),
    # the connection's HTTP clients are the tap's: a factory of the caller's was dropped without a
    # word, its settings (TLS, proxies, event hooks) with it
    ("connection: an httpx_client_factory of the caller's",
     lambda: connection(VerdictTap(), "http://127.0.0.1:1/mcp", httpx_client_factory=VerdictTap().http_client),
     "httpx_client_factory",
     "httpx_client_factory, given to connection(), would be ignored: the connection's HTTP clients are the tap's, "
     "which record each exchange (give the client's settings as headers, timeout or auth)"),
]


@pytest.mark.parametrize(("case", "make", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_option_is_refused_when_made(case: str, make: Callable[[], Any], option: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        make()
    assert (caught.value.option, str(caught.value)) == (option, message)

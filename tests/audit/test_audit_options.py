"""The audit's own options through its Python API (``audit_files``, ``audit``): a wrong one is
an ``OptionError`` (a ValueError) naming it, before any file is read, as the CLI's checks refuse
the same values (``--jobs`` from 1 to 64, ``--format`` of a known format). Before, an unknown
``format`` was a bare ``KeyError`` out of the plan (or one whose message could not even be
written, for an int of 5000 digits), and ``jobs=0``, ``-1``, ``2.5`` or ``True`` and a
``trusted_server`` that is no bool were taken as given. The messages are written by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_verdict import OptionError
from mcp_verdict.audit import Totals, audit, audit_files

# the option given → the OptionError's option and message
WRONG: list[tuple[str, dict[str, Any], str, str]] = [
    ("format unknown", {"format": "pcap"}, "format",
     "format must be auto or one of framelog, jsonrpc, otlp, not 'pcap'"),
    ("format an int of 5000 digits", {"format": 10**5000}, "format",
     "format must be auto or one of framelog, jsonrpc, otlp, not <an integer of about 5000 digits>"),
    ("jobs 0", {"jobs": 0}, "jobs", "jobs must be an integer from 1 to 64, not 0"),
    ("jobs negative", {"jobs": -1}, "jobs", "jobs must be an integer from 1 to 64, not -1"),
    ("jobs a float", {"jobs": 2.5}, "jobs", "jobs must be an integer from 1 to 64, not 2.5"),
    ("jobs True", {"jobs": True}, "jobs", "jobs must be an integer from 1 to 64, not True"),
    ("jobs past the bound", {"jobs": 65}, "jobs", "jobs must be an integer from 1 to 64, not 65"),
    ("trusted_server a string", {"trusted_server": "yes"}, "trusted_server",
     "trusted_server must be True or False, not 'yes'"),
]


@pytest.fixture()
def log(tmp_path: Path) -> str:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n'
                     b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n')
    return str(path)


@pytest.mark.parametrize(("case", "given", "option", "message"), WRONG, ids=[row[0] for row in WRONG])
def test_a_wrong_audit_option_is_refused_before_any_file_is_read(case: str, given: dict[str, Any], option: str,
                                                                  message: str, log: str) -> None:
    with pytest.raises(OptionError) as caught:
        audit_files([log, "/no/such/file"], **given)  # the missing file is never reached
    assert (caught.value.option, str(caught.value)) == (option, message)


def test_audit_checks_jobs_when_called_not_when_iterated(log: str) -> None:
    with pytest.raises(OptionError):
        audit([], Totals(), jobs=0)

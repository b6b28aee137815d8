"""Every tool of the demo server, in the order ``tools/list`` lists them.

server/tools#capabilities: "Servers SHOULD return tools in a deterministic order" — this order.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from ._call import Tool
from ._counted import deferred_everywhere, slow_write, write_count
from ._faults import duplicate_is_error, hang_up, invalid_utf8, malformed_json, mismatched_id, nan_value
from ._interactive import confirm_delete, summarize_text
from ._long_running import generate_report, slow_echo
from ._malformed import missing_result_type, string_is_error, text_block_without_text, unknown_result_type
from ._results import add_integers, charge_card, count_open_tickets, get_forecast
from ._writes import create_note, get_note

TOOLS: Final[tuple[Tool, ...]] = (
    get_forecast,
    charge_card,
    add_integers,
    confirm_delete,
    summarize_text,
    generate_report,
    count_open_tickets,
    slow_echo,
    create_note,
    get_note,
    string_is_error,
    missing_result_type,
    unknown_result_type,
    text_block_without_text,
    duplicate_is_error,
    nan_value,
    mismatched_id,
    hang_up,
    malformed_json,
    invalid_utf8,
    slow_write,
    write_count,
    deferred_everywhere,
)

TOOLS_BY_NAME: Final[Mapping[str, Tool]] = MappingProxyType({tool.name: tool for tool in TOOLS})

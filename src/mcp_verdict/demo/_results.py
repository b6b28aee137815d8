"""Tools with one well-formed outcome each: success, tool error, protocol error, broken contract.

server/tools (https://modelcontextprotocol.io/specification/2026-07-28/server/tools):

- ``get_forecast``: success — ``structuredContent`` conforming to its ``outputSchema``, and the
  same data as a JSON text block (#structured-content, #output-schema);
- ``charge_card``: a tool execution error — ``isError: true`` with the reason as text
  (#error-handling: errors the model can act on are reported in the result, not as JSON-RPC errors);
- ``add_integers``: strict arguments; arguments that break its ``inputSchema`` are a protocol
  error, -32602 (schema InvalidParamsError: "Invalid tool arguments") — checked by the core
  before any handler runs;
- ``count_open_tickets``: declares an ``outputSchema`` and breaks it ("Servers MUST provide
  structured results that conform to this schema"): a well-formed complete result whose
  content is wrong.
"""

from __future__ import annotations

import zlib
from typing import Any, Final

from ._call import Call, structured, text_content, tool
from ._wire import Reply

_CONDITIONS: Final = ("sunny", "partly cloudy", "overcast", "light rain", "windy")


@tool("Weather forecast", "Today's forecast for a city (deterministic demo data). Outcome: success with "
      "structuredContent that conforms to the outputSchema.",
      inputs={"city": {"type": "string", "minLength": 1, "description": "City name"}}, required=("city",),
      outputs={"city": {"type": "string"}, "temperature_c": {"type": "number"}, "conditions": {"type": "string"}},
      output_required=("city", "temperature_c", "conditions"))
def get_forecast(call: Call) -> Reply:
    city = str(call.arguments["city"])
    seed = zlib.crc32(city.casefold().encode())
    data = {"city": city, "temperature_c": round(8 + (seed % 220) / 10, 1),
            "conditions": _CONDITIONS[seed % len(_CONDITIONS)]}
    return call.result(structured(data))


@tool("Charge the card on file", "Charges the user's card. Outcome: always a tool execution error (isError: true, "
      "the card is declined); nothing is charged.",
      inputs={"amount_cents": {"type": "integer", "minimum": 1}}, required=("amount_cents",),
      read_only=False, open_world=True)
def charge_card(call: Call) -> Reply:
    amount = call.arguments["amount_cents"]
    return call.result({"content": text_content(f"Payment of {amount} cents declined: the card on file expired "
                                                "in 2024. Ask the user for another card."),
                        "isError": True})


@tool("Add two integers", "Adds two integers. Outcome: the sum for integer arguments; any other arguments are a "
      "protocol error, -32602 (the demo calls it with b = \"three\").",
      inputs={"a": {"type": "integer"}, "b": {"type": "integer"}}, required=("a", "b"),
      outputs={"sum": {"type": "integer"}}, output_required=("sum",))
def add_integers(call: Call) -> Reply:
    a, b = call.arguments["a"], call.arguments["b"]
    return call.result(structured({"sum": a + b}))


@tool("Count open tickets", "Counts the open tickets in a queue. Outcome: a complete result whose "
      "structuredContent breaks the declared outputSchema (count is the string \"7\", not an integer).",
      inputs={"queue": {"type": "string"}},
      outputs={"count": {"type": "integer", "minimum": 0}, "queue": {"type": "string"}}, output_required=("count",))
def count_open_tickets(call: Call) -> Reply:
    data: dict[str, Any] = {"count": "7", "queue": str(call.arguments.get("queue", "support"))}
    return call.result(structured(data))

"""Errata to the official JSON schemas in ../shared, applied wherever a test reads them as its
oracle: each where a generated ``schema.json`` contradicts the ``schema.ts`` it was generated
from. The TypeScript schema is "the source of truth for all protocol messages and structures";
the JSON schema is "automatically generated from the TypeScript source of truth"
(2026-07-28 basic/index, Schema). An erratum replaces one fragment, and only the fragment as
shipped: when a new ``schema.json`` changes it (fixed upstream, or changed otherwise), loading
fails and names the erratum, to be removed or written again.

The generator writes a TypeScript ``number`` as ``integer`` unless the member says
``@TJS-type number`` (the counts — ``maxTokens``, ``size``, ``ttlMs``, ``minLength`` — are meant
so; upstream corrected the NumberSchema ``minimum``/``maximum``/``default`` of 2025-06-18 and
2025-11-25 as an erratum of the released files, modelcontextprotocol/modelcontextprotocol#3139).
A union member cannot carry that note: 2026-07-28's ``JSONValue`` came out with its scalar
branch taking strings, integers and booleans only (``null`` lost too), so the
schema refused ``{"x": 2.5}`` or ``{"x": null}`` in a sampling request's ``metadata`` (a
``JSONObject``), which ``schema.ts`` takes and ``classify`` takes. Found by the generative
differential test's deep profile (tests/test_schema_generative.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True)
class Erratum:
    version: str
    at: tuple[str | int, ...]
    """Where the fragment sits in the schema's root (keys and array indexes)."""
    shipped: Any
    """The fragment as the version's ``schema.json`` ships it."""
    corrected: Any
    """The fragment ``schema.ts`` says."""
    source: str
    """The ``schema.ts`` text it follows."""
    reference: str


TS_2026: Final = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2026-07-28/schema.ts"

ERRATA: Final[tuple[Erratum, ...]] = (
    Erratum("2026-07-28", ("$defs", "JSONValue", "anyOf", 2), {"type": ["string", "integer", "boolean"]},
            {"type": ["string", "number", "boolean", "null"]},
            "export type JSONValue = string | number | boolean | null | JSONObject | JSONArray;", TS_2026),
)


class StaleErratum(LookupError):
    """An erratum whose fragment the schema no longer ships as written."""


def fragment(root: Any, at: tuple[str | int, ...]) -> Any:
    node = root
    for step in at:
        node = node[step]
    return node


def corrected(root: dict[str, Any], version: str) -> dict[str, Any]:
    """``root`` (a version's parsed ``schema.json``) with the version's errata applied, as a copy
    (``root`` unchanged); :class:`StaleErratum` when one's fragment is not as shipped."""
    mine = [e for e in ERRATA if e.version == version]
    if not mine:
        return root
    fixed = copy.deepcopy(root)
    for erratum in mine:
        try:
            found = fragment(fixed, erratum.at)
        except (KeyError, IndexError, TypeError):
            found = None
        if found != erratum.shipped:
            raise StaleErratum(f"{version} schema.json no longer ships {erratum.shipped!r} at {erratum.at}: "
                               f"found {found!r}; remove or rewrite this erratum (tests/schema_errata.py)")
        parent = fragment(fixed, erratum.at[:-1])
        parent[erratum.at[-1]] = copy.deepcopy(erratum.corrected)
    return fixed

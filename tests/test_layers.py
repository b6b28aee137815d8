"""The layering contract: what each folder of the package may import, read from the source.

Each layer's ``__init__`` declares its contract (``LAYER_CONTRACT``: the layers and the
libraries its modules may import); this test holds every module to it, and holds the contracts
themselves to the fixed rules below, so a contract cannot be loosened without a test changing:

- the verdict imports no other layer; the judgement imports the verdict only;
- no core module (verdict, judgement) imports an edge, the SDK, an HTTP stack, a server, a
  terminal library or a data stack, not even lazily, and no stdlib module for processes,
  sockets, threads or event loops;
- the judgement loads every library on first use (none at import), so ``import mcp_verdict``
  does not pay for them;
- the package facade and the CLI's entry module import no edge at import time;
- no two modules import each other, directly or through others.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "mcp_verdict"
CORE = ("verdict", "judgement")
EDGE_LIBRARIES = frozenset({
    "mcp", "mcp_types", "pydantic", "httpx", "httpx2", "httpcore", "anyio_edge", "uvicorn", "starlette",
    "sse_starlette", "fastmcp", "click", "rich", "opentelemetry", "pyarrow", "pyspark", "duckdb",
    "langchain_core", "langchain_mcp_adapters", "pydantic_ai", "agents",
})
IO_STDLIB = frozenset({"socket", "subprocess", "asyncio", "threading", "multiprocessing", "selectors", "http",
                       "urllib.request", "ssl", "signal"})


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted (absolute)
    lazy: bool  # inside a function (loaded on first use, not at import)
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = sorted(PACKAGE.rglob("*.py"))
_FOLDERS = frozenset(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
LAYERS = sorted(_FOLDERS)
FACADE_FOR_ALL = frozenset({"mcp_verdict", "mcp_verdict.__version__", "mcp_verdict._extras", "mcp_verdict._process"})
"""What any layer may take from the facade: the version string, the extras' message and a stdio
server's process group (signalled and watched with the standard library: the core does not import
it, as it imports no ``signal``)."""
_MODULE_NAMES = frozenset(_module_name(p) for p in MODULES)


def _imports(path: Path) -> Iterator[Import]:
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text("utf-8"))

    def visit(node: ast.AST, lazy: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                continue  # annotations only: never executed
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(name, alias.name, lazy, child.lineno)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - (child.level - 1)]
                    target = ".".join([*base, child.module] if child.module else base)
                else:
                    target = child.module or ""
                for alias in child.names:  # `from . import corpus` imports the module corpus
                    sub = f"{target}.{alias.name}"
                    yield Import(name, sub if sub in _MODULE_NAMES else target, lazy, child.lineno)
            yield from visit(child, inner)

    yield from visit(tree, False)


ALL_IMPORTS = [imp for path in MODULES for imp in _imports(path)]


def _layer(module: str) -> str:
    """The folder a module lives in; "" for the facade (the modules beside ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in _FOLDERS) else ""


def _contract(layer: str) -> dict[str, tuple[str, ...]]:
    tree = ast.parse((PACKAGE / layer / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LAYER_CONTRACT"
                                                for t in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, dict)
            return value
    raise AssertionError(f"{layer}/__init__.py declares no LAYER_CONTRACT")




def _internal(target: str) -> str | None:
    """The layer an import reaches inside the package, or None for an outside module."""
    if target == "mcp_verdict" or target.startswith("mcp_verdict."):
        return _layer(target) if target.count(".") >= 1 else ""
    return None


def _stdlib(target: str) -> bool:
    return target.split(".", maxsplit=1)[0] in sys.stdlib_module_names or target == "__future__"


@pytest.mark.parametrize("layer", LAYERS)
def test_every_module_keeps_to_its_layers_contract(layer: str) -> None:
    contract = _contract(layer)
    allowed_layers = {layer, *contract["layers"]}
    allowed_libraries = set(contract["libraries"])
    broken = []
    for imp in ALL_IMPORTS:
        if _layer(imp.module) != layer:
            continue
        reached = _internal(imp.target)
        if reached is not None:
            if reached == "" and imp.target in FACADE_FOR_ALL:
                continue
            if reached not in allowed_layers:
                broken.append(f"{imp.module}:{imp.line} imports {imp.target} (layer {reached!r})")
        elif not _stdlib(imp.target) and imp.target.split(".")[0] not in allowed_libraries:
            broken.append(f"{imp.module}:{imp.line} imports library {imp.target}")
    assert broken == []


# The fixed rules the contracts themselves are held to: (layer, the layers it may import at most).
CORE_RULES = [
    ("verdict", set()),
    ("judgement", {"verdict"}),
]


@pytest.mark.parametrize(("layer", "at_most"), CORE_RULES)
def test_the_core_layers_import_only_what_is_below_them(layer: str, at_most: set[str]) -> None:
    assert set(_contract(layer)["layers"]) <= at_most
    reached = {_internal(i.target) for i in ALL_IMPORTS if _layer(i.module) == layer} - {None, layer}
    assert reached <= at_most


@pytest.mark.parametrize("layer", CORE)
def test_no_core_module_imports_an_edge_library_or_does_io(layer: str) -> None:
    offending = [f"{i.module}:{i.line} imports {i.target}" for i in ALL_IMPORTS if _layer(i.module) == layer
                 and (i.target.split(".")[0] in EDGE_LIBRARIES or i.target in IO_STDLIB
                      or i.target.split(".")[0] in IO_STDLIB)]
    assert offending == []
    assert not set(_contract(layer)["libraries"]) & EDGE_LIBRARIES


def test_the_judgement_loads_its_libraries_on_first_use() -> None:
    eager = [f"{i.module}:{i.line} imports {i.target}" for i in ALL_IMPORTS if _layer(i.module) == "judgement"
             and not i.lazy and _internal(i.target) is None and not _stdlib(i.target)]
    assert eager == []


@pytest.mark.parametrize("module", ["mcp_verdict", "mcp_verdict.cli._main", "mcp_verdict.cli"])
def test_the_facade_and_the_cli_entry_import_no_edge_at_import_time(module: str) -> None:
    eager = [f"{i.target} (line {i.line})" for i in ALL_IMPORTS if i.module == module and not i.lazy
             and (_internal(i.target) not in (None, "", *CORE, "corpus", "kit", "cli")
                  or i.target.split(".")[0] in EDGE_LIBRARIES - {"click", "rich"})]
    assert eager == []


def test_no_import_cycles() -> None:
    modules = set(_MODULE_NAMES)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for imp in ALL_IMPORTS:
        target = imp.target
        while target and target not in modules:
            target = target.rpartition(".")[0]  # `from .x import name` reaches the module x
        if target and target != imp.module and not imp.lazy and not imp.module.startswith(target + "."):
            graph[imp.module].add(target)
    cycles = []
    state: dict[str, int] = {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue  # a package importing its own modules
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt):], nxt]))
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert cycles == []


def test_the_contract_reader_sees_real_imports() -> None:
    """The reader is not vacuous: known imports of the verdict and the client are seen."""
    seen = {(i.module, i.target) for i in ALL_IMPORTS}
    assert ("mcp_verdict.verdict._check", "mcp_verdict.verdict._envelope") in seen
    assert ("mcp_verdict.verdict._fastpath", "msgspec") in seen
    assert ("mcp_verdict.client._client", "mcp") in seen
    assert any(i.module == "mcp_verdict.judgement._schema" and i.target == "jsonschema" and i.lazy
               for i in ALL_IMPORTS)


_LOADED = ("import sys, mcp_verdict{extra}; "
           "print(sorted(m for m in sys.modules if m.startswith(('mcp_verdict', {libs}))))")


@pytest.mark.parametrize(("statement", "may_load"), [
    # `import mcp_verdict` loads no layer at all; each public name loads its own layer on first use.
    ("", set()),
    ("; from mcp_verdict import classify", {"mcp_verdict.verdict"}),
    ("; from mcp_verdict import decide", {"mcp_verdict.verdict", "mcp_verdict.judgement"}),
    ("; from mcp_verdict import check_output, settle", {"mcp_verdict.verdict", "mcp_verdict.judgement"}),
])
def test_the_facade_loads_each_layer_on_first_use(statement: str, may_load: set[str]) -> None:
    import subprocess

    libs = "'mcp', 'httpx2', 'pydantic', 'jsonschema', 'anyio', 'click', 'rich'"
    done = subprocess.run([sys.executable, "-c", _LOADED.format(extra=statement, libs=libs)], capture_output=True,
                          text=True, check=True)
    loaded = set(ast.literal_eval(done.stdout))
    layers = {".".join(m.split(".")[:2]) for m in loaded if m.startswith("mcp_verdict.")}
    assert layers == may_load
    assert {m.split(".")[0] for m in loaded} - {"mcp_verdict"} == set()  # no edge or heavy library


def test_every_public_name_resolves() -> None:
    import mcp_verdict

    assert {name for name in mcp_verdict.__all__ if getattr(mcp_verdict, name, None) is None} == set()
    assert set(mcp_verdict.__all__) - {"__version__"} == set(mcp_verdict._WHERE)


@pytest.mark.parametrize(("argv", "must_not_load"), [
    # --help lists every command from the lazy table: click and the kinds' names, no reader, no rich.
    (["--help"], ("mcp_verdict.verdict._classify", "msgspec", "orjson", "mcp_verdict.kit", "rich", "mcp",
                  "aiohttp", "pyarrow")),
    # classify --json reads and judges: the verdict layer, but no terminal library and no edge.
    (["classify", "--json", "-"], ("rich", "mcp_verdict.judgement", "mcp_verdict.kit", "mcp", "httpx2")),
])
def test_the_cli_loads_only_what_the_command_needs(argv: list[str], must_not_load: tuple[str, ...]) -> None:
    import subprocess

    program = (f"import sys\nfrom mcp_verdict.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
               "print(sorted(sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                          input='{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}')
    loaded = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    assert [m for m in loaded if any(m == name or m.startswith(name + ".") for name in must_not_load)] == []

"""Recorded traffic: real answers of real MCP servers to ``tools/call``, labelled by hand.

Each server of :data:`SERVERS` is started here (stdio, or Streamable HTTP on 127.0.0.1), sent
the calls of its table through ``VerdictClient`` (which keeps the exact bytes of every answer,
the JSON text of an SSE event's data over HTTP), and every round of every call
becomes a corpus case in ``src/mcp_verdict/corpus/data/recorded.jsonl``: the negotiated
version, the exact response bytes, the options the client classified them with (the request
id, the capabilities it declared, the extensions), the server's name and version, the tool and
its arguments, and the label.

The labels are the call tables below, written by hand from each tool's documentation and
source and from the negotiated version's specification, never from ``classify``: a tool that
reports a failure as a tool error (``isError: true``) is ``tool_error``; an unknown tool name
is a JSON-RPC error where the server's documentation says so; an elicitation on 2026-07-28 is
an ``input_required`` round followed by the completing round.

    python -m tests.interop.traffic --record    # start every server, rewrite recorded.jsonl
    python -m tests.interop.traffic             # start every server, print what it answers

tests/test_traffic.py holds the recorded file to its labels; tests/interop/test_traffic_live.py
records again and holds the live answers to the same labels.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio

from mcp_verdict import Kind

from ..processes import free_port, stop, wait_listening

if TYPE_CHECKING:
    from mcp_verdict import ElicitationRequest, SamplingRequest
    from mcp_verdict.client import ElicitAnswer, Handlers

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "interop"
NODE = HERE / "node_modules" / "node" / "bin" / "node"
NPM = HERE / "node_modules"
MCP1_PYTHON = ROOT / ".venvs" / "mcp1" / "bin" / "python"
SQLITE = ROOT / ".venvs" / "sqlite" / "bin" / "mcp-server-sqlite"
RECORDED = ROOT / "src" / "mcp_verdict" / "corpus" / "data" / "recorded.jsonl"
SPEC = "https://modelcontextprotocol.io/specification/"

N, E, ASK, P, T = Kind.NORMAL_COMPLETE, Kind.TOOL_ERROR, Kind.INPUT_REQUIRED, Kind.PROTOCOL_ERROR, Kind.TASK


@dataclass(frozen=True)
class Call:
    label: str
    """Unique within the server: the case id is ``rec/<server>/<label>/<round>``."""
    tool: str
    arguments: dict[str, Any]
    kinds: tuple[Kind, ...]
    """The kind of each round, by hand: one for a plain call; an input_required round and the
    round that completes it; a task handle and the tasks/result answer."""
    note: str


@dataclass(frozen=True)
class Server:
    name: str
    package: str
    """The registry package it runs on: ``npm:<name>`` or ``pypi:<name>``."""
    command: Callable[[Path], list[str]]
    """The stdio command, given a scratch folder made for this run."""
    calls: tuple[Call, ...]
    prepare: Callable[[Path], None] = lambda folder: None
    inputs: Literal["", "form", "all"] = ""
    """The input handlers the client has (and so the capabilities it declares): none, a form
    handler, or form, sampling and roots handlers; their answers are fixed (see ``_handlers``)."""
    tasks: bool = False
    env: dict[str, str] = field(default_factory=dict)
    needs: tuple[Path, ...] = ()
    """Files that must exist for the server to start (node, a package, a side virtualenv)."""
    source: str = ""
    """The server's own file, when it is written here on top of the package."""
    http: bool = False
    """Streamable HTTP on 127.0.0.1 instead of stdio: ``command`` then holds ``{port}``, and
    the server is reached at ``http://127.0.0.1:{port}/mcp``."""
    python: Path | None = None
    """The interpreter whose environment holds a pypi package (default: this one)."""


# -- input handlers: fixed answers ----------------------------------------------------------

async def name_form(request: ElicitationRequest, problems: Sequence[str]) -> ElicitAnswer:
    from mcp_verdict.client import ElicitAnswer

    properties = (request.requested_schema or {}).get("properties", {})
    if "name" in properties:
        return ElicitAnswer.accept({"name": "Ada"})
    return ElicitAnswer.decline()


async def sample(request: SamplingRequest) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "test-model",
            "stopReason": "endTurn"}


async def _roots() -> list[dict[str, Any]]:
    return [{"uri": "file:///tmp/project", "name": "project"}]


def _handlers(inputs: str) -> Handlers:
    from mcp_verdict.client import Handlers

    if inputs == "all":
        return Handlers(form=name_form, sampling=sample, roots=_roots)
    return Handlers(form=name_form) if inputs == "form" else Handlers()


# -- the servers and their call tables ------------------------------------------------------

def _fs_prepare(folder: Path) -> None:
    (folder / "fs").mkdir()
    (folder / "fs" / "hello.txt").write_text("hello\nworld\n", "utf-8")
    (folder / "fs" / "pixel.png").write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63600000"
        "02000001e221bc330000000049454e44ae426082"))


def _git_prepare(folder: Path) -> None:
    repo = folder / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for args in (["init", "-q", "-b", "main"], ["config", "commit.gpgsign", "false"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    (repo / "notes.txt").write_text("first line\n", "utf-8")
    subprocess.run(["git", "add", "notes.txt"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "first note"], cwd=repo, check=True, env=env)
    (repo / "notes.txt").write_text("first line\nsecond line\n", "utf-8")


_EVERYTHING = ("@modelcontextprotocol", "server-everything", "dist", "index.js")
_FILESYSTEM = ("@modelcontextprotocol", "server-filesystem", "dist", "index.js")
_MEMORY = ("@modelcontextprotocol", "server-memory", "dist", "index.js")

SERVERS: tuple[Server, ...] = (
    Server(
        "server-everything", "npm:@modelcontextprotocol/server-everything",
        lambda folder: [str(NODE), str(NPM.joinpath(*_EVERYTHING)), "stdio"],
        (
            Call("echo", "echo", {"message": "hello there"}, (N,), "echoes the message as one text block"),
            Call("get-sum", "get-sum", {"a": 2, "b": 40}, (N,), "the sum as text"),
            Call("get-tiny-image", "get-tiny-image", {}, (N,), "text blocks around a PNG image block"),
            Call("annotated-error", "get-annotated-message", {"messageType": "error", "includeImage": True}, (N,),
                 'a text block "Error: Operation failed" with priority/audience annotations and an annotated '
                 "image: an annotation demo, not a failed call (no isError)"),
            Call("annotated-debug", "get-annotated-message", {"messageType": "debug", "includeImage": False}, (N,),
                 "a text block with debug annotations"),
            Call("resource-links", "get-resource-links", {"count": 3}, (N,),
                 "an intro text block and three resource_link blocks"),
            Call("resource-text", "get-resource-reference", {"resourceType": "Text", "resourceId": 2}, (N,),
                 "an embedded text resource between text blocks"),
            Call("resource-blob", "get-resource-reference", {"resourceType": "Blob", "resourceId": 3}, (N,),
                 "an embedded blob resource between text blocks"),
            Call("gzip-link", "gzip-file-as-resource",
                 {"name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
                  "outputType": "resourceLink"}, (N,), "a resource_link to the gzipped session resource"),
            Call("gzip-resource", "gzip-file-as-resource",
                 {"name": "hello2.txt.gz", "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
                  "outputType": "resource"}, (N,), "the gzipped file as an embedded blob resource"),
            Call("structured", "get-structured-content", {"location": "New York"}, (N,),
                 "structuredContent matching its outputSchema, and the same as JSON text"),
            Call("long-running", "trigger-long-running-operation", {"duration": 1, "steps": 2}, (N,),
                 "progress notifications (none asked for), then a text result"),
            Call("elicitation", "trigger-elicitation-request", {}, (N,),
                 "asks for a form through elicitation/create (a server-to-client request on 2025-11-25); "
                 "the form is declined by the handler, and the tool reports that as a normal result"),
            Call("sampling", "trigger-sampling-request", {"prompt": "the answer?", "maxTokens": 10}, (N,),
                 "asks for sampling/createMessage and returns the sampled answer"),
            Call("roots", "get-roots-list", {}, (N,), "lists the roots the client gave"),
            Call("unknown-tool", "no-such-tool", {}, (E,),
                 "the TypeScript SDK answers an unknown tool with an isError result naming it"),
            Call("bad-arguments", "get-sum", {"a": "two"}, (E,),
                 "argument validation failure, reported by the SDK as an isError result"),
        ),
        inputs="all", needs=(NODE, NPM.joinpath(*_EVERYTHING))),
    Server(
        "server-everything-tasks", "npm:@modelcontextprotocol/server-everything",
        lambda folder: [str(NODE), str(NPM.joinpath(*_EVERYTHING)), "stdio"],
        (
            Call("research", "simulate-research-query", {"topic": "verdicts"}, (T, N),
                 "taskSupport required: the task-augmented call answers with a CreateTaskResult, and "
                 "tasks/result with the report"),
        ),
        tasks=True, needs=(NODE, NPM.joinpath(*_EVERYTHING))),
    Server(
        "server-everything-http", "npm:@modelcontextprotocol/server-everything",
        lambda folder: [str(NODE), str(NPM.joinpath(*_EVERYTHING)), "streamableHttp"],
        (
            Call("echo", "echo", {"message": "over http"}, (N,), "echoes the message, over Streamable HTTP (SSE)"),
            Call("get-tiny-image", "get-tiny-image", {}, (N,), "the PNG image block, over Streamable HTTP"),
            Call("resource-links", "get-resource-links", {"count": 2}, (N,), "two resource_link blocks, over HTTP"),
            Call("elicitation", "trigger-elicitation-request", {}, (N,),
                 "the elicitation arrives on the call's SSE stream; declined; a normal result"),
            Call("bad-arguments", "get-sum", {"a": "two"}, (E,), "argument validation failure as an isError result"),
        ),
        inputs="form", http=True, needs=(NODE, NPM.joinpath(*_EVERYTHING))),
    Server(
        "server-filesystem", "npm:@modelcontextprotocol/server-filesystem",
        lambda folder: [str(NODE), str(NPM.joinpath(*_FILESYSTEM)), str(folder / "fs")],
        (
            Call("allowed", "list_allowed_directories", {}, (N,), "the allowed directory, as text and structured"),
            Call("write", "write_file", {"path": "{fs}/notes.txt", "content": "a note\n"}, (N,),
                 "writes the file and says so"),
            Call("read-text", "read_text_file", {"path": "{fs}/hello.txt"}, (N,), "the file's text"),
            Call("read-head", "read_text_file", {"path": "{fs}/hello.txt", "head": 1}, (N,), "the first line"),
            Call("read-media", "read_media_file", {"path": "{fs}/pixel.png"}, (N,),
                 "the PNG as a base64 image block with its MIME type"),
            Call("list", "list_directory", {"path": "{fs}"}, (N,), "[FILE] lines"),
            Call("info", "get_file_info", {"path": "{fs}/hello.txt"}, (N,), "size, times and permissions"),
            Call("search", "search_files", {"path": "{fs}", "pattern": "*.txt"}, (N,), "the matching paths"),
            Call("outside", "read_text_file", {"path": "/etc/hostname"}, (E,),
                 "outside the allowed directories: access denied, as an isError result"),
            Call("missing", "read_text_file", {"path": "{fs}/absent.txt"}, (E,),
                 "no such file: an isError result"),
        ),
        prepare=_fs_prepare, needs=(NODE, NPM.joinpath(*_FILESYSTEM))),
    Server(
        "server-memory", "npm:@modelcontextprotocol/server-memory",
        lambda folder: [str(NODE), str(NPM.joinpath(*_MEMORY))],
        (
            Call("create-entities", "create_entities",
                 {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote a program"]},
                               {"name": "Engine", "entityType": "machine", "observations": []}]}, (N,),
                 "the created entities, as JSON text and structured"),
            Call("create-relations", "create_relations",
                 {"relations": [{"from": "Ada", "to": "Engine", "relationType": "programmed"}]}, (N,),
                 "the created relation"),
            Call("add-observations", "add_observations",
                 {"observations": [{"entityName": "Ada", "contents": ["was a mathematician"]}]}, (N,),
                 "the observations added"),
            Call("read-graph", "read_graph", {}, (N,), "the whole graph"),
            Call("search", "search_nodes", {"query": "Ada"}, (N,), "the matching nodes"),
            Call("open", "open_nodes", {"names": ["Engine"]}, (N,), "the named node"),
            Call("observe-missing", "add_observations",
                 {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}, (E,),
                 "the entity does not exist: the handler throws, reported as an isError result"),
            Call("delete", "delete_entities", {"entityNames": ["Engine"]}, (N,), "a confirmation text"),
        ),
        env={"MEMORY_FILE_PATH": "{folder}/memory.jsonl"}, needs=(NODE, NPM.joinpath(*_MEMORY))),
    Server(
        "mcp-server-time", "pypi:mcp-server-time",
        lambda folder: [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"],
        (
            Call("now-paris", "get_current_time", {"timezone": "Europe/Paris"}, (N,),
                 "the time, structured (outputSchema) and as JSON text"),
            Call("convert", "convert_time",
                 {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}, (N,),
                 "both times and the difference"),
            Call("bad-timezone", "get_current_time", {"timezone": "Mars/Olympus_Mons"}, (E,),
                 "an unknown timezone raises ToolError: an isError result (its source says so)"),
            Call("bad-time", "convert_time",
                 {"source_timezone": "UTC", "time": "25:99", "target_timezone": "Asia/Tokyo"}, (E,),
                 "an invalid HH:MM raises ToolError: an isError result"),
            Call("unknown-tool", "no_such_tool", {}, (P,),
                 "its reject_unknown_tools middleware answers an unknown tool with JSON-RPC -32602"),
        ),
        ),
    Server(
        "mcp-server-git", "pypi:mcp-server-git",
        lambda folder: [sys.executable, "-m", "mcp_server_git", "--repository", str(folder / "repo")],
        (
            Call("status", "git_status", {"repo_path": "{folder}/repo"}, (N,), "git status output"),
            Call("diff-unstaged", "git_diff_unstaged", {"repo_path": "{folder}/repo"}, (N,), "the unstaged diff"),
            Call("log", "git_log", {"repo_path": "{folder}/repo", "max_count": 1}, (N,), "the one commit"),
            Call("show", "git_show", {"repo_path": "{folder}/repo", "revision": "HEAD"}, (N,), "the commit and diff"),
            Call("branch", "git_branch", {"repo_path": "{folder}/repo", "branch_type": "local"}, (N,),
                 "the local branches"),
            Call("checkout-missing", "git_checkout", {"repo_path": "{folder}/repo", "branch_name": "nope"}, (E,),
                 "a git error is raised as ToolError: an isError result"),
            Call("outside-repo", "git_status", {"repo_path": "/"}, (E,),
                 "a path outside --repository is refused with ToolError: an isError result"),
            Call("flag-injection", "git_show", {"repo_path": "{folder}/repo", "revision": "--output=/tmp/x"}, (E,),
                 "a revision starting with '-' is refused by the flag-injection guard: an isError result"),
        ),
        prepare=_git_prepare, needs=()),
    Server(
        "mcp-server-sqlite", "pypi:mcp-server-sqlite",
        lambda folder: [str(SQLITE), "--db-path", str(folder / "notes.db")],
        (
            Call("create-table", "create_table", {"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"},
                 (N,), "a confirmation text"),
            Call("insert", "write_query", {"query": "INSERT INTO notes (text) VALUES ('hi')"}, (N,),
                 "the affected row count"),
            Call("select", "read_query", {"query": "SELECT text FROM notes"}, (N,), "the rows as text"),
            Call("tables", "list_tables", {}, (N,), "the table names"),
            Call("refused-delete", "read_query", {"query": "DELETE FROM notes"}, (N,),
                 'read_query refuses a non-SELECT and answers "Database error: ..." as plain content without '
                 "isError: by the protocol a normal result (the content check is what flags it)"),
        ),
        needs=(SQLITE,), python=SQLITE.parent / "python"),
    Server(
        "python-sdk-2", "pypi:mcp",
        lambda folder: [sys.executable, "-m", "tests.servers.sdk_server", "stdio"],
        (
            Call("add", "add", {"a": 2, "b": 3}, (N,), "structured {total: 5} and its JSON text"),
            Call("explode", "explode", {}, (E,), "raises ToolError: an isError result"),
            Call("greet", "greet", {}, (ASK, N),
                 "2026-07-28: an input_required result with a form elicitation and requestState, then the "
                 "retry with the answer completes"),
            Call("bad-arguments", "add", {"a": "two", "b": 1}, (E,),
                 "argument validation failure, reported by MCPServer as an isError result"),
        ),
        inputs="form", source="tests/servers/sdk_server.py"),
    Server(
        "python-sdk-2-http", "pypi:mcp",
        lambda folder: [sys.executable, "-m", "tests.servers.sdk_server", "http", "{port}"],
        (
            Call("add", "add", {"a": 2, "b": 3}, (N,), "structured {total: 5}, over Streamable HTTP"),
            Call("explode", "explode", {}, (E,), "raises ToolError: an isError result, over HTTP"),
            Call("greet", "greet", {}, (ASK, N),
                 "2026-07-28 over HTTP: an input_required result, then the retry with the answer completes"),
        ),
        inputs="form", http=True, source="tests/servers/sdk_server.py"),
    Server(
        "python-sdk-1", "pypi:mcp",
        lambda folder: [str(MCP1_PYTHON), str(ROOT / "tests" / "servers" / "sdk1_server.py"), "stdio"],
        (
            Call("add", "add", {"a": 2, "b": 3}, (N,), "structured {total: 5} and its JSON text"),
            Call("explode", "explode", {}, (E,), "raises: an isError result"),
            Call("ask-name", "ask_name", {}, (N,),
                 "elicits the name through a server-to-client request, then greets"),
            Call("unknown-tool", "no_such_tool", {}, (E,), "the 1.x FastMCP answers an unknown tool as isError"),
        ),
        inputs="form", needs=(MCP1_PYTHON,), source="tests/servers/sdk1_server.py", python=MCP1_PYTHON),
    Server(
        "typescript-sdk", "npm:@modelcontextprotocol/sdk",
        lambda folder: [str(NODE), str(HERE / "ts_sdk_server.mjs"), "stdio"],
        (
            Call("add", "add", {"a": 2, "b": 3}, (N,), "structured content with its outputSchema"),
            Call("explode", "explode", {}, (E,), "the handler throws: an isError result"),
            Call("decline", "decline", {"reason": "no"}, (E,), "returns isError: true itself"),
            Call("ask-name", "ask_name", {}, (N,), "elicits the name, then greets"),
        ),
        inputs="form", needs=(NODE, NPM / "@modelcontextprotocol" / "sdk"), source="tests/interop/ts_sdk_server.mjs"),
    Server(
        "typescript-sdk-http", "npm:@modelcontextprotocol/sdk",
        lambda folder: [str(NODE), str(HERE / "ts_sdk_server.mjs"), "http", "{port}"],
        (
            Call("add", "add", {"a": 2, "b": 3}, (N,), "structured content, over Streamable HTTP"),
            Call("decline", "decline", {"reason": "no"}, (E,), "returns isError: true itself, over HTTP"),
            Call("ask-name", "ask_name", {}, (N,), "elicits the name on the call's SSE stream, then greets"),
        ),
        inputs="form", http=True, needs=(NODE, NPM / "@modelcontextprotocol" / "sdk"),
        source="tests/interop/ts_sdk_server.mjs"),
    Server(
        "fastmcp", "pypi:fastmcp",
        lambda folder: [sys.executable, "-m", "tests.servers.fastmcp_server"],
        (
            Call("add", "add", {"a": 1, "b": 2}, (N,), "structured {total: 3} and its JSON text"),
            Call("shout", "shout", {"text": "hi"}, (N,), "a text block, and structuredContent wrapping it"),
            Call("refuse", "refuse", {}, (E,), "raises ToolError: an isError result"),
            Call("pixel", "pixel", {}, (N,), "an image block"),
            Call("silence", "silence", {}, (N,), "an audio block"),
            Call("note", "note", {}, (N,), "a resource_link block and an embedded text resource"),
            Call("bad-arguments", "add", {"a": "x"}, (E,), "argument validation failure: an isError result"),
        ),
        source="tests/servers/fastmcp_server.py"),
    Server(
        "fastmcp-typescript", "npm:fastmcp",
        lambda folder: [str(NODE), str(HERE / "ts_fastmcp_server.mjs")],
        (
            Call("add", "add", {"a": 1, "b": 2}, (N,), "the sum as text"),
            Call("refuse", "refuse", {}, (E,), "throws UserError: an isError result"),
            Call("pixel", "pixel", {}, (N,), "imageContent: an image block"),
            Call("silence", "silence", {}, (N,), "audioContent: an audio block"),
            Call("bad-arguments", "add", {"a": "x"}, (P,),
                 "its CallTool handler throws McpError InvalidParams (-32602) when parameters fail validation"),
            Call("unknown-tool", "no_such_tool", {}, (P,),
                 "its CallTool handler throws McpError MethodNotFound (-32601) for an unknown tool"),
        ),
        needs=(NODE, NPM / "fastmcp"), source="tests/interop/ts_fastmcp_server.mjs"),
)


# -- recording ------------------------------------------------------------------------------

def _fill(value: Any, folder: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{fs}", str(folder / "fs")).replace("{folder}", str(folder))
    if isinstance(value, dict):
        return {k: _fill(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, folder) for v in value]
    return value


def missing(server: Server) -> list[Path]:
    return [path for path in server.needs if not path.exists()]


def package_version(server: Server) -> str | None:
    """The installed version of the server's package (its package.json, or Python metadata)."""
    kind, _, name = server.package.partition(":")
    if kind == "npm":
        manifest = NPM / name / "package.json"
        return str(json.loads(manifest.read_text("utf-8"))["version"]) if manifest.exists() else None
    if server.python is not None:
        out = subprocess.run([str(server.python), "-c", f"import importlib.metadata as m; print(m.version({name!r}))"],
                             capture_output=True, text=True, check=False)
        return out.stdout.strip() or None
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Recorded:
    """One round of one call, as the recorder saw it."""

    server: Server
    call: Call
    round: int
    method: str
    version: str
    server_info: dict[str, Any]
    request_id: str | int | None
    capabilities: dict[str, Any]
    extensions: tuple[str, ...]
    response: bytes | None
    kind: Kind
    """What the client's verdict said (for the live test's comparison; never written as a label)."""
    findings: tuple[str, ...]


async def record(server: Server, folder: Path) -> list[Recorded]:
    server.prepare(folder)
    env = {**os.environ, **{k: _fill(v, folder) for k, v in server.env.items()}}
    from mcp_verdict.client import VerdictClient

    options: dict[str, Any] = {"handlers": _handlers(server.inputs), "tasks": server.tasks, "timeout": 60,
                               "task_timeout": 120}
    if server.http:
        async with _listening(server, folder, env) as url, VerdictClient.http(url, **options) as client:
            return await _calls(server, folder, client)
    async with VerdictClient.stdio(server.command(folder), cwd=str(ROOT), env=env, **options) as client:
        return await _calls(server, folder, client)


@asynccontextmanager
async def _listening(server: Server, folder: Path, env: dict[str, str]) -> AsyncIterator[str]:
    """Start an HTTP server on a free loopback port; yield its URL; stop it (by its own pid)."""
    port = free_port()
    command = [part.replace("{port}", str(port)) for part in server.command(folder)]
    env = {**env, "PORT": str(port)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await anyio.to_thread.run_sync(wait_listening, port, process, server.name)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


async def _calls(server: Server, folder: Path, client: Any) -> list[Recorded]:
    out: list[Recorded] = []
    info = dict(client.server_info or {})
    for call in server.calls:
        await client.call_tool(call.tool, _fill(call.arguments, folder))
        rounds = [r for r in client.history[-1].rounds if r.method in ("tools/call", "tasks/result")]
        for number, round_ in enumerate(rounds):
            request_id = json.loads(round_.request)["id"] if round_.request else None
            augmented = round_.method == "tools/call" and round_.request is not None and b'"task":{' in round_.request
            extensions = ("io.modelcontextprotocol/tasks",) if augmented else tuple(client.extensions)
            out.append(Recorded(server, call, number, round_.method, client.version, info, request_id,
                                dict(client.capabilities), extensions, round_.response, round_.verdict.kind,
                                tuple(f.code for f in round_.verdict.findings)))
    return out


def record_all(servers: Sequence[Server] = SERVERS) -> list[Recorded]:
    out: list[Recorded] = []
    for server in servers:
        lacking = missing(server)
        if lacking:
            raise FileNotFoundError(f"{server.name} needs {', '.join(map(str, lacking))} (./run test installs it)")
        with tempfile.TemporaryDirectory(prefix="mcp-verdict-traffic-") as scratch:
            out.extend(anyio.run(record, server, Path(scratch)))
    return out


_SPEC_OF = {Kind.NORMAL_COMPLETE: "server/tools#tool-result", Kind.TOOL_ERROR: "server/tools#error-handling",
            Kind.PROTOCOL_ERROR: "server/tools#error-handling", Kind.INPUT_REQUIRED: "basic/patterns/mrtr",
            Kind.TASK: "basic/utilities/tasks"}


def corpus_line(item: Recorded) -> dict[str, Any]:
    """The corpus case for one recorded round, labelled from the call table."""
    call, server = item.call, item.server
    if item.response is None:
        raise ValueError(f"{server.name} {call.label}: no answer to record")
    if len(call.kinds) <= item.round:
        raise ValueError(f"{server.name} {call.label}: round {item.round} has no label (the table says "
                         f"{len(call.kinds)} rounds)")
    expect = call.kinds[item.round]
    # The case's options are only what its kind needs (a task handle needs the tasks extension),
    # so that every receiver can be run on real traffic; what the client declared and the id it
    # sent are kept beside, and tests/test_traffic.py classifies with them too.
    options: dict[str, Any] = {"extensions": list(item.extensions)} if item.extensions else {}
    try:
        text = item.response.decode("utf-8")
        body: dict[str, Any] = {"raw": text}
    except UnicodeDecodeError:  # pragma: no cover - no recorded server sends non-UTF-8
        import base64
        body = {"raw_base64": base64.b64encode(item.response).decode("ascii")}
    return {
        "id": f"rec/{server.name}/{call.label}/{item.round}",
        "version": item.version,
        **body,
        **({"options": options} if options else {}),
        "expect": expect.value,
        "schema": "valid",
        "spec": SPEC + item.version + "/" + _SPEC_OF[expect],
        "description": call.note,
        "recorded": {"server": server.name, "package": server.package,
                     "package_version": package_version(server), **({"source": server.source} if server.source else {}),
                     "server_info": item.server_info, "tool": call.tool, "arguments": call.arguments,
                     "transport": "http" if server.http else "stdio",
                     "method": item.method, "round": item.round, "request_id": item.request_id,
                     "client_capabilities": item.capabilities, "extensions": list(item.extensions)},
    }


def write(items: Sequence[Recorded], path: Path = RECORDED) -> None:
    lines = [json.dumps(corpus_line(item), ensure_ascii=False, separators=(",", ":")) for item in items]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help=f"rewrite {RECORDED.relative_to(ROOT)}")
    parser.add_argument("servers", nargs="*", help="only these servers (by name); --record needs all")
    args = parser.parse_args(argv)
    chosen = [s for s in SERVERS if not args.servers or s.name in args.servers]
    if args.record and len(chosen) != len(SERVERS):
        parser.error("--record rewrites the whole file: give no server names")
    if shutil.which("git") is None:
        parser.error("git is needed for mcp-server-git's scratch repository")
    items = record_all(chosen)
    for item in items:
        label = item.call.kinds[item.round].value if item.round < len(item.call.kinds) else "?"
        mark = "" if (label == item.kind.value and not item.findings) else "   <-- differs"
        print(f"{item.server.name:26} {item.version} {item.call.label:18} {item.round} {item.method:12} "
              f"label {label:16} verdict {item.kind.value:16} {list(item.findings)}{mark}")
    if args.record:
        write(items)
        print(f"wrote {len(items)} cases to {RECORDED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

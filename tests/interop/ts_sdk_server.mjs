// A real MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk, pinned by
// package-lock.json), for mcp-verdict's interop tests.
//
//   node ts_sdk_server.mjs stdio
//   node ts_sdk_server.mjs http PORT     Streamable HTTP on 127.0.0.1:PORT/mcp, stateful, with the
//                                        SDK's InMemoryEventStore: every SSE stream is primed with
//                                        an event that has an id and empty data (2025-11-25).
//
// Tools: add (structuredContent under an outputSchema), decline (a tool execution error,
// isError: true), explode (a handler that throws: the SDK answers isError: true), ask_name
// (a form elicitation, a server-to-client request, then the greeting).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { z } from "zod";

function build() {
  const server = new McpServer({ name: "ts-sdk-interop", version: "1.0.0" });
  server.registerTool("add", {
    description: "Add two integers.",
    inputSchema: { a: z.number().int(), b: z.number().int() },
    outputSchema: { total: z.number().int() },
  }, async ({ a, b }) => ({
    content: [{ type: "text", text: JSON.stringify({ total: a + b }) }],
    structuredContent: { total: a + b },
  }));
  server.registerTool("decline", {
    description: "Always a tool execution error.",
    inputSchema: { reason: z.string() },
  }, async ({ reason }) => ({ content: [{ type: "text", text: `declined: ${reason}` }], isError: true }));
  server.registerTool("explode", {
    description: "A handler that throws.",
    inputSchema: {},
  }, async () => { throw new Error("the handler blew up"); });
  server.registerTool("ask_name", {
    description: "Asks the user's name with a form elicitation.",
    inputSchema: {},
  }, async () => {
    const answer = await server.server.elicitInput({
      mode: "form",
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
    const name = answer.action === "accept" ? answer.content?.name : "nobody";
    return { content: [{ type: "text", text: `hello, ${name}` }] };
  });
  return server;
}

async function serveHttp(port) {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith("/mcp")) { res.writeHead(404).end(); return; }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? JSON.parse(text) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({
          jsonrpc: "2.0", id: body?.id ?? null, error: { code: -32000, message: "Bad Request: no session" } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new InMemoryEventStore(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(port, "127.0.0.1", () => console.error(`listening on http://127.0.0.1:${port}/mcp`));
}

if (process.argv[2] === "http") {
  await serveHttp(Number(process.argv[3]));
} else {
  await build().connect(new StdioServerTransport());
}

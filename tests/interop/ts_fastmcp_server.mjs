// A real MCP server on the TypeScript fastmcp framework (npm fastmcp), for the recorded-traffic
// corpus: text, structured-looking JSON text, an image, an audio clip, a tool that throws a
// UserError (a tool execution error), and argument validation. Run: node ts_fastmcp_server.mjs (stdio).
import { FastMCP, UserError, audioContent, imageContent } from "fastmcp";
import { z } from "zod";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63600000" +
    "02000001e221bc330000000049454e44ae426082", "hex");
const WAV = Buffer.from("524946462400000057415645666d74201000000001000100401f0000803e0000020010006461746100000000",
  "hex");

const server = new FastMCP({ name: "ts-fastmcp-interop", version: "1.0.0" });

server.addTool({
  name: "add",
  description: "Add two integers.",
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: async ({ a, b }) => String(a + b),
});

server.addTool({
  name: "refuse",
  description: "Always a tool execution error.",
  parameters: z.object({ reason: z.string().default("no") }),
  execute: async ({ reason }) => {
    throw new UserError(`refused: ${reason}`);
  },
});

server.addTool({
  name: "pixel",
  description: "A 1x1 PNG.",
  parameters: z.object({}),
  execute: async () => imageContent({ buffer: PNG }),
});

server.addTool({
  name: "silence",
  description: "A WAV header with no samples.",
  parameters: z.object({}),
  execute: async () => audioContent({ buffer: WAV }),
});

server.start({ transportType: "stdio" });

// An MCP server written with the official TypeScript SDK, over stdio. Its
// schemas are plain JSON Schema, open to keys they do not list.
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { ListToolsRequestSchema, CallToolRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const tools = [
  {
    name: "shout",
    description: "Says the text louder.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  { name: "notes.read", description: "Reads the notes.", inputSchema: { type: "object" } },
  { name: "pixel", description: "Draws one pixel.", inputSchema: { type: "object" } },
];

const server = new Server({ name: "ts-server", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments || {};
  switch (req.params.name) {
    case "shout":
      if (args.text === "") {
        return { isError: true, content: [{ type: "text", text: "nothing to shout" }] };
      }
      return {
        content: [{ type: "text", text: args.text.toUpperCase() + "! keys: " + Object.keys(args).sort().join(",") }],
        structuredContent: { length: args.text.length },
      };
    case "notes.read":
      return { content: [{ type: "text", text: "buy milk" }] };
    case "pixel":
      return { content: [{ type: "image", data: pixel, mimeType: "image/png" }] };
  }
  throw new Error("unknown tool " + req.params.name);
});

server.connect(new StdioServerTransport()).catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});

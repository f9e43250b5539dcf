// An MCP client written with the official TypeScript SDK: it connects to a
// server (a subprocess over stdio, or a streamable HTTP endpoint), lists its
// tools, makes the calls given as a JSON array and prints what it got.
//
//   node client.cjs stdio <command> '<calls>'
//   node client.cjs http <url> '<calls>'
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [mode, target, calls] = process.argv.slice(2);
  const transport = mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["-serve"] })
    : new StreamableHTTPClientTransport(new URL(target));
  const client = new Client({ name: "ts-interop", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const c of JSON.parse(calls)) {
    results.push(await client.callTool({ name: c.name, arguments: c.arguments }));
  }
  await client.close();
  process.stdout.write(JSON.stringify({ server: client.getServerVersion(), tools, results }));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});

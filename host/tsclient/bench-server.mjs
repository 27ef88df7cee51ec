// A stateless Streamable HTTP MCP server on the official TypeScript SDK,
// for `pluginhost bench` (bench/hostbench/tsserver.go): it lists exactly the
// tools a plugin host lists, so that its tools/list and initialize answers
// can be measured beside the host's.
// Usage: node bench-server.mjs <listing.json>
// listing.json is {"tools": <the host's tools/list result>, "serverInfo":
// {...}, "instructions": "..."} as the host answered them. The server
// listens on a free loopback port and prints "port <n>" once it listens.
//
// It follows the SDK's own stateless example (a new Server and transport
// per request, connected, then handleRequest on Node's http), without
// Express: only the SDK's work and Node's HTTP are measured.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench-server.mjs <listing.json>');
  process.exit(2);
}
const listing = JSON.parse(readFileSync(file, 'utf8'));
const tools = listing.tools;
if (!Array.isArray(tools?.tools)) {
  console.error(`${file} has no tools/list result under "tools"`);
  process.exit(2);
}
const info = listing.serverInfo ?? { name: 'ts-bench', version: '1.0.0' };
const instructions = listing.instructions;

function mcpServer() {
  const s = new Server(info, { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) });
  s.setRequestHandler(ListToolsRequestSchema, async () => tools);
  s.setRequestHandler(CallToolRequestSchema, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'tools are listed, not served, by the bench server' }],
  }));
  return s;
}

const http = createServer(async (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (e) {
    if (!res.headersSent) {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(e) }, id: null }));
    }
  }
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => {
  console.log(`port ${http.address().port}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  });
}

// The official TypeScript MCP SDK client against a running plugin host,
// driven by host/tsclient_test.go. Usage: node run.mjs <replica A> <replica B>
// Each check prints one line, "ok <name> <detail>" or "fail <name>: <why>";
// the Go test reads them. notifications/cancelled goes to replica B,
// everything else to A, as an ingress in front of replicas might send it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const [a, b] = process.argv.slice(2);

// split sends notifications/cancelled to replica B.
const split = async (url, init) => {
  const body = typeof init?.body === 'string' ? init.body : '';
  if (body.includes('"notifications/cancelled"')) {
    url = new URL(new URL(url).pathname, b);
  }
  return fetch(url, init);
};

async function connect(headers, path = '/slow/mcp') {
  const client = new Client({ name: 'tsclient-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, a), { requestInit: { headers }, fetch: split });
  await client.connect(transport);
  return client;
}

const license = { Authorization: 'License ts-key' };
let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    console.log(`ok ${name} ${detail ?? ''}`);
  } catch (e) {
    failed++;
    console.log(`fail ${name}: ${e?.stack ?? e}`);
  }
}
const must = (cond, msg) => { if (!cond) throw new Error(msg); };

await check('tools-list-output-schema', async () => {
  const c = await connect(license);
  const { tools } = await c.listTools();
  for (const t of tools) {
    must(t.outputSchema?.properties?.items, `${t.name} has no outputSchema with items`);
  }
  await c.close();
  return tools.map(t => t.name).join(',');
});

await check('structured-result-validated', async () => {
  const c = await connect(license);
  await c.listTools(); // the SDK validates structuredContent against the schema it listed
  const res = await c.callTool({ name: 'work', arguments: {} });
  must(!res.isError, `tool error: ${JSON.stringify(res.content)}`);
  must(res.structuredContent?.items?.length === 1, `structuredContent: ${JSON.stringify(res.structuredContent)}`);
  await c.close();
  return `total_items=${res.structuredContent.total_items}`;
});

await check('text-only', async () => {
  const c = await connect({ ...license, 'x-surfsense-text-only': '1' });
  const { tools } = await c.listTools();
  must(tools.every(t => t.outputSchema === undefined), 'a text-only tools/list carries an outputSchema');
  const res = await c.callTool({ name: 'work', arguments: {} });
  must(!res.isError && res.structuredContent === undefined, `text-only result: ${JSON.stringify(res)}`);
  must(JSON.parse(res.content[0].text).items.length === 1, 'the text is not the envelope');
  await c.close();
});

await check('unknown-method', async () => {
  const c = await connect(license);
  try {
    await c.request({ method: 'resources/list', params: {} }, (await import('@modelcontextprotocol/sdk/types.js')).ListResourcesResultSchema);
    throw new Error('resources/list answered');
  } catch (e) {
    must(e instanceof McpError && e.code === -32601, `got ${e}`);
  } finally {
    await c.close();
  }
});

await check('capabilities', async () => {
  const c = await connect(license);
  const caps = c.getServerCapabilities();
  must(caps.tools && !caps.tools.listChanged && !caps.logging, `capabilities ${JSON.stringify(caps)}`);
  await c.close();
  return JSON.stringify(caps);
});

await check('missing-license', async () => {
  try {
    await connect({});
    throw new Error('connected without a license');
  } catch (e) {
    must(String(e).includes('401') || e?.code === 401, `got ${e}`);
  }
});

// Abort a running call (AbortSignal), then call again at once: with
// MAX_CONCURRENT_CALLS=1 the second call runs only if the first one's slot
// was freed. Prints the abort-to-next-result times.
await check('abort-frees-slot', async () => {
  const c = await connect(license);
  const times = [];
  for (let i = 0; i < 3; i++) {
    const ac = new AbortController();
    const running = c.callTool({ name: 'work', arguments: { wait: true } }, undefined, { signal: ac.signal });
    await new Promise(r => setTimeout(r, 300));
    const t0 = performance.now();
    ac.abort('the user stopped it');
    try {
      await running;
      throw new Error('the aborted call resolved');
    } catch (e) {
      must(!String(e).includes('resolved'), String(e));
    }
    const next = await c.callTool({ name: 'work', arguments: {} });
    must(!next.isError, `the next call: ${JSON.stringify(next.content)}`);
    times.push((performance.now() - t0).toFixed(1));
  }
  await c.close();
  return `abort-to-next-result-ms=${times.join(',')}`;
});

process.exit(failed ? 1 : 0);

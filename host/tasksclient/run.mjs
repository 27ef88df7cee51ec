// The official MCP Tasks requester (@modelcontextprotocol/ext-tasks, its
// client entry point in 2026-07-28 mode, on the v2 TypeScript client
// @modelcontextprotocol/client) against two plugin host replicas sharing one
// redis-server, driven by host/tasksclient_test.go.
//
// Usage: node run.mjs <replica A> <replica B> <control URL>
// Each check prints one line, "ok <name> <detail>" or "fail <name>: <why>";
// "mark <name> <epoch ms>" lines give the Go test the moments it measures
// from. The control URL's POST /kill-a kills replica A (the Go test's part).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  TaskFailedError,
} from '@modelcontextprotocol/ext-tasks/client';

const [a, b, control] = process.argv.slice(2);
const license = 'License tasks-key';
const protocolVersion = '2026-07-28';
const clientInfo = { name: 'tasksclient-test', version: '1.0.0' };
const endpointId = 'pluginhost-long'; // one endpoint behind both replicas

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
const now = () => performance.timeOrigin + performance.now();

// connect opens a v2 client on a replica, pinned to 2026-07-28
// (server/discover).
async function connect(base) {
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: protocolVersion } } });
  const transport = new StreamableHTTPClientTransport(new URL('/long/mcp', base), { requestInit: { headers: { Authorization: license } } });
  await client.connect(transport);
  return client;
}

// rawDispatch is the host-owned request path the requester needs for the
// 2026-07-28 task wire shapes: one POST per request to base, with the
// standard headers (Mcp-Method; Mcp-Name, which the requester sets to the
// task id on tasks/*), answered as JSON or an event stream.
let nextId = 1;
function rawDispatch(base) {
  return async (request, options = {}) => {
    const id = nextId++;
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: license,
      'MCP-Protocol-Version': protocolVersion,
      'Mcp-Method': request.method,
      ...(request.method === 'tools/call' ? { 'Mcp-Name': request.params.name } : {}),
      ...(options.context?.headers ?? {}),
    };
    const res = await fetch(new URL('/long/mcp', base), {
      method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, ...request }), signal: options.signal,
    });
    const text = await res.text();
    let msg;
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const m = JSON.parse(line.slice(6));
        if (m.id === id) msg = m;
      }
    } else {
      msg = JSON.parse(text);
    }
    if (!msg) throw new Error(`no response to ${request.method} (${res.status}): ${text.slice(0, 300)}`);
    return msg.error ? { kind: 'error', error: msg.error } : { kind: 'result', result: msg.result };
  };
}

// session is a task session of the official requester on a replica.
async function session(base) {
  const client = await connect(base);
  must(client.getProtocolEra() === 'modern', `era ${client.getProtocolEra()}`);
  const caps = client.getServerCapabilities();
  must(caps?.extensions?.['io.modelcontextprotocol/tasks'] !== undefined, `server/discover lists no tasks extension: ${JSON.stringify(caps)}`);
  const s = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch: rawDispatch(base),
    v2RequestFraming: { protocolVersion, clientInfo, clientCapabilities: {} },
  });
  return { client, s, close: async () => { await s.close(); await client.close(); } };
}

await check('discover-lists-extension', async () => {
  const c = await connect(a);
  const caps = c.getServerCapabilities();
  must(c.getProtocolEra() === 'modern', `era ${c.getProtocolEra()}`);
  must(JSON.stringify(caps.extensions?.['io.modelcontextprotocol/tasks']) === '{}', `capabilities ${JSON.stringify(caps)}`);
  await c.close();
  return JSON.stringify(caps);
});

await check('created-on-a-completed-on-b', async () => {
  const A = await session(a);
  const B = await session(b);
  try {
    const exec = await A.s.callTool('crawl', { pages: 3, sleep_ms: 4500, tag: 'complete' });
    must(exec.kind === 'task', `the call answered ${exec.kind}, not a task`);
    const ref = exec.serializeReference();
    await exec.handoff(() => {});
    const resumed = await B.s.resumeTask(ref);
    const seen = [];
    const { outcome } = await resumed.settle({ onEvent: (e) => { if (e.type === 'task') seen.push(`${e.task.status}:${e.task.statusMessage ?? ''}`); } });
    const result = resultFromTaskOutcome(outcome);
    must(outcome.status === 'completed', `outcome ${outcome.status}`);
    must(result.resultType === 'complete' && result.structuredContent?.items?.length === 3, `result ${JSON.stringify(result).slice(0, 300)}`);
    must(seen.some((s) => s.startsWith('working:page')), `B never saw the progress: ${seen.join(' | ')}`);
    return `${ref.taskId} polled on B: ${seen.length} snapshots, ${result.structuredContent.items.length} items`;
  } finally {
    await A.close();
    await B.close();
  }
});

await check('cancelled-from-b', async () => {
  const A = await session(a);
  const B = await session(b);
  try {
    const exec = await A.s.callTool('crawl', { hold: true, tag: 'cancel' });
    must(exec.kind === 'task', `the call answered ${exec.kind}, not a task`);
    const id = exec.handle.taskId;
    await exec.detach();
    await new Promise((r) => setTimeout(r, 200)); // the run is under way on A
    console.log(`mark cancel-sent ${now()}`);
    await B.s.task(id).cancel();
    const view = await A.s.task(id).snapshot();
    must(view.status === 'cancelled', `A reads ${view.status} after B's cancel`);
    return id;
  } finally {
    await A.close();
    await B.close();
  }
});

await check('undeclared-gets-direct-answer', async () => {
  const c = await connect(b);
  try {
    const res = await c.callTool({ name: 'crawl', arguments: { pages: 2, sleep_ms: 300, tag: 'undeclared' } });
    must(!res.isError && res.structuredContent?.items?.length === 2, `result ${JSON.stringify(res).slice(0, 300)}`);
    must(res.resultType === undefined || res.resultType === 'complete', `resultType ${res.resultType}`);
    return `${res.structuredContent.items.length} items directly`;
  } finally {
    await c.close();
  }
});

await check('replica-killed-mid-task', async () => {
  const A = await session(a);
  const B = await session(b);
  try {
    const exec = await A.s.callTool('crawl', { hold: true, tag: 'killed' });
    must(exec.kind === 'task', `the call answered ${exec.kind}, not a task`);
    const ref = exec.serializeReference();
    await exec.handoff(() => {});
    const kill = await fetch(new URL('/kill-a', control), { method: 'POST' });
    must(kill.ok, `kill: ${kill.status}`);
    const started = now();
    const resumed = await B.s.resumeTask(ref);
    const { outcome } = await resumed.settle();
    must(outcome.status === 'failed', `outcome ${outcome.status}`);
    must(outcome.error instanceof TaskFailedError, `error ${outcome.error}`);
    return `${ref.taskId} failed on B ${Math.round(now() - started)} ms after A was killed: ${outcome.error.message}`;
  } finally {
    await B.close();
    await A.s.close().catch(() => {});
    await A.client.close().catch(() => {});
  }
});

process.exit(failed ? 1 : 0);

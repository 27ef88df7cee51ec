// Better Auth as a plugin's authorization server, for the client's sign-in
// tests: its OAuth provider with client ID metadata documents (the CIMD
// plugin) and no dynamic registration, on its memory adapter, PKCE, the
// plugin's MCP server as its one resource, refresh tokens, and introspection
// for the MCP server (a confidential client made at start). The login and
// consent pages are the small forms below, which headless Chromium fills in;
// they call Better Auth's own sign-in and consent endpoints.
//
// Env: RESOURCE, the MCP server's URL; ACCESS_TTL, the access token's
// lifetime in seconds; METADATA_HOST, the one host whose metadata documents
// are fetched, at 127.0.0.1 (its certificate is trusted through
// NODE_EXTRA_CA_CERTS). Prints one JSON line {"issuer", "rs_id",
// "rs_secret"} once it listens on 127.0.0.1.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { getAuthTables } from 'better-auth/db';
import { jwt } from 'better-auth/plugins';
import { toNodeHandler } from 'better-auth/node';
import { oauthProvider, oauthProviderAuthServerMetadata } from '@better-auth/oauth-provider';
import { cimd } from '@better-auth/cimd';

const resource = process.env.RESOURCE;
const metadataHost = process.env.METADATA_HOST;
if (!resource || !metadataHost) throw new Error('RESOURCE and METADATA_HOST are required');
const accessTTL = Number(process.env.ACCESS_TTL || 600);

// fetchClientMetadataResource as @better-auth/cimd/node does it (HTTPS
// only, GET or HEAD, redirects never followed, the address pinned), except
// that the one metadata host is pinned to 127.0.0.1 rather than resolved.
function fetchMetadata(input, init) {
  const req = new Request(input, init);
  const url = new URL(req.url);
  if (url.protocol !== 'https:') throw new TypeError('metadata documents are fetched over HTTPS only');
  if (url.hostname !== metadataHost) throw new TypeError(`metadata host ${url.hostname} is not the test's`);
  const headers = Object.fromEntries(req.headers.entries());
  headers.host = url.host;
  return new Promise((resolve, reject) => {
    const r = https.request(url, {
      agent: false, headers, method: req.method, servername: url.hostname, signal: init?.signal,
      lookup: (_h, o, cb) => (o && o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)),
    }, (res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (Array.isArray(v)) v.forEach((x) => h.append(k, x)); else if (v !== undefined) h.append(k, v);
      }
      resolve(new Response(req.method === 'HEAD' ? null : Readable.toWeb(res), { status: res.statusCode, headers: h }));
    });
    r.once('error', (err) => { console.error('metadata fetch:', err.message); reject(err); });
    r.end();
  });
}

const page = (title, body) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const loginPage = page('Sign in', `
<h1>Sign in</h1>
<form id="f"><input name="email" type="email" required><input name="password" type="password" required><button type="submit">Sign in</button></form>
<p id="err"></p>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const fd = new FormData(e.target);
  const r = await fetch('/api/auth/sign-in/email', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, credentials: 'include',
    body: JSON.stringify({ email: fd.get('email'), password: fd.get('password'), oauth_query: location.search.slice(1) }) });
  const j = await r.json().catch(() => ({}));
  const to = j.url || j.redirect_uri || (j.redirect && j.url);
  if (to) location.href = to; else document.getElementById('err').textContent = 'sign-in failed: ' + r.status + ' ' + JSON.stringify(j);
});
</script>`);
const consentPage = page('Consent', `
<h1>Allow SurfSense?</h1>
<button id="allow">Allow</button> <button id="deny">Deny</button>
<p id="err"></p>
<script>
async function answer(accept) {
  const r = await fetch('/api/auth/oauth2/consent', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, credentials: 'include',
    body: JSON.stringify({ accept, oauth_query: location.search.slice(1) }) });
  const j = await r.json().catch(() => ({}));
  const to = j.redirect_uri || j.url;
  if (to) location.href = to; else document.getElementById('err').textContent = 'consent failed: ' + r.status + ' ' + JSON.stringify(j);
}
document.getElementById('allow').onclick = () => answer(true);
document.getElementById('deny').onclick = () => answer(false);
</script>`);

const server = http.createServer();
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  // The memory adapter holds a table for each model of the options.
  const db = {};
  const options = {
    baseURL: origin,
    secret: randomBytes(32).toString('hex'),
    database: memoryAdapter(db),
    emailAndPassword: { enabled: true },
    disabledPaths: ['/token'],
    telemetry: { enabled: false },
    plugins: [
      jwt(),
      oauthProvider({
        loginPage: '/login',
        consentPage: '/consent',
        scopes: ['openid', 'profile', 'email', 'offline_access', 'mcp'],
        resources: [{ identifier: resource, accessTokenTtl: accessTTL, allowedScopes: ['openid', 'profile', 'email', 'offline_access', 'mcp'] }],
        // Every client registered, a metadata document's included, may ask
        // for the one resource.
        clientRegistrationDefaultResources: [resource],
        accessTokenExpiresIn: accessTTL,
        allowDynamicClientRegistration: false,
      }),
      cimd({ fetchClientMetadataResource: fetchMetadata, metadataFetchPolicy: { minimumFetchInterval: 0 } }),
    ],
  };
  for (const [key, table] of Object.entries(getAuthTables(options))) db[table.modelName ?? key] = db[key] = [];
  const auth = betterAuth(options);
  // The user, and as her the resource server's client.
  const signedUp = await auth.api.signUpEmail({ body: { email: 'ada@example.test', password: 'correct horse battery', name: 'Ada' }, returnHeaders: true });
  const cookie = signedUp.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const rs = await auth.api.createOAuthClient({
    headers: new Headers({ cookie }),
    body: { client_name: 'MCP resource server', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: ['https://resource-server.test/unused'] },
  });
  const handler = toNodeHandler(auth);
  const metadata = oauthProviderAuthServerMetadata(auth);
  server.on('request', async (req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/login' || path === '/consent') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(path === '/login' ? loginPage : consentPage);
      return;
    }
    if (path.startsWith('/.well-known/oauth-authorization-server')) {
      const r = await metadata(new Request(origin + req.url));
      res.writeHead(r.status, Object.fromEntries(r.headers.entries()));
      res.end(Buffer.from(await r.arrayBuffer()));
      return;
    }
    handler(req, res);
  });
  const issuer = (await (await metadata(new Request(origin + '/.well-known/oauth-authorization-server/api/auth'))).json()).issuer;
  console.log(JSON.stringify({ issuer, rs_id: rs.client_id, rs_secret: rs.client_secret }));
});

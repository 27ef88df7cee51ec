// oidc-provider as a plugin's authorization server, for the client's
// sign-in tests: dynamic registration only (no client ID metadata
// documents), PKCE, resource indicators bound to the plugin's MCP server,
// refresh tokens, and introspection for the MCP server (the resource
// server's own client). The login and consent pages are oidc-provider's
// development interactions, which headless Chromium fills in.
//
// Env: RESOURCE, the MCP server's URL; RS_SECRET, the resource server's
// client secret; ACCESS_TTL, the access token's lifetime in seconds;
// PREREGISTERED_REDIRECTS, the redirects of the client registered in
// advance (surfsense-preregistered), space-separated; ISSUER_HOST, the
// name the issuer is at (127.0.0.1 unless set; it listens there).
// Prints one JSON line {"issuer": ...} once it listens on 127.0.0.1.
import http from 'node:http';
import Provider from 'oidc-provider';

const resource = process.env.RESOURCE;
if (!resource) throw new Error('RESOURCE is required');
const accessTTL = Number(process.env.ACCESS_TTL || 600);

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://${process.env.ISSUER_HOST || '127.0.0.1'}:${port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: 'mcp-resource-server',
      client_secret: process.env.RS_SECRET,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    }, {
      // A public client registered in advance, as a registry entry's
      // auth.client_id names one.
      client_id: 'surfsense-preregistered',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: (process.env.PREREGISTERED_REDIRECTS || 'https://unused.test/cb').split(' '),
    }],
    scopes: ['openid', 'offline_access', 'mcp'],
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return { scope: 'mcp', audience: resource, accessTokenTTL: accessTTL, accessTokenFormat: 'opaque' };
        },
      },
    },
    issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: accessTTL },
    async findAccount(ctx, id) {
      return { accountId: id, async claims() { return { sub: id }; } };
    },
  });
  provider.proxy = false;
  server.on('request', provider.callback());
  console.log(JSON.stringify({ issuer }));
});

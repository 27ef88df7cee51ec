// Package client implements the SurfSense app's side of plugins in Go: what
// the app does to connect a plugin, check it, decide which of its tools are
// ready and which ask first, ask the plugin host for the license verdict, and
// keep the signed third-party registry. It follows the app's document
// (app-plugins-architecture.md: "SurfSense's own plugins", "Third-party
// plugins", "Connecting a server", "The MCP client", "Signing in with
// OAuth", "Checks", "Ready tools", "The license verdict", "Tables",
// "Routes") and is what `pluginhost doctor` and the host's end-to-end tests
// use.
//
// The pieces:
//
//   - [Lister] lists a server's tools over Streamable HTTP with the official
//     MCP Go SDK: one connection per listing, cursors followed, retries, a
//     forgotten session listed once more, refusals as [*RefusalError].
//   - [PluginHost] is the plugin host this build reaches, and decides where
//     the license key and x-surfsense-text-only go.
//   - [Client] lists connected plugins ([Client.Plugins]), connects plugins
//     ([Client.ConnectFirstParty],
//     [Client.ConnectRegistry], [Client.ConnectCustom]) and connects them
//     again ([Client.Connect], [Client.ReplaceKey], [Client.SignInAgain]),
//     records checks ([Client.Check]; before and after an agent turn,
//     [Client.PrepareTurn] and [Client.AfterTurn]), answers
//     [Client.ReadyTools] and [NeedsApproval], and asks the license verdict
//     ([Client.CheckLicense]). Refusals are [*Error] values carrying the
//     app's HTTP status and code.
//   - Signing in with OAuth runs the MCP Go SDK's authorization-code handler
//     (registration as SurfSense's client ID metadata document, a registry
//     entry's client registered in advance, or dynamic registration; PKCE
//     S256; the code exchange). A server that asks for it makes a connect
//     return a [*SignInRequiredError] holding the [SignIn] started, whose
//     state is <CallbackPort>.<nonce>; the browser comes back to
//     [Client.CallbackHandler], directly or through the plugin host's
//     /oauth/callback page; [Client.SignInStatus] polls it and
//     [Client.AbandonSignIn] ends it. [SignInAs] says who the client signs in
//     as. The tokens are an [OAuthCredential], refreshed one at a time per
//     plugin within [RefreshWindow] of expiry before a turn and once after a
//     401.
//   - [Store] mirrors the app's tables; [MemoryStore] and [FileStore] (whose
//     credentials are encrypted at rest) implement it.
//   - [Registry] fetches, verifies and keeps the third-party registry.
//   - [Doctor] checks a running plugin host the way the app would.
//
// No secret (license key, pasted key, OAuth token or client secret) is ever
// logged, put in an error, or marshalled with a plugin row:
// [InstalledPlugin.Credential] has no JSON name, every type that holds a
// secret prints, marshals and logs it hidden whatever the verb, and errors
// name servers by URL only.
//
// The sign-in is tested against real authorization servers run by node
// from client/testdata/authservers (`npm ci` there): Better Auth's OAuth
// provider with its CIMD plugin, and oidc-provider with dynamic
// registration only, each fronting an MCP server that takes only its
// tokens, with Debian's chromium consenting and the plugin host's OAuth
// pages forwarding the browser. Those tests skip, saying so, without node,
// the modules or chromium.
package client

// Package client implements the SurfSense app's side of plugins in Go: what
// the app does to connect a plugin, check it, decide which of its tools are
// ready and which ask first, ask the plugin host for the license verdict, and
// keep the signed third-party registry. It follows the app's document
// (app-plugins-architecture.md: "SurfSense's own plugins", "Third-party
// plugins", "Connecting a server", "The MCP client", "Checks", "Ready tools",
// "The license verdict", "Tables") and is what `pluginhost doctor` and the
// host's end-to-end tests use.
//
// The pieces:
//
//   - [Lister] lists a server's tools over Streamable HTTP with the official
//     MCP Go SDK: one connection per listing, cursors followed, retries, a
//     forgotten session listed once more, refusals as [*RefusalError].
//   - [PluginHost] is the plugin host this build reaches, and decides where
//     the license key and x-surfsense-text-only go.
//   - [Client] connects plugins ([Client.ConnectFirstParty],
//     [Client.ConnectRegistry], [Client.ConnectCustom]), records checks
//     ([Client.Check]), answers [Client.ReadyTools] and [NeedsApproval], and
//     asks the license verdict ([Client.CheckLicense]). Refusals are
//     [*Error] values carrying the app's HTTP status and code.
//   - [Store] mirrors the app's tables; [MemoryStore] and [FileStore] (whose
//     credentials are encrypted at rest) implement it.
//   - [Registry] fetches, verifies and keeps the third-party registry.
//   - [Doctor] checks a running plugin host the way the app would.
//
// OAuth sign-in itself is not implemented: a server that asks for it is
// reported as [*SignInRequiredError] with its discovered metadata.
//
// No secret (license key, token, OAuth credential) is ever logged, put in an
// error, or marshalled with a plugin row: [InstalledPlugin.Credential] has no
// JSON name, and errors name servers by URL only.
package client

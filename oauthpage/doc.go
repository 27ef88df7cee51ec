// Package oauthpage serves the plugin host's two OAuth pages, the ones the
// SurfSense desktop app relies on to sign users in to OAuth plugins as one
// public client (CONTRACTS.md, "OAuth pages"):
//
//   - GET /oauth/client.json: the OAuth Client ID Metadata Document that is
//     SurfSense's client_id ({PUBLIC_URL}/oauth/client.json), whose only
//     redirect is {PUBLIC_URL}/oauth/callback; no client secret exists. Its
//     logo is served beside it at /oauth/logo.svg.
//   - GET /oauth/callback?...&state=<port>.<nonce>: the redirect target
//     authorization servers send the browser back to. It checks the state and
//     forwards the browser with a 303 to
//     http://127.0.0.1:<port>/plugins/oauth/callback with the query unchanged,
//     where the app's API finishes the sign-in. Anything else gets a 400 page
//     saying the sign-in link is broken and to start again in SurfSense.
//
// The host builds the pages with New and mounts them on its chi router with
// Mount, or routes to the Serve* handlers itself.
package oauthpage

// Package render renders web pages in a real headless Chromium, driven over
// the DevTools protocol (github.com/chromedp/chromedp), for plugins that meet
// pages built by JavaScript (web-crawl's render argument).
//
// A Renderer holds one browser: a local Chromium it starts itself
// (CHROMIUM_BIN, on a pipe, no DevTools port) or one beside the host
// (RENDERER_URL). It renders at most RENDER_CONCURRENCY pages at once, each in
// a fresh browser context (its own cookies, storage, cache and service
// workers, all disposed with it) whose every request (the page, redirects,
// subresources, fetch/XHR, WebSockets) goes through a proxy of its own inside
// the host. That proxy dials through the same address guard as the fetchers
// (internal/netguard), judged on the address really dialled: no loopback,
// private, link-local or metadata address is reached, by any spelling,
// redirect or DNS answer. Downloads, popups, dialogs and permission prompts
// are refused. A page is rendered when it is quiet (no request in flight, no
// DOM change and no short timer pending for Config.Quiet) or when its time is
// up, whichever comes first; the answer says which. The call's cancel or
// deadline closes the tab and cuts its connections at once. A browser that
// crashes or stops answering is replaced, and a render it broke is tried once
// more on the new one.
//
// The files: config.go (Config, FromEnv, the variables), renderer.go (the
// pool, browser generations, readiness, metrics), browser.go (starting or
// attaching a browser, GuardFlags), page.go (one render: lock-down, wait,
// snapshot), page.js (what every document gets before its own scripts),
// proxy.go (the per-render guarding proxy), guard.go (the dial-time check).
package render

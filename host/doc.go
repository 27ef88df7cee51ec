// Package host is the SurfSense plugin host: one stateless MCP server per
// plugin at /<id>/mcp behind the license check, /license and /cancel, the
// registry and OAuth pages, health, readiness and metrics.
//
// The host mounts exactly the plugins it is given ([Options].Plugins;
// cmd/pluginhost passes scrapers/all's list) and knows no plugin of its own.
// [New] builds a [Host] from a [Config] ([FromEnv] reads one from the
// environment, driven by the table in envvars.go); [Host.Handler] serves the
// public routes and [Host.MetricsHandler] the Prometheus ones; [Host.Drain]
// begins a graceful stop.
//
// A file per idea:
//
//   - host.go: Host, Options, New, mounting the plugins
//   - config.go, envvars.go: the configuration and its environment table
//   - router.go: the routes; licenseroute.go (GET /license), cancel.go
//     (POST /cancel), index.go (GET /), readiness.go (/readyz)
//   - requestid.go, accesslog.go, licensecheck.go, limits.go, drain.go: the
//     middleware, in the order a request meets it
//   - caller.go: who made a request, read from its headers in one place
//   - mcp.go: a plugin's MCP server and its tools' descriptions
//   - call.go: one tool call's lifecycle (deadline, cancel, progress, panics)
//   - outcome.go: what a call's end becomes (a result, partial, an error)
//   - page.go, render.go: the result envelope, its paging and its rendering
//   - getresult.go: the get_result tool every server has
//   - usagecount.go, usageroute.go: usage per license, counted at each
//     call's end and refusal (host/usage), and GET /usage
//   - tracing.go: the MCP requests' spans (OpenTelemetry's MCP convention)
//     and mcp.server.operation.duration; requestlog.go: a request's one log
//     line, the SDK's chatter at debug; upstreammetrics.go: the per-site
//     upstream series (host/telemetry builds the providers from OTEL_*)
//   - progress.go, inflight.go, metrics.go, respond.go, parts.go
//
// The contract it serves is ../shared/spec/CONTRACTS.md beside the
// repository; comments cite its sections by name.
package host

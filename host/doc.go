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
//   - requestid.go, accesslog.go: the middleware of every route; drain.go,
//     licensecheck.go, bodygate.go, limits.go: the MCP route's steps, in the
//     order a request meets them (router.go's mcpRoute; the body gate takes
//     exactly one JSON-RPC message and reads it once)
//   - licensebackend.go: the license backend LICENSE_BACKEND chooses
//   - rpcerrors.go: every refusal as a JSON-RPC error in application/json
//   - caller.go: who made a request, read from its headers in one place
//   - clientcancel.go: notifications/cancelled ends its call on any replica
//   - mcp.go: a plugin's MCP servers and its tools' descriptions;
//     outputschema.go: the result envelope each tool declares
//   - fastanswers.go: initialize, server/discover, tools/list and ping
//     answered from bytes the SDK built once per shape, for the request
//     shapes proven to get the same answer; directcall.go: tools/call run
//     without the SDK's per-request session, in the SDK's bytes;
//     jsonmembers.go: a request's JSON members read without decoding
//   - call.go: one tool call's lifecycle (deadline, cancel, progress, panics);
//     keepalive.go: bytes at least every KeepAliveInterval while it runs
//   - tasks.go: which calls become MCP Tasks (io.modelcontextprotocol/tasks)
//     and a task's run; tasksmethods.go: tasks/get, tasks/update and
//     tasks/cancel on any replica (host/tasks keeps the tasks)
//   - resultcache.go: identical calls answered from the shared cache
//     (host/resultcache), or sharing one run
//   - outcome.go: what a call's end becomes (a result, partial, an error)
//   - page.go, render.go: the result envelope, its paging and its rendering;
//     resultcheck.go: tests hold every result to its schema
//   - getresult.go: the get_result tool every server has
//   - upstream.go: a call's upstream attempts, counted from Env.Upstream
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

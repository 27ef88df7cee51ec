package host

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// logMCP writes an MCP request's one line at info: its trace id (the
// client's, continued, or the host's own when tracing is on), plugin,
// method, tool, outcome and duration, and for a tool call what it gathered
// and made upstream. Neither the arguments nor the key are in it.
func (h *Host) logMCP(r *http.Request, req *mcpRequest, method, tool, errType string, status int, dur time.Duration, call *callNote) {
	outcome := "ok"
	switch {
	case call != nil:
		outcome = call.outcome
	case errType != "":
		outcome = errType
	}
	if method == "" {
		method = "-" // refused before the body was read
	}
	attrs := []slog.Attr{
		slog.String("request_id", RequestIDFrom(r.Context())),
		slog.String("plugin", req.plugin),
		slog.String("method", method),
		slog.String("outcome", outcome),
		slog.Int("status", status),
		slog.Int64("duration_ms", dur.Milliseconds()),
	}
	if req.traceID != "" {
		attrs = append(attrs, slog.String("trace_id", req.traceID))
	}
	if tool != "" {
		attrs = append(attrs, slog.String("tool", tool))
	}
	if errType != "" {
		attrs = append(attrs, slog.String("error_type", errType))
	}
	if call != nil {
		attrs = append(attrs, slog.Int("items", call.items), slog.Int64("call_ms", call.durationMs))
		if call.thread != "" {
			attrs = append(attrs, slog.String("thread", call.thread))
		}
		if call.served != "" {
			attrs = append(attrs, slog.String("served", call.served))
		}
		if call.withUpstreamCounts {
			attrs = append(attrs, slog.Int64("upstream_requests", call.requests), slog.Int64("upstream_bytes", call.bytes),
				slog.Int64("upstream_blocked", call.blocked))
		}
	}
	h.log.LogAttrs(context.WithoutCancel(r.Context()), slog.LevelInfo, "mcp request", attrs...)
}

// sdkLogger is the logger the MCP SDK is given: its info lines ("server
// session connected", one per stateless request) are debug here, its
// warnings and errors kept as they are.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoteInfo{l.Handler()})
}

// demoteInfo is a slog.Handler that writes info records at debug, and the
// SDK's errors that a client causes at will (clientMistakes) at debug too:
// the request's own line already says how it was answered.
type demoteInfo struct{ slog.Handler }

// clientMistakes are the SDK's ERROR messages a client's request causes
// (a method 2026-07-28 removed, such as ping or initialize; initialize sent
// twice); none is the server's fault.
var clientMistakes = map[string]bool{
	"method removed in the new protocol":   true,
	"method invalid during initialization": true,
	"initialized before initialize":        true,
	"duplicate initialized notification":   true,
	"duplicate initialize request":         true,
}

func (d demoteInfo) Enabled(ctx context.Context, level slog.Level) bool {
	if level == slog.LevelInfo {
		level = slog.LevelDebug
	}
	return d.Handler.Enabled(ctx, level)
}

func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo || clientMistakes[r.Message] {
		r.Level = slog.LevelDebug
		if !d.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return d.Handler.Handle(ctx, r)
}

func (d demoteInfo) WithAttrs(attrs []slog.Attr) slog.Handler {
	return demoteInfo{d.Handler.WithAttrs(attrs)}
}

func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.Handler.WithGroup(name)} }

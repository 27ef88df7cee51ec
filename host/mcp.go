package host

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Version is the host's version, reported as the MCP servers' version.
var Version = "0.1.0"

// ToolsListTTL is the cache lifetime tools/list carries (ttlMs, scope
// public: the list is the same for every license). It changes only when the
// host is deployed again.
const ToolsListTTL = time.Hour

// mcpServers are one plugin's MCP answers: two servers, one whose tools
// declare their outputSchema and one for x-surfsense-text-only callers,
// whose tools declare none (their results carry no structuredContent, and a
// client must never see a schema without the structured result it promises);
// each served as stateless Streamable HTTP, as an event stream or, for a
// client that accepts only application/json, as one JSON body.
type mcpServers struct {
	full, textOnly *mcp.Server
	stream, json   http.Handler
	refused        func(reason string) // counts the SDK's refusals
	fast           *fastAnswers        // initialize, tools/list and ping without the SDK (fastanswers.go)
	direct         *directCalls        // tools/call without the SDK's session (directcall.go)
}

// textOnlyFor reports whether r is answered by the text-only server: the
// caller asked for it (x-surfsense-text-only: 1).
func textOnlyFor(r *http.Request) bool {
	if c, ok := callerFrom(r.Context()); ok && c.TextOnly {
		return true
	}
	return r.Header.Get("x-surfsense-text-only") == "1"
}

// mcpHandler builds the plugin's MCP servers (its tools and get_result) and
// the handler that picks one per request.
func (h *Host) mcpHandler(p scrapers.Plugin) http.Handler {
	handlers := map[string]mcp.ToolHandler{GetResultTool: h.getResultHandler(p)}
	for _, t := range p.Tools {
		handlers[t.Name] = h.toolHandler(p, t)
	}
	s := &mcpServers{full: h.newMCPServer(p, true, handlers), textOnly: h.newMCPServer(p, false, handlers),
		refused: func(reason string) { h.metrics.refusals.WithLabelValues(reason).Inc() }}
	pick := func(r *http.Request) *mcp.Server {
		if textOnlyFor(r) {
			return s.textOnly
		}
		return s.full
	}
	opts := func(jsonResponse bool) *mcp.StreamableHTTPOptions {
		return &mcp.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        jsonResponse,
			Logger:              sdkLogger(h.log),
			MaxRequestBodyBytes: MaxMCPBodyBytes,
		}
	}
	s.stream = mcp.NewStreamableHTTPHandler(pick, opts(false))
	s.json = mcp.NewStreamableHTTPHandler(pick, opts(true))
	s.fast = newFastAnswers(s, &h.sdkOnly)
	s.direct = &directCalls{impl: serverImplementation(p), handlers: handlers, fast: s.fast}
	return s
}

// ServeHTTP hands the request to the SDK in the form the body gate chose.
// The SDK insists on both types in Accept; the gate has already decided
// which one the client gets.
func (s *mcpServers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	msg, _ := messageFrom(r.Context())
	if msg != nil && (s.fast.serve(w, r, msg, textOnlyFor(r)) || s.direct.serve(w, r, msg)) {
		return
	}
	s.serveSDK(w, r, msg)
}

// serveSDK hands the request to the SDK.
func (s *mcpServers) serveSDK(w http.ResponseWriter, r *http.Request, msg *rpcMessage) {
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Content-Type", "application/json")
	ew := newRPCErrorWriter(w, r, s.refused)
	defer ew.finish()
	w = ew
	jsonOnly := msg != nil && msg.JSONOnly
	if msg != nil && msg.Method == "tools/call" && !jsonOnly {
		// The call's handler starts the response and keeps it from going
		// silent (keepalive.go). A JSON-only client's call reaches the SDK
		// only in a shape the direct calls leave to it (an unknown tool,
		// params it reads otherwise), answered at once; the direct calls
		// give a JSON-only client its keep-alive newlines (directcall.go).
		ka := newKeepAlive(ew, !jsonOnly)
		defer ka.close()
		w = ka
		r = r.WithContext(context.WithValue(r.Context(), ctxKeepAlive, ka))
	}
	if jsonOnly {
		s.json.ServeHTTP(w, r)
		return
	}
	s.stream.ServeHTTP(w, r)
}

// newMCPServer is one of the plugin's servers. Its capabilities are honest:
// tools, without listChanged (a stateless server cannot notify) and without
// logging (it sends no log messages), and the extension MCP Tasks
// (tasks.go), which server/discover lists.
func (h *Host) newMCPServer(p scrapers.Plugin, schemas bool, handlers map[string]mcp.ToolHandler) *mcp.Server {
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	caps.AddExtension(tasksExtension, map[string]any{})
	srv := mcp.NewServer(serverImplementation(p), &mcp.ServerOptions{
		Logger:       sdkLogger(h.log),
		Capabilities: caps,
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.(*mcp.ListToolsRequest); ok {
				c.TTLMs, c.CacheScope = int(ToolsListTTL/time.Millisecond), "public"
			}
		},
	})
	srv.AddReceivingMiddleware(h.annotateMCP)
	for _, t := range p.Tools {
		var out *jsonschema.Schema
		if schemas {
			out = toolOutputSchema(t, false)
		}
		srv.AddTool(mcpTool(h.published(t), out), handlers[t.Name])
	}
	var out *jsonschema.Schema
	if schemas {
		out = getResultOutputSchema(p, false)
	}
	srv.AddTool(mcpTool(getResultTool(), out), handlers[GetResultTool])
	return srv
}

// serverImplementation is how the plugin's servers name themselves.
func serverImplementation(p scrapers.Plugin) *mcp.Implementation {
	return &mcp.Implementation{Name: "surfsense-" + p.ID, Title: p.Name, Version: Version}
}

// mcpTool is the MCP description of a tool: every scraper tool is read-only
// and reaches the open world. out is its output schema (nil: none).
func mcpTool(t scrapers.Tool, out *jsonschema.Schema) *mcp.Tool {
	f, tr := false, true
	schema := t.InputSchema
	if schema == nil {
		schema = &jsonschema.Schema{Type: "object"}
	}
	tool := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		// Encoded once: every tools/list would otherwise marshal the
		// schemas again, the most expensive part of answering it.
		InputSchema: encodeSchema(t.Name, schema),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    true,
			DestructiveHint: &f,
			IdempotentHint:  true,
			OpenWorldHint:   &tr,
		},
	}
	if out != nil {
		tool.OutputSchema = encodeSchema(t.Name, out)
	}
	return tool
}

// OutputSchema is the outputSchema tools/list publishes for the tool of a
// mounted plugin (get_result included), as JSON; false when there is no
// such tool. The fast answers of tools/list and the tests use it.
func (h *Host) OutputSchema(plugin, tool string) (json.RawMessage, bool) {
	for _, m := range h.plugins {
		if m.plugin.ID != plugin {
			continue
		}
		if tool == GetResultTool {
			return encodeSchema(tool, getResultOutputSchema(m.plugin, false)), true
		}
		for _, t := range m.plugin.Tools {
			if t.Name == tool {
				return encodeSchema(tool, toolOutputSchema(t, false)), true
			}
		}
	}
	return nil, false
}

package host

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// FuzzBeginSpan: whatever a client puts in a request's method, id and
// params (_meta's traceparent included), the span begins without a panic,
// its name is a known method (with a tool of the plugin at most), and its
// request id is bounded.
func FuzzBeginSpan(f *testing.F) {
	f.Add("tools/call", `7`, `{"name":"get","arguments":{"q":"x"},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`)
	f.Add("initialize", `"abc"`, `{"protocolVersion":"2025-06-18"}`)
	f.Add("x/y", `null`, `{"_meta":{"traceparent":"zz","tracestate":"a=b"}}`)
	f.Add("tools/call", `{}`, `{"name":5,"_meta":[]}`)
	mem := tracetest.NewInMemoryExporter()
	h := &Host{tel: newTelemetry(sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem)), nil)}
	f.Fuzz(func(t *testing.T, method, id, params string) {
		req := &mcpRequest{plugin: "p", tools: map[string]bool{"get": true, GetResultTool: true}, start: time.Now()}
		r := httptest.NewRequest("POST", "/p/mcp", nil)
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		msg := &rpcMessage{Method: method, ID: json.RawMessage(id), Params: json.RawMessage(params)}
		ctx := h.beginSpan(r.Context(), r, req, msg)
		if ctx == nil || req.span == nil {
			t.Fatal("no span")
		}
		req.span.End()
		spans := mem.GetSpans()
		mem.Reset()
		if len(spans) != 1 {
			t.Fatalf("%d spans", len(spans))
		}
		name := spans[0].Name
		m, tool, _ := strings.Cut(name, " ")
		if m != methodLabel(m) || (tool != "" && !req.tools[tool]) {
			t.Fatalf("span name %q from method %q", name, method)
		}
		for _, kv := range spans[0].Attributes {
			if kv.Key == "jsonrpc.request.id" && len(kv.Value.AsString()) > 128 {
				t.Fatalf("request id of %d bytes", len(kv.Value.AsString()))
			}
		}
	})
}

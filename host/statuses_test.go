package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// statusCase is one request of the conformance-style status test.
type statusCase struct {
	name    string
	method  string
	params  string // "" sends none
	mcpName string // Mcp-Name from 2026-07-28 on
}

func meta2026() string {
	return `{` + pvKey + `:"2026-07-28",` + capsKey + `:{},` + infoKey + `:{"name":"conformance","version":"1"}}`
}

// statusRequest is c as a client of protocol version pv sends it ("" sends
// no MCP-Protocol-Version), taking accept.
func statusRequest(t *testing.T, url, pv, accept string, c statusCase) *http.Request {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":11,"method":"` + c.method + `"`
	if c.params != "" {
		body += `,"params":` + c.params
	}
	body += "}"
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "License conformance-key")
	if pv != "" {
		req.Header.Set("MCP-Protocol-Version", pv)
	}
	if pv >= "2026-07-28" {
		req.Header.Set("Mcp-Method", c.method)
		if c.mcpName != "" {
			req.Header.Set("Mcp-Name", c.mcpName)
		}
	}
	return req
}

// rpcAnswer reads an answer's status and its JSON-RPC error code (0 when
// none), from a JSON body or an event stream's message.
func rpcAnswer(t *testing.T, req *http.Request) (int, int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	data := b
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		data = b[i+len("data: "):]
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			data = data[:j]
		}
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &m); err != nil {
		return resp.StatusCode, 0, string(b)
	}
	if m.Error == nil {
		return resp.StatusCode, 0, string(b)
	}
	return resp.StatusCode, m.Error.Code, string(b)
}

// bareSDKServer serves web-crawl's tools on the Go SDK alone, stateless,
// as the reference for 2026-07-28's statuses.
func bareSDKServer(t *testing.T) string {
	p, err := webcrawl.New(scrapers.Env{AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	for _, tool := range p.Tools {
		srv.AddTool(&mcp.Tool{Name: tool.Name, InputSchema: tool.InputSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// lockedBuffer collects the host's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The statuses of the official conformance suite's 2026-07-28 scenario
// server-stateless, as the spec (SEP-2575) and the Go SDK give them: an
// unknown method is 404 (-32601), a bad tools/call 400 (-32602), the removed
// initialize and ping 404; each the same status the Go SDK's own stateless
// server answers. Older protocol versions keep the host's answers (a
// JSON-RPC error in a 200). None of it writes an ERROR line to the log.
func TestProtocolStatusesAsTheSpecGivesThem(t *testing.T) {
	logs := &lockedBuffer{}
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New},
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	hostURL := h.URL + "/web-crawl/mcp"
	sdkURL := bareSDKServer(t)
	m := meta2026()
	// hostOnly: a method the SDK's server serves itself (resources,
	// prompts) but this host, a server of tools only, does not offer.
	newCases := []struct {
		statusCase
		status, code int
		hostOnly     bool
	}{
		{statusCase{name: "unknown method", method: "no/such/method", params: `{"_meta":` + m + `}`}, 404, -32601, false},
		{statusCase{name: "unknown method without params", method: "no/such/method"}, 404, -32601, false},
		{statusCase{name: "resources/list", method: "resources/list", params: `{"_meta":` + m + `}`}, 404, -32601, true},
		{statusCase{name: "prompts/get", method: "prompts/get", params: `{"name":"x","_meta":` + m + `}`, mcpName: "x"}, 404, -32601, true},
		{statusCase{name: "tools/call of an unknown tool", method: "tools/call", params: `{"name":"nope","arguments":{},"_meta":` + m + `}`, mcpName: "nope"}, 400, -32602, false},
		{statusCase{name: "tools/call without params", method: "tools/call"}, 400, -32602, false},
		{statusCase{name: "removed ping", method: "ping", params: `{"_meta":` + m + `}`}, 404, -32601, false},
		{statusCase{name: "removed initialize", method: "initialize", params: `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"},"_meta":` + m + `}`}, 404, -32601, false},
	}
	for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
		for _, c := range newCases {
			status, code, body := rpcAnswer(t, statusRequest(t, hostURL, "2026-07-28", accept, c.statusCase))
			if status != c.status || code != c.code {
				t.Errorf("2026-07-28 %s (%s): host answered %d with %d, want %d with %d\n%.300s", c.name, accept, status, code, c.status, c.code, body)
			}
			if c.hostOnly || !strings.Contains(accept, "text/event-stream") {
				continue // the SDK refuses a client that takes only JSON (the host answers it in JSON)
			}
			sdkStatus, _, sdkBody := rpcAnswer(t, statusRequest(t, sdkURL, "2026-07-28", accept, c.statusCase))
			if sdkStatus != status {
				t.Errorf("2026-07-28 %s (%s): host answered %d, the Go SDK %d\n%.300s", c.name, accept, status, sdkStatus, sdkBody)
			}
		}
	}
	// Older versions are as they were: the error in a 200 answer.
	oldCases := []struct {
		statusCase
		status, code int
	}{
		{statusCase{name: "unknown method", method: "resources/list"}, 200, -32601},
		{statusCase{name: "tools/call without params", method: "tools/call"}, 200, -32602},
		{statusCase{name: "tools/call of an unknown tool", method: "tools/call", params: `{"name":"nope","arguments":{}}`}, 200, -32602},
	}
	for _, pv := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		for _, c := range oldCases {
			status, code, body := rpcAnswer(t, statusRequest(t, hostURL, pv, "application/json, text/event-stream", c.statusCase))
			if status != c.status || code != c.code {
				t.Errorf("protocol %q %s: answered %d with %d, want %d with %d\n%.300s", pv, c.name, status, code, c.status, c.code, body)
			}
		}
	}
	// A notification of an unknown method has no response to carry the
	// error: 400 in every version, as before.
	for _, pv := range []string{"2025-11-25", "2026-07-28"} {
		req := statusRequest(t, hostURL, pv, "application/json, text/event-stream", statusCase{method: "notifications/nonsense"})
		req.Body = io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/nonsense"}`))
		req.ContentLength = -1
		if status, _, body := rpcAnswer(t, req); status != 400 && status != 404 {
			t.Errorf("protocol %s: an unknown notification answered %d: %s", pv, status, body)
		}
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Fatalf("a client's requests wrote ERROR lines:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"status":404`) {
		t.Fatalf("the request lines do not say how the removed methods were answered:\n%.2000s", logs.String())
	}
}

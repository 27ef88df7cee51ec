package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// standIn is a stand-in MCP server on loopback, made with the go-sdk server
// and wrapped in an http handler that records requests and can refuse,
// fail, or forget sessions.
type standIn struct {
	t      testing.TB
	server *mcp.Server
	http   *httptest.Server
	inner  http.Handler

	mu       sync.Mutex
	requests []seenRequest
	// intercept, when set, answers a request instead of the MCP server when
	// it returns true. n counts POSTs from 1.
	intercept func(w http.ResponseWriter, r *http.Request, n int) bool
	posts     int
}

type seenRequest struct {
	Method string
	Header http.Header
	Body   string
}

type standInOptions struct {
	pageSize  int
	stateless bool
}

func bptr(b bool) *bool { return &b }

// readOnlyTool is a tool as the host's scrapers describe theirs.
func readOnlyTool(name, desc string) *mcp.Tool {
	return &mcp.Tool{
		Name: name, Title: name, Description: desc,
		InputSchema: map[string]any{"type": "object"},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: bptr(false), OpenWorldHint: bptr(true), Title: name},
	}
}

func newStandIn(t testing.TB, opts standInOptions, tools ...*mcp.Tool) *standIn {
	t.Helper()
	s := &standIn{t: t}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "stand-in", Version: "1"}, &mcp.ServerOptions{PageSize: opts.pageSize})
	for _, tl := range tools {
		s.addTool(tl)
	}
	s.inner = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server },
		&mcp.StreamableHTTPOptions{Stateless: opts.stateless, JSONResponse: true})
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.http.Close)
	return s
}

func (s *standIn) addTool(tl *mcp.Tool) {
	s.server.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
}

func (s *standIn) URL() string { return s.http.URL + "/mcp" }

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		body = make([]byte, 0, 512)
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			body = append(body, buf[:n]...)
			if err != nil {
				break
			}
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, seenRequest{Method: r.Method, Header: r.Header.Clone(), Body: string(body)})
	if r.Method == http.MethodPost {
		s.posts++
	}
	n, icpt := s.posts, s.intercept
	s.mu.Unlock()
	r.Body = readCloser(body)
	if icpt != nil && icpt(w, r, n) {
		return
	}
	s.inner.ServeHTTP(w, r)
}

func (s *standIn) setIntercept(f func(w http.ResponseWriter, r *http.Request, n int) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = f
}

func (s *standIn) seen() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.requests...)
}

func (s *standIn) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.posts = nil, 0
}

// rpcMethod returns the JSON-RPC method of a POST body, "" when none.
func rpcMethod(body string) string {
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal([]byte(body), &m)
	return m.Method
}

func refuse(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if reason != "" {
		json.NewEncoder(w).Encode(map[string]string{"reason": reason, "message": "stand-in says " + reason})
	}
}

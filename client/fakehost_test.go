package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/registry"
)

// fakeHost is a small stand-in plugin host: one stateless MCP server per
// first-party id at /<id>/mcp, contract 2's license refusals on every
// request, GET /license, and the lists. Tests control it: keys and their
// states, a /license override, a server override.
type fakeHost struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	keys    map[string]string // key → valid, expired, revoked, invalid
	servers map[string]*mcp.Server
	// licenseHook, when set, answers GET /license instead.
	licenseHook func(w http.ResponseWriter, r *http.Request) bool
	// mcpHook, when set, may answer /<id>/mcp instead.
	mcpHook  func(id string, w http.ResponseWriter, r *http.Request) bool
	requests []hostRequest
	files    map[string][]byte // path → body (/plugins.json, …)
}

type hostRequest struct {
	Method, Path, Auth, TextOnly string
}

// testFirstParty is a first-party list as the build would package it.
func testFirstParty() *registry.List {
	e := func(id, name string, tools ...string) registry.Entry {
		return registry.Entry{
			ID: id, Name: name, Description: name + " for SurfSense.", Author: "SurfSense",
			Publisher: registry.PublisherSurfSense, URL: "https://plugins.surfsense.com/" + id + "/mcp",
			Hosts: []string{"plugins.surfsense.com"}, Access: registry.AccessLicense,
			Auth: registry.Auth{Type: registry.AuthLicense}, Tools: tools, Added: "2026-11",
		}
	}
	return &registry.List{SchemaVersion: 1, Plugins: []registry.Entry{
		e("google-search", "Google Search", "search"),
		e("amazon", "Amazon", "scrape"),
		e("google-maps", "Google Maps", "scrape", "reviews"),
	}}
}

func newFakeHost(t *testing.T, list *registry.List) *fakeHost {
	t.Helper()
	h := &fakeHost{t: t, keys: map[string]string{}, servers: map[string]*mcp.Server{}, files: map[string][]byte{}}
	for _, e := range list.Plugins {
		s := mcp.NewServer(&mcp.Implementation{Name: e.ID, Version: "1"}, nil)
		for _, name := range append(append([]string(nil), e.Tools...), registry.ResultTool) {
			s.AddTool(readOnlyTool(name, e.Name+" "+name+"."), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		}
		h.servers[e.ID] = s
	}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHost) URL() string { return h.srv.URL }

func (h *fakeHost) setKey(key, state string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keys[key] = state
}

func (h *fakeHost) seen() []hostRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hostRequest(nil), h.requests...)
}

func (h *fakeHost) count(path string) int {
	n := 0
	for _, r := range h.seen() {
		if r.Path == path {
			n++
		}
	}
	return n
}

// checkLicense applies contract 2; ok is true for a valid key.
func (h *fakeHost) checkLicense(w http.ResponseWriter, r *http.Request) (key string, ok bool) {
	auth := r.Header.Get("Authorization")
	scheme, key, found := strings.Cut(auth, " ")
	if !found || !strings.EqualFold(scheme, "License") || key == "" {
		refuse(w, 401, "missing_license")
		return "", false
	}
	h.mu.Lock()
	state, known := h.keys[key]
	h.mu.Unlock()
	switch {
	case !known:
		refuse(w, 403, "invalid")
		return "", false
	case state != "valid":
		refuse(w, 403, state)
		return "", false
	}
	return key, true
}

func (h *fakeHost) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests = append(h.requests, hostRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Surfsense-Text-Only")})
	lh, mh := h.licenseHook, h.mcpHook
	body, isFile := h.files[r.URL.Path]
	h.mu.Unlock()
	switch {
	case isFile && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	case r.URL.Path == "/license":
		if lh != nil && lh(w, r) {
			return
		}
		if _, ok := h.checkLicense(w, r); !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"status": "valid", "plan": "team", "expires_at": "2027-03-01T00:00:00Z", "checked_at": time.Now().UTC().Format(time.RFC3339)})
	case strings.HasSuffix(r.URL.Path, "/mcp"):
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/mcp")
		if mh != nil && mh(id, w, r) {
			return
		}
		h.mu.Lock()
		s := h.servers[id]
		h.mu.Unlock()
		if s == nil {
			refuse(w, 404, "not_found")
			return
		}
		if r.Method != http.MethodPost {
			refuse(w, 405, "method_not_allowed")
			return
		}
		if _, ok := h.checkLicense(w, r); !ok {
			return
		}
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}).ServeHTTP(w, r)
	default:
		refuse(w, 404, "not_found")
	}
}

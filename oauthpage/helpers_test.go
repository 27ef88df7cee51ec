package oauthpage

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
)

// newTestPages returns pages for https://plugins.example and a router with
// them mounted. logs collects what they log, at debug level and up.
func newTestPages(t testing.TB, seen SeenStates) (p *Pages, r chi.Router, logs *syncBuffer) {
	t.Helper()
	logs = &syncBuffer{}
	p, err := New(Config{
		PublicURL: "https://plugins.example",
		Logger:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Seen:      seen,
	})
	if err != nil {
		t.Fatal(err)
	}
	r = chi.NewRouter()
	p.Mount(r)
	return p, r, logs
}

// get serves GET path?rawQuery through h, with the raw query set as is (so
// that bytes a request line could not carry still reach the handler).
func get(h http.Handler, path, rawQuery string) *http.Response {
	return do(h, http.MethodGet, path, rawQuery, nil)
}

func do(h http.Handler, method, path, rawQuery string, header http.Header) *http.Response {
	req := httptest.NewRequestWithContext(context.Background(), method, path, nil)
	req.URL.RawQuery = rawQuery
	req.RequestURI = path
	if rawQuery != "" {
		req.RequestURI += "?" + rawQuery
	}
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func readBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkSecurityHeaders fails t unless resp carries the headers every answer
// must, with Cache-Control equal to cacheControl.
func checkSecurityHeaders(t testing.TB, resp *http.Response, cacheControl string) {
	t.Helper()
	h := resp.Header
	want := map[string]string{
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          cacheControl,
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want exactly %q", k, got, v)
		}
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "frame-ancestors 'none'", "sandbox"} {
		if !strings.Contains(csp, d) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, d)
		}
	}
	for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "script-src", "*", "data:", "http:", "https:"} {
		if strings.Contains(csp, bad) {
			t.Errorf("Content-Security-Policy %q allows %q", csp, bad)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes (slog handlers
// write from the serving goroutine).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// countingSeen is a SeenStates that records the states asked about and can
// fail.
type countingSeen struct {
	mu    sync.Mutex
	asked []string
	err   error
	inner MemorySeen
}

func (c *countingSeen) FirstUse(ctx context.Context, state string) (bool, error) {
	c.mu.Lock()
	c.asked = append(c.asked, state)
	c.mu.Unlock()
	if c.err != nil {
		return false, c.err
	}
	return c.inner.FirstUse(ctx, state)
}

func (c *countingSeen) calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.asked...)
}

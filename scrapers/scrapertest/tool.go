package scrapertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// Env is an environment reading vars, with private networks allowed: the
// stand-in origins tests start listen on loopback.
func Env(vars map[string]string) scrapers.Env {
	return scrapers.Env{Getenv: func(k string) string { return vars[k] }, AllowPrivateNetworks: true}
}

// NewPlugin builds a plugin with newPlugin (a site's New) from [Env](vars),
// typically {"<ID>_BASE_URL": stand-in URL}, failing the test when it cannot.
func NewPlugin(tb testing.TB, newPlugin func(scrapers.Env) (scrapers.Plugin, error), vars map[string]string) scrapers.Plugin {
	tb.Helper()
	p, err := newPlugin(Env(vars))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Serve starts h as a stand-in origin, closed when the test ends, and builds
// the plugin newPlugin against it: baseEnv (the site's <ID>_BASE_URL) names
// the stand-in's URL.
func Serve(tb testing.TB, h http.Handler, newPlugin func(scrapers.Env) (scrapers.Plugin, error), baseEnv string) scrapers.Plugin {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return NewPlugin(tb, newPlugin, map[string]string{baseEnv: srv.URL})
}

// Run runs tool with the raw JSON arguments args under ctx, the way the host
// does: in a fresh [scrapers.Call]. It returns what the call gathered and the
// tool's error. It fails the test when items came but no progress was
// reported, and checks the items against the tool's ItemSchema when it
// declares one ([CheckItems]).
func Run(ctx context.Context, tb testing.TB, tool scrapers.Tool, args string) (scrapers.Outcome, error) {
	tb.Helper()
	var progressed atomic.Bool
	call := scrapers.NewCall(func(string, int, int) { progressed.Store(true) })
	err := tool.Run(ctx, call, json.RawMessage(args))
	out := call.Snapshot()
	if len(out.Items) > 0 && !progressed.Load() {
		tb.Error("no progress was reported")
	}
	checkDeclared(tb, tool, out)
	return out, err
}

// RunTool runs p's tool name with the raw JSON arguments args under a
// timeout, the way the host does, and returns what the call gathered and the
// tool's error. A plugin without the tool fails the test; items are checked
// against the tool's ItemSchema when it declares one ([CheckItems]).
func RunTool(tb testing.TB, p scrapers.Plugin, name, args string, timeout time.Duration) (scrapers.Outcome, error) {
	tb.Helper()
	for _, tool := range p.Tools {
		if tool.Name == name {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			call := scrapers.NewCall(nil)
			err := tool.Run(ctx, call, json.RawMessage(args))
			out := call.Snapshot()
			checkDeclared(tb, tool, out)
			return out, err
		}
	}
	tb.Fatalf("plugin %s has no tool %q", p.ID, name)
	return scrapers.Outcome{}, nil
}

// Items decodes every item of o. An item that is not a JSON object fails the
// test; one without a "url" is an error (every item names where it came from).
func Items(tb testing.TB, o scrapers.Outcome) []map[string]any {
	tb.Helper()
	out := make([]map[string]any, 0, len(o.Items))
	for i, raw := range o.Items {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			tb.Fatalf("item %d is not a JSON object: %s", i, raw)
		}
		if u, _ := m["url"].(string); u == "" {
			tb.Errorf("item %d names no url: %s", i, raw)
		}
		out = append(out, m)
	}
	return out
}

// Succeeded returns the items that are results, not failed sources.
func Succeeded(items []map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		if _, failed := it["error"]; !failed {
			out = append(out, it)
		}
	}
	return out
}

// Failed returns the failed-source items (those with an "error").
func Failed(items []map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		if _, failed := it["error"]; failed {
			out = append(out, it)
		}
	}
	return out
}

// RequestLog records the requests a stand-in origin received, as path and
// query. It is safe for concurrent use; the zero value is an empty log.
type RequestLog struct {
	mu   sync.Mutex
	list []string
}

// Record adds r to the log.
func (l *RequestLog) Record(r *http.Request) {
	l.mu.Lock()
	l.list = append(l.list, r.URL.RequestURI())
	l.mu.Unlock()
}

// WithPrefix returns the requests so far whose path and query start with
// prefix ("/" for all), in the order they came.
func (l *RequestLog) WithPrefix(prefix string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.list {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// Package hosttest runs a real plugin host in process for tests: license
// checks, MCP over HTTP, the official Go SDK client. Plugins point their
// origins at local stand-ins through Env.
package hosttest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// Options configure a test host. The zero value mounts no plugin and checks
// keys with the dev license backend (any non-empty key is valid).
type Options struct {
	// Plugins to mount (scrapers/all.Plugins for every one).
	Plugins []scrapers.Constructor
	// Env is what plugins read (AMAZON_BASE_URL, SEARXNG_URL, …).
	Env map[string]string
	// Backend checks keys; nil is license.Dev{}.
	Backend license.Backend
	// Config adjusts the configuration (deadline, result size, …) before the
	// host is built. ALLOW_PRIVATE_NETWORKS is on by default: stand-ins are on
	// loopback.
	Config func(*host.Config)
	Stores host.Stores
	Parts  []host.Part
	// Logger; nil logs to stderr only with -v.
	Logger *slog.Logger
	// Now is the host's clock for usage; nil is time.Now.
	Now func() time.Time
	// TracerProvider and MeterProvider, when set, receive the host's spans
	// and OpenTelemetry metrics (host/telemetry builds them).
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// CheckResult, when set, replaces the default check of results: every
	// result a tool call sends is validated against the tool's output
	// schema (host.Options.CheckResult) and a mismatch fails the test.
	CheckResult func(plugin, tool string, err error)
}

// Host is a running test host.
type Host struct {
	*host.Host
	URL    string
	Server *httptest.Server
}

// Start builds and serves a host; it stops at the test's cleanup.
func Start(t testing.TB, opts Options) *Host {
	t.Helper()
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	env := opts.Env
	cfg.Getenv = func(k string) string { return env[k] }
	// Stand-ins block one URL and serve the next, where a real site's
	// captcha would hold the exit for BLOCK_HOLD: a test of holds sets it.
	cfg.BlockHold = 0
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	backend := opts.Backend
	if backend == nil {
		backend = license.Dev{}
	}
	logger := opts.Logger
	if logger == nil {
		level := slog.LevelWarn + 100
		if testing.Verbose() {
			level = slog.LevelInfo
		}
		logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	check := opts.CheckResult
	if check == nil {
		check = ResultChecker(t)
	}
	h, err := host.New(cfg, host.Options{Logger: logger, Plugins: opts.Plugins, Backend: backend, Stores: opts.Stores, Parts: opts.Parts, Now: opts.Now,
		TracerProvider: opts.TracerProvider, MeterProvider: opts.MeterProvider, CheckResult: check})
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return &Host{Host: h, URL: srv.URL, Server: srv}
}

// Connect opens an MCP client session to plugin id with key (sent as
// Authorization: License <key>) and extra headers (X-SurfSense-Thread,
// x-surfsense-text-only). The session closes at cleanup.
func (h *Host) Connect(t testing.TB, id, key string, extra http.Header) *mcp.ClientSession {
	t.Helper()
	cs, err := Connect(context.Background(), h.URL+"/"+id+"/mcp", key, extra, nil)
	if err != nil {
		t.Fatalf("hosttest: connecting to %s: %v", id, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Connect opens an MCP client session to endpoint with the license key and
// extra headers; copts may set progress handlers.
func Connect(ctx context.Context, endpoint, key string, extra http.Header, copts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	return mcpdial.Connect(ctx, endpoint, key, extra, copts, nil)
}

// ResultChecker is a host.Options.CheckResult that fails t when a result does
// not conform to its tool's output schema, until t's cleanup (a call still
// answering after the test ended is not reported).
func ResultChecker(t testing.TB) func(plugin, tool string, err error) {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
	})
	return func(plugin, tool string, err error) {
		if err == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !done {
			t.Errorf("hosttest: a result of %s/%s breaks its output schema: %v", plugin, tool, err)
		}
	}
}

// Package host is the SurfSense plugin host: the router, the license check,
// one stateless MCP server per plugin at /<id>/mcp, /license and /cancel, the
// registry and OAuth pages, health, readiness and metrics.
//
// New builds a Host from a Config; Handler serves the public routes and
// MetricsHandler the Prometheus ones. Drain begins a graceful stop.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/ratelimit"
	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/oauthpage"
	"github.com/surfsense/pluginhost/scrapers"
)

// Stores are the state the host shares between replicas when Redis is
// configured. A nil field is the in-memory implementation.
type Stores struct {
	Licenses license.Store
	Calls    calls.Registry
	Results  results.Store
	Limits   ratelimit.Limiter
	// OAuthStates remembers used OAuth states (the callback works once).
	OAuthStates oauthpage.SeenStates
	// Health reports the shared store's state for /readyz ("ok" or
	// "degraded: …"); nil when there is none.
	Health func() (ok bool, detail string)
}

// Options are what New takes beside the Config.
type Options struct {
	// Logger receives JSON logs; nil is slog.Default().
	Logger *slog.Logger
	// Plugins are the constructors of the plugins to mount (cmd/pluginhost
	// passes scrapers/all's list). None mounts none: the host knows no plugin
	// of its own. An unlisted plugin is mounted only when UNLISTED_PLUGINS
	// names it.
	Plugins []scrapers.Constructor
	// Backend overrides the license backend chosen by Config (tests).
	Backend license.Backend
	// Stores overrides the in-memory state (Redis).
	Stores Stores
	// Metrics is the Prometheus registry the host registers its series in
	// and MetricsHandler serves; nil is a new one. Pass the same registry to
	// the stores (Redis) so that their series are served too.
	Metrics *prometheus.Registry
	// Parts are routes and readiness parts beside the plugins. Nil builds the
	// default ones from Config: the OAuth pages and the plugin lists.
	Parts []Part
}

// Part is something mounted beside the plugins: it adds routes and names its
// state in /readyz.
type Part interface {
	// Name is the part's name in /readyz.
	Name() string
	// Mount adds the part's routes.
	Mount(r chi.Router)
	// Status says "ok" or what is degraded; a degraded part keeps the replica
	// ready (200), as CONTRACTS.md asks.
	Status() string
}

// Host is one replica of the plugin host.
type Host struct {
	cfg     Config
	log     *slog.Logger
	checker *license.Checker
	stores  Stores
	plugins []mounted
	parts   []Part
	metrics *metrics
	handler http.Handler

	draining atomic.Bool
	// inFlight tracks tool calls on this replica for the drain.
	mu       sync.Mutex
	inFlight map[*activeCall]struct{}
	idle     chan struct{} // closed when inFlight empties while draining
}

// mounted is a plugin with its MCP handler.
type mounted struct {
	plugin  scrapers.Plugin
	handler http.Handler
}

// New builds a host. It fails, saying what to fix, when the configuration is
// not usable or a plugin cannot be built.
func New(cfg Config, opts Options) (*Host, error) {
	// An injected backend (tests, bench) stands in for LICENSE_BACKEND's
	// settings; everything else is checked as always.
	check := cfg.Validate
	if opts.Backend != nil {
		check = cfg.validateRest
	}
	if err := check(); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	h := &Host{cfg: cfg, log: log, stores: opts.Stores, parts: opts.Parts, metrics: newMetrics(opts.Metrics), inFlight: map[*activeCall]struct{}{}}
	if h.stores.Licenses == nil {
		h.stores.Licenses = &license.MemoryStore{}
	}
	if h.stores.Calls == nil {
		h.stores.Calls = &calls.Memory{}
	}
	if h.stores.Results == nil {
		h.stores.Results = &results.Memory{}
	}
	if h.stores.Limits == nil {
		h.stores.Limits = &ratelimit.Memory{}
	}
	backend := opts.Backend
	if backend == nil {
		b, err := newBackend(cfg, log)
		if err != nil {
			return nil, err
		}
		backend = b
	}
	if backend.Name() == "dev" {
		log.Warn("LICENSE_BACKEND=dev: every non-empty license key is accepted as valid. Never run this in production.")
	}
	h.checker = &license.Checker{
		Backend: backend, Store: h.stores.Licenses, TTL: cfg.License.CacheTTL, Grace: cfg.License.Grace,
		Timeout: 5 * time.Second, Logger: log,
		Observe: func(reason string) { h.metrics.verdicts.WithLabelValues(reason).Inc() },
	}
	if err := h.mountPlugins(opts.Plugins); err != nil {
		return nil, err
	}
	if h.parts == nil {
		parts, err := defaultParts(cfg, log, h.stores)
		if err != nil {
			return nil, err
		}
		h.parts = parts
	}
	h.handler = h.routes()
	return h, nil
}

func newBackend(cfg Config, log *slog.Logger) (license.Backend, error) {
	switch cfg.License.Backend {
	case "dev":
		return license.Dev{}, nil
	case "file":
		return license.NewFile(cfg.License.KeysFile, log)
	case "keygen":
		return license.NewKeygen(cfg.License.KeygenURL, cfg.License.KeygenAccount)
	}
	return nil, fmt.Errorf("LICENSE_BACKEND=%q: choose keygen, file or dev", cfg.License.Backend)
}

func (h *Host) mountPlugins(ctors []scrapers.Constructor) error {
	env := scrapers.Env{Getenv: h.cfg.Getenv, AllowPrivateNetworks: h.cfg.AllowPrivateNetworks, Logger: h.log}
	seen := map[string]bool{}
	var errs []error
	for _, ctor := range ctors {
		p, err := ctor(env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if p.Unlisted && !slices.Contains(h.cfg.UnlistedPlugins, p.ID) {
			continue
		}
		if seen[p.ID] {
			errs = append(errs, fmt.Errorf("plugin id %q is mounted twice", p.ID))
			continue
		}
		seen[p.ID] = true
		h.plugins = append(h.plugins, mounted{plugin: p, handler: h.mcpHandler(p)})
	}
	for _, id := range h.cfg.UnlistedPlugins {
		if !seen[id] {
			errs = append(errs, fmt.Errorf("UNLISTED_PLUGINS names %q, which is not a plugin of this build", id))
		}
	}
	return errors.Join(errs...)
}

// Handler serves the public routes.
func (h *Host) Handler() http.Handler { return h.handler }

// MetricsHandler serves Prometheus metrics (on METRICS_ADDR, never the public listener).
func (h *Host) MetricsHandler() http.Handler { return h.metrics.handler() }

// PluginIDs are the mounted plugins' ids, sorted.
func (h *Host) PluginIDs() []string {
	ids := make([]string, 0, len(h.plugins))
	for _, m := range h.plugins {
		ids = append(ids, m.plugin.ID)
	}
	sort.Strings(ids)
	return ids
}

// Plugins are the mounted plugins.
func (h *Host) Plugins() []scrapers.Plugin {
	out := make([]scrapers.Plugin, 0, len(h.plugins))
	for _, m := range h.plugins {
		out = append(out, m.plugin)
	}
	return out
}

// Checker is the host's license checker (bench, tests).
func (h *Host) Checker() *license.Checker { return h.checker }

// Config returns the host's configuration.
func (h *Host) Config() Config { return h.cfg }

// Draining reports whether Drain began.
func (h *Host) Draining() bool { return h.draining.Load() }

// Drain stops taking calls (/readyz turns 503 and new calls are refused with
// 503), lets calls in flight finish for up to wait, then cancels the rest with
// a tool error saying the host is shutting down, and waits (briefly) until they
// answered. It returns how many calls had to be cancelled.
func (h *Host) Drain(ctx context.Context, wait time.Duration) int {
	h.draining.Store(true)
	h.log.Info("draining: no new calls are taken", "in_flight", h.InFlight(), "drain", wait.String())
	if h.waitIdle(ctx, wait) {
		return 0
	}
	h.mu.Lock()
	list := make([]*activeCall, 0, len(h.inFlight))
	for c := range h.inFlight {
		list = append(list, c)
	}
	h.mu.Unlock()
	for _, c := range list {
		c.cancel(scrapers.ErrShuttingDown)
	}
	h.log.Warn("drain time ran out: calls in flight were cancelled", "cancelled", len(list))
	h.waitIdle(ctx, 5*time.Second)
	return len(list)
}

// InFlight is the number of tool calls in flight on this replica.
func (h *Host) InFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.inFlight)
}

func (h *Host) waitIdle(ctx context.Context, wait time.Duration) bool {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if h.InFlight() == 0 {
			return true
		}
		select {
		case <-deadline.C:
			return h.InFlight() == 0
		case <-ctx.Done():
			return h.InFlight() == 0
		case <-tick.C:
		}
	}
}

// readiness is /readyz's body.
type readiness struct {
	Status string            `json:"status"` // ready, draining
	Parts  map[string]string `json:"parts"`
}

func (h *Host) readiness() (int, readiness) {
	r := readiness{Status: "ready", Parts: map[string]string{}}
	r.Parts["license"] = "ok (" + h.checker.Backend.Name() + ")"
	r.Parts["plugins"] = fmt.Sprintf("ok (%d mounted: %s)", len(h.plugins), strings.Join(h.PluginIDs(), ", "))
	if h.stores.Health == nil {
		r.Parts["redis"] = "not configured (memory, one replica)"
	} else if ok, detail := h.stores.Health(); ok {
		r.Parts["redis"] = "ok"
	} else {
		r.Parts["redis"] = "degraded: " + detail + " (serving from this replica's memory)"
	}
	for _, p := range h.parts {
		r.Parts[p.Name()] = p.Status()
	}
	if h.draining.Load() {
		r.Status = "draining"
		return http.StatusServiceUnavailable, r
	}
	return http.StatusOK, r
}

package host

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/ratelimit"
	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/host/tasks"
	"github.com/surfsense/pluginhost/host/usage"
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
	// Usage counts what each license used (usagecount.go); usage.Discard
	// counts nothing.
	Usage usage.Store
	// ResultCache keeps the answers of the result cache (RESULT_CACHE_TTL)
	// and ResultLeases share its runs between replicas; nil keeps answers in
	// this replica's memory (bounded) and shares runs on it alone.
	ResultCache  resultcache.Store
	ResultLeases resultcache.Leases
	// Tasks keeps MCP Tasks (tasks.go) where every replica reads them; nil
	// keeps them in this replica's memory (one replica).
	Tasks tasks.Store
	// Politeness keeps each site's limits (pages in flight, the pause
	// between them, holds after a 429 or a block) for the plugins; Redis's
	// keeps them for every replica together. Nil keeps them for this host
	// alone.
	Politeness scrapers.Politeness
	// Shared is a small cache the replicas share (web-crawl's robots.txt);
	// nil keeps such things in each plugin's memory.
	Shared scrapers.SharedCache
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
	// Now is the clock usage is counted and read by (its UTC day and
	// month); nil is time.Now. Tests move it past midnight.
	Now func() time.Time
	// TracerProvider receives the MCP requests' spans (tracing.go); nil
	// traces nothing. MeterProvider receives mcp.server.operation.duration;
	// nil records it on the Prometheus listener only. host/telemetry builds
	// both from the standard OTEL_* variables.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// CheckResult, when set, hears of every tool result the host sends that
	// is not a tool error: err is nil when the result conforms to the tool's
	// output schema (closed to fields it does not declare), else the
	// mismatch. hosttest reports mismatches to the test.
	CheckResult func(plugin, tool string, err error)
}

// Host is one replica of the plugin host.
type Host struct {
	cfg     Config
	log     *slog.Logger
	pages   *scrapers.PageBudget // every plugin's pages in flight (MAX_PAGES_IN_FLIGHT, PAGES_MEMORY)
	checker *license.Checker
	stores  Stores
	plugins []mounted
	parts   []Part
	metrics *metrics
	tel     *telemetry
	cache   *resultcache.Cache
	handler http.Handler
	now     func() time.Time
	usage   *usageSeries
	// taskMetrics: the MCP Tasks' series (tasks.go).
	taskMetrics *taskMetrics
	// checks: the strict output schemas by plugin, when Options.CheckResult
	// is set (resultcheck.go).
	checks      map[string]resultSchemas
	checkResult func(plugin, tool string, err error)

	draining atomic.Bool
	// sdkOnly turns the fast answers off (fastanswers.go): the SDK answers
	// every request. Tests compare the two.
	sdkOnly atomic.Bool
	// closeOnce: the plugins' Close hooks run once (drain.go).
	closeOnce sync.Once
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
	h := &Host{cfg: cfg, log: log, stores: opts.Stores, parts: opts.Parts, metrics: newMetrics(opts.Metrics), tel: newTelemetry(opts.TracerProvider, opts.MeterProvider), inFlight: map[*activeCall]struct{}{},
		checkResult: opts.CheckResult}
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
	if h.stores.Usage == nil {
		h.stores.Usage = &usage.Memory{}
	}
	if h.stores.Tasks == nil {
		h.stores.Tasks = &tasks.Memory{}
	}
	if h.stores.Politeness == nil {
		h.stores.Politeness = &scrapers.LocalPoliteness{}
	}
	h.now = opts.Now
	if h.now == nil {
		h.now = time.Now
	}
	h.usage = newUsageSeries(h.metrics.reg)
	h.taskMetrics = newTaskMetrics(h.metrics.reg)
	h.cache = newResultCache(cfg, h.stores, log)
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
	h.pages = scrapers.NewPageBudget(cfg.MaxPagesInFlight, cfg.PagesMemory)
	h.metrics.watchPages(h.pages)
	if err := h.mountPlugins(opts.Plugins); err != nil {
		return nil, err
	}
	h.startSeriesAtZero()
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

func (h *Host) mountPlugins(ctors []scrapers.Constructor) error {
	env := scrapers.Env{Getenv: h.cfg.Getenv, AllowPrivateNetworks: h.cfg.AllowPrivateNetworks, Logger: h.log, Upstream: h.upstream, Metrics: h.metrics.reg, PageTimeout: h.cfg.PageTimeout,
		Pages: h.pages, Politeness: h.stores.Politeness, Shared: h.stores.Shared, BlockHold: h.cfg.BlockHold}
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
		if h.checkResult != nil {
			if err := h.addChecks(p); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		h.plugins = append(h.plugins, mounted{plugin: p, handler: h.mcpHandler(p)})
	}
	for _, id := range h.cfg.UnlistedPlugins {
		if !seen[id] {
			errs = append(errs, fmt.Errorf("UNLISTED_PLUGINS names %q, which is not a plugin of this build", id))
		}
	}
	// The per-plugin variables are read for the plugins mounted, whatever
	// their ids: a new plugin needs nothing here.
	errs = append(errs, h.cfg.readPluginVars(h.PluginIDs()))
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

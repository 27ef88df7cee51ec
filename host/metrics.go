package host

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/surfsense/pluginhost/scrapers"
)

// metrics are the host's Prometheus series, on a registry of its own so that
// several hosts can live in one process (tests, bench).
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	verdicts *prometheus.CounterVec
	inFlight prometheus.Gauge
	refusals *prometheus.CounterVec
	upstream *upstreamMetrics // upstreammetrics.go
	mcp      *mcpMetrics      // tracing.go
	cache    *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := &metrics{reg: reg}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "pluginhost", Name: "tool_calls_total",
		Help: "Tool calls by plugin, tool and outcome (ok, partial, tool_error, bad_arguments, blocked, cancelled, deadline, shutdown, client_gone).",
	}, []string{"plugin", "tool", "outcome"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "pluginhost", Name: "tool_call_duration_seconds",
		Help:    "Tool call duration by plugin and tool.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 240},
	}, []string{"plugin", "tool"})
	m.verdicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "pluginhost", Name: "license_verdicts_total",
		Help: "License checks by reason (valid, missing_license, expired, revoked, invalid, license_service_unavailable).",
	}, []string{"reason"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "pluginhost", Name: "tool_calls_in_flight", Help: "Tool calls in flight on this replica.",
	})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "pluginhost", Name: "http_refusals_total", Help: "Requests refused before reaching a plugin, by reason.",
	}, []string{"reason"})
	m.cache = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "pluginhost", Name: "result_cache_calls_total",
		Help: "Tool calls by where their answer came from while the result cache is on: cache (a stored answer), shared (another identical call's run) or fresh (their own run).",
	}, []string{"plugin", "tool", "served"})
	// Redis's own series (redis_up, redis_fallbacks_total) come from
	// host/redisstore, registered in the same registry.
	m.reg.MustRegister(m.calls, m.duration, m.verdicts, m.inFlight, m.refusals, m.cache,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.upstream = newUpstreamMetrics(m.reg)
	m.mcp = newMCPMetrics(m.reg)
	return m
}

// watchPages publishes the page budget: pages and bytes held now, the
// limits, and how many pages waited for room.
func (m *metrics) watchPages(b *scrapers.PageBudget) {
	gauge := func(name, help string, v func(scrapers.PageBudgetStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "pluginhost", Name: name, Help: help},
			func() float64 { return v(b.Stats()) })
	}
	m.reg.MustRegister(
		gauge("pages_in_flight", "Upstream pages fetched or parsed now, all plugins (MAX_PAGES_IN_FLIGHT bounds it).",
			func(s scrapers.PageBudgetStats) float64 { return float64(s.Pages) }),
		gauge("pages_in_flight_limit", "MAX_PAGES_IN_FLIGHT.", func(s scrapers.PageBudgetStats) float64 { return float64(s.MaxPages) }),
		gauge("pages_memory_bytes", "Bytes the pages in flight hold while read and parsed (PAGES_MEMORY bounds it).",
			func(s scrapers.PageBudgetStats) float64 { return float64(s.Bytes) }),
		gauge("pages_memory_limit_bytes", "PAGES_MEMORY.", func(s scrapers.PageBudgetStats) float64 { return float64(s.MaxBytes) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "pluginhost", Name: "page_waits_total",
			Help: "Pages that waited for room under MAX_PAGES_IN_FLIGHT or PAGES_MEMORY, and growths of a page's body that waited."},
			func() float64 { return float64(b.Stats().Waits) }),
	)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

package host

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/license"
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

// The label values the host's counters take, known in advance, so that each
// series starts at 0 and a fresh replica's panels show zeros rather than "No
// data" (startSeriesAtZero).
var (
	// toolOutcomes are pluginhost_tool_calls_total's outcomes (outcome.go).
	toolOutcomes = []string{"ok", "partial", "empty", "tool_error", "bad_arguments", "blocked", "cancelled", "deadline", "shutdown", "client_gone"}
	// verdictReasons are pluginhost_license_verdicts_total's reasons.
	verdictReasons = []string{string(license.Valid), string(license.Expired), string(license.Revoked), string(license.Invalid), license.ReasonMissing, license.ReasonUnavailable}
	// refusalReasons are pluginhost_http_refusals_total's reasons: the body
	// gate's and the SDK's JSON-RPC refusals, the routes' and the license's.
	refusalReasons = []string{"parse_error", "invalid_request", "method_not_found", "invalid_params", "unsupported_media_type", "not_acceptable",
		"request_too_large", "internal_error", "method_not_allowed", "not_found", "bad_request", "rate_limited", "shutting_down", "usage_unavailable",
		license.ReasonMissing, license.ReasonUnavailable, string(license.Expired), string(license.Revoked), string(license.Invalid)}
	// servedFrom are pluginhost_result_cache_calls_total's served values.
	servedFrom = []string{servedCache, servedShared, servedFresh}
)

// startSeriesAtZero makes every series whose labels are known at start:
// calls by plugin, tool and outcome, their durations, usage, the cache's
// answers (when it is on), license verdicts, refusals, and each plugin's
// upstream attempts by outcome and block kind, retries, rotations and, for
// the proxies configured, attempts through each.
func (h *Host) startSeriesAtZero() {
	m := h.metrics
	for _, r := range verdictReasons {
		m.verdicts.WithLabelValues(r)
	}
	for _, r := range refusalReasons {
		m.refusals.WithLabelValues(r)
	}
	for _, mp := range h.plugins {
		p := mp.plugin
		tools := []string{GetResultTool}
		for _, t := range p.Tools {
			tools = append(tools, t.Name)
		}
		for _, tool := range tools {
			for _, o := range toolOutcomes {
				m.calls.WithLabelValues(p.ID, tool, o)
			}
			m.duration.WithLabelValues(p.ID, tool)
			h.usage.of(p.ID, tool)
			for _, why := range refusedNames {
				h.usage.refused.WithLabelValues(p.ID, tool, why)
			}
			if h.cfg.ResultCacheTTL > 0 && tool != GetResultTool {
				// get_result reads a stored result: it never asks the cache.
				for _, s := range servedFrom {
					m.cache.WithLabelValues(p.ID, tool, s)
				}
			}
		}
		// A call refused for its license is counted before its tool is read.
		h.usage.refused.WithLabelValues(p.ID, usage.UnknownTool, refusedNames[refusedLicense])
		u := m.upstream
		for o := range upstreamOutcomes {
			if o == scrapers.OutcomeBlocked {
				for _, k := range []string{blockLabelCaptcha, blockLabelConsent, blockLabelLogin, blockLabelRateLimited, blockLabelChallenge, blockLabelOther} {
					u.requests.WithLabelValues(p.ID, o, k)
				}
				continue
			}
			u.requests.WithLabelValues(p.ID, o, "")
		}
		u.duration.WithLabelValues(p.ID)
		u.retries.WithLabelValues(p.ID)
		u.holds.WithLabelValues(p.ID, "retry_after")
		u.holds.WithLabelValues(p.ID, "blocked")
		u.holdSecs.WithLabelValues(p.ID)
		n := h.proxiesOf(p.ID)
		if n > 0 {
			u.rotations.WithLabelValues(p.ID)
		}
		for i := range min(n, maxProxyLabel) {
			for o := range upstreamOutcomes {
				u.proxies.WithLabelValues(p.ID, proxyLabel(i), o)
			}
		}
	}
}

// proxiesOf is how many proxies plugin id's fetchers rotate through:
// <ID>_PROXY_URLS, else PROXY_URLS (as scrapers reads them).
func (h *Host) proxiesOf(id string) int {
	list := h.cfg.getenv(scrapers.EnvName(id, "PROXY_URLS"))
	if list == "" {
		list = h.cfg.getenv("PROXY_URLS")
	}
	n := 0
	for _, p := range strings.Split(list, ",") {
		if strings.TrimSpace(p) != "" {
			n++
		}
	}
	return n
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

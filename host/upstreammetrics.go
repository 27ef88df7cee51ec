package host

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/scrapers"
)

// upstreamMetrics are the per-site series of the upstream attempts plugins
// report through Env.Upstream: which site answers, which blocks and how, how
// slow it is, how often the host retries and rotates proxies.
//
// Every label value comes from a fixed set or from the code (a site is the
// id a plugin's fetcher was made for), never from a request: the series stay
// bounded whatever callers send.
type upstreamMetrics struct {
	requests  *prometheus.CounterVec   // site, outcome, block_kind
	duration  *prometheus.HistogramVec // site
	retries   *prometheus.CounterVec   // site
	rotations *prometheus.CounterVec   // site
	proxies   *prometheus.CounterVec   // site, proxy, outcome
	holds     *prometheus.CounterVec   // site, reason
	holdSecs  *prometheus.CounterVec   // site
}

// Block kinds as the series label them: the plugins' kinds (scrapers.Block*)
// mapped onto a fixed set; a kind the host does not know is "other".
const (
	blockLabelCaptcha     = "captcha"
	blockLabelConsent     = "consent"
	blockLabelLogin       = "login"
	blockLabelRateLimited = "rate_limited"
	blockLabelChallenge   = "challenge"
	blockLabelOther       = "other"
)

// blockLabel maps a plugin's block kind onto the fixed label set.
func blockLabel(kind string) string {
	switch kind {
	case scrapers.BlockCaptcha:
		return blockLabelCaptcha
	case scrapers.BlockConsentWall:
		return blockLabelConsent
	case scrapers.BlockLoginWall:
		return blockLabelLogin
	case scrapers.BlockRateLimited:
		return blockLabelRateLimited
	case scrapers.BlockRobotCheck:
		return blockLabelChallenge
	}
	return blockLabelOther
}

// upstreamOutcomes is the fixed set of outcome labels; an outcome outside it
// (a plugin's own) is counted as "other".
var upstreamOutcomes = map[string]bool{
	scrapers.OutcomeOK: true, scrapers.OutcomeBlocked: true, scrapers.OutcomeClientError: true,
	scrapers.OutcomeRateLimited: true, scrapers.OutcomeServerError: true, scrapers.OutcomeTimeout: true,
	scrapers.OutcomeNetwork: true, scrapers.OutcomeGuardRefused: true, scrapers.OutcomeTooLarge: true,
	scrapers.OutcomeCancelled: true, scrapers.OutcomeHeld: true,
}

func outcomeLabel(outcome string) string {
	if upstreamOutcomes[outcome] {
		return outcome
	}
	return "other"
}

// maxProxyLabel bounds the proxy label: proxies past it share "other".
const maxProxyLabel = 32

func proxyLabel(index int) string {
	if index >= maxProxyLabel {
		return "other"
	}
	return strconv.Itoa(index)
}

func newUpstreamMetrics(reg prometheus.Registerer) *upstreamMetrics {
	m := &upstreamMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_requests_total",
			Help: "Upstream attempts by site and outcome (ok, blocked, 4xx, rate_limited, 5xx, timeout, network_error, guard_refused, too_large, cancelled, held: not sent because the site is held off); " +
				"block_kind (captcha, consent, login, rate_limited, challenge, other) is set for blocked ones.",
		}, []string{"site", "outcome", "block_kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "pluginhost", Name: "upstream_request_duration_seconds",
			Help:    "Upstream attempt duration (body included) by site.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60},
		}, []string{"site"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_retries_total",
			Help: "Upstream attempts after the first of a request (a retry after an error status, a network error or a block page), by site.",
		}, []string{"site"}),
		rotations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_proxy_rotations_total",
			Help: "Retries sent through the proxy list, each through the next proxy in the rotation, by site.",
		}, []string{"site"}),
		proxies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_proxy_requests_total",
			Help: "Upstream attempts sent through a proxy, by site, proxy (its place in the list, from 0) and outcome.",
		}, []string{"site", "proxy", "outcome"}),
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_holds_total",
			Help: "Holds put on a site for every replica by its answer, by site and reason (retry_after: a 429 or 503 with Retry-After; blocked: a block page).",
		}, []string{"site", "reason"}),
		holdSecs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "upstream_hold_seconds_total",
			Help: "The length of the holds put on a site (seconds asked, cut at 10 minutes), by site.",
		}, []string{"site"}),
	}
	reg.MustRegister(m.requests, m.duration, m.retries, m.rotations, m.proxies, m.holds, m.holdSecs)
	return m
}

// observe counts one attempt.
func (m *upstreamMetrics) observe(u scrapers.Upstream) {
	site := u.Site
	if site == "" {
		site = "unknown"
	}
	outcome := outcomeLabel(u.Outcome)
	kind := ""
	if u.Outcome == scrapers.OutcomeBlocked {
		kind = blockLabel(u.BlockKind)
	}
	m.requests.WithLabelValues(site, outcome, kind).Inc()
	if u.Duration > 0 {
		m.duration.WithLabelValues(site).Observe(u.Duration.Seconds())
	}
	if u.Attempt > 1 {
		m.retries.WithLabelValues(site).Inc()
		if u.ProxyIndex >= 0 {
			m.rotations.WithLabelValues(site).Inc()
		}
	}
	if u.ProxyIndex >= 0 {
		m.proxies.WithLabelValues(site, proxyLabel(u.ProxyIndex), outcome).Inc()
	}
	if u.Held > 0 {
		reason := "retry_after"
		if u.Outcome == scrapers.OutcomeBlocked {
			reason = "blocked"
		}
		m.holds.WithLabelValues(site, reason).Inc()
		m.holdSecs.WithLabelValues(site).Add(u.Held.Seconds())
	}
}

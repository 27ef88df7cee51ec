package redisstore

import "github.com/prometheus/client_golang/prometheus"

// concerns are redis_fallbacks_total's label values: what each falls back
// for (Store.fallback).
var concerns = []string{"license", "calls", "ratelimit", "results", "result_cache", "oauth", "usage", "tasks", "politeness", "shared_cache"}

type metrics struct {
	reg       prometheus.Registerer
	up        prometheus.GaugeFunc
	fallbacks *prometheus.CounterVec
}

func newMetrics(r prometheus.Registerer, s *Store) (*metrics, error) {
	m := &metrics{
		reg: r,
		up: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "redis_up",
			Help: "1 when the shared Redis answers this replica, 0 while it works from its own memory.",
		}, func() float64 {
			if s.up.Load() {
				return 1
			}
			return 0
		}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "redis_fallbacks_total",
			Help: "Operations served from this replica's memory because Redis did not answer, by concern.",
		}, []string{"concern"}),
	}
	if err := r.Register(m.up); err != nil {
		return nil, err
	}
	if err := r.Register(m.fallbacks); err != nil {
		r.Unregister(m.up)
		return nil, err
	}
	// Every concern's series starts at 0: a fresh replica's panel shows
	// zeros, not "No data".
	for _, c := range concerns {
		m.fallbacks.WithLabelValues(c)
	}
	return m, nil
}

func (m *metrics) unregister() {
	m.reg.Unregister(m.up)
	m.reg.Unregister(m.fallbacks)
}

package host

import (
	"context"
	"sync/atomic"

	"github.com/surfsense/pluginhost/scrapers"
)

const ctxCallStats ctxKey = 300

// callStats is what one tool call made the host do upstream, counted as the
// plugin's fetchers report each attempt (scrapers.Env.Upstream): requests
// (retries and proxies included), body bytes, and attempts answered with a
// block page. The call's end reads it (usage, logs, traces).
type callStats struct {
	Requests atomic.Int64
	Bytes    atomic.Int64
	Blocked  atomic.Int64
	// Served says where the answer came from (set before the call's end is
	// observed; "" for a call refused before anything ran): servedFresh (its own run), servedShared (another identical
	// call's run, in flight with it) or servedCache (the result cache). Only a
	// fresh call has upstream requests of its own; the others saved them.
	Served string
}

// Where an answer came from (callStats.Served).
const (
	servedFresh  = "fresh"
	servedShared = "shared"
	servedCache  = "cache"
)

func withCallStats(ctx context.Context, s *callStats) context.Context {
	return context.WithValue(ctx, ctxCallStats, s)
}

func callStatsFrom(ctx context.Context) *callStats {
	s, _ := ctx.Value(ctxCallStats).(*callStats)
	return s
}

// upstream is the hook every mounted plugin's Env.Upstream calls, on the
// call's context, once per upstream attempt. It must stay cheap: it runs on
// the fetchers' goroutines.
func (h *Host) upstream(ctx context.Context, u scrapers.Upstream) {
	h.metrics.upstream.observe(u)
	h.traceUpstream(ctx, u)
	if s := callStatsFrom(ctx); s != nil {
		s.Requests.Add(1)
		s.Bytes.Add(u.Bytes)
		if u.Outcome == scrapers.OutcomeBlocked {
			s.Blocked.Add(1)
		}
	}
}

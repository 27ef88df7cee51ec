package hostbench

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// summary writes the figures issue 16 asks for, from this run, in one
// block: what a closing note quotes.
func (r Report) summary(opts Options, w io.Writer) {
	fmt.Fprintf(w, "\nsummary (this run, GOMAXPROCS=%d)\n", runtime.GOMAXPROCS(0))
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
	for _, l := range r.Lists {
		fmt.Fprintf(w, "  %-11s calls/s  host %6.0f  bare %6.0f", l.Method, l.Host.PerSecond, l.Bare.PerSecond)
		if l.TSSkipped == "" {
			fmt.Fprintf(w, "  ts %6.0f", l.TS.PerSecond)
		}
		fmt.Fprintf(w, "  floor %6.0f   host/bare %.2f×", l.Floor.PerSecond, l.Host.PerSecond/l.Bare.PerSecond)
		if l.TSSkipped == "" {
			fmt.Fprintf(w, "  host/ts %.2f×", l.Host.PerSecond/l.TS.PerSecond)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  %-11s p50/p99  host %s/%s  bare %s/%s", "", ms(l.Host.P50), ms(l.Host.P99), ms(l.Bare.P50), ms(l.Bare.P99))
		if l.TSSkipped == "" {
			fmt.Fprintf(w, "  ts %s/%s", ms(l.TS.P50), ms(l.TS.P99))
		} else {
			fmt.Fprintf(w, "  (TypeScript SDK %s)", l.TSSkipped)
		}
		fmt.Fprintf(w, "  floor %s/%s\n", ms(l.Floor.P50), ms(l.Floor.P99))
	}
	if r.HostCrawl.Calls > 0 {
		fmt.Fprintf(w, "  web-crawl.crawl host/bare p50 %.3f (target ≤ 1.10)\n", ratio(r.HostCrawl.P50, r.BareCrawl.P50))
	}
	if r.InFlight > 0 {
		target := ""
		if r.InFlight >= 1000 {
			target = " (target for 1,000 ≤ 120 MB)"
		}
		fmt.Fprintf(w, "  %d calls in flight: RSS of %s %.1f MB%s; per call above the baseline %.0f KB and %.1f goroutines\n", r.InFlight, r.InFlightWhere, float64(r.InFlightRSS)/(1<<20), target,
			float64(int64(r.InFlightRSS)-int64(r.BaselineRSS))/float64(r.InFlight)/1024, r.InFlightGoroutines)
	}
	if r.CacheHitAlone.Calls > 0 {
		fmt.Fprintf(w, "  cache hit p50/p99, one client: memory %s/%s", ms(r.CacheHitAlone.P50), ms(r.CacheHitAlone.P99))
		if r.CacheHitRedisAlone.Calls > 0 {
			fmt.Fprintf(w, "  redis %s/%s", ms(r.CacheHitRedisAlone.P50), ms(r.CacheHitRedisAlone.P99))
		}
		fmt.Fprintf(w, "; %d clients: memory %s/%s", opts.Clients, ms(r.CacheHit.P50), ms(r.CacheHit.P99))
		if r.CacheHitRedis.Calls > 0 {
			fmt.Fprintf(w, "  redis %s/%s", ms(r.CacheHitRedis.P50), ms(r.CacheHitRedis.P99))
		}
		fmt.Fprintln(w)
	}
	for _, c := range r.Throughput {
		goal := ""
		switch {
		case c.Before:
			goal = " (MAX_PAGES_IN_FLIGHT=8, the old cap)"
		case c.Latency == time.Second && c.InFlight == 64:
			goal = " (goal ≥ 80%)"
		case c.Latency == time.Second && c.InFlight == 256:
			goal = fmt.Sprintf(" (goal ≥ 60%%; RSS goal < 300 MB: %.0f MB)", float64(c.RSS)/(1<<20))
		}
		fmt.Fprintf(w, "  crawl throughput at %s pages, %d in flight: %.1f pages/s of a %.0f limit, %.0f%%%s; p50/p99 %s/%s\n", c.Latency, c.InFlight,
			c.Stats.PerSecond, c.Limit, 100*c.OfLimit(), goal, ms(c.Stats.P50), ms(c.Stats.P99))
	}
	if len(r.Footprint) > 0 {
		writeFootprint(w, r.Footprint)
	}
	if r.Replay.Calls > 0 {
		fmt.Fprintf(w, "  replay of %d calls (50%% repeats) over three replicas on one Redis: %d upstream requests saved (%d with the cache, %d without)\n",
			r.Replay.Calls, r.Replay.Saved(), r.Replay.Upstream, r.Replay.Uncached)
	}
}

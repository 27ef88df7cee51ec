package hostbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// UsageReport is the cost of counting usage (issue 15): web-crawl.crawl of
// one page through hosts that count and hosts that do not (usage.Discard),
// in memory and with Redis, measured in one run, alternating.
type UsageReport struct {
	MemoryOn, MemoryOff Stats
	RedisOn, RedisOff   Stats
}

// P50Cost is counting's cost on p50 as a fraction (0.01 is 1%), in memory
// and with Redis.
func (r UsageReport) P50Cost() (memory, redis float64) {
	return ratio(r.MemoryOn.P50, r.MemoryOff.P50) - 1, ratio(r.RedisOn.P50, r.RedisOff.P50) - 1
}

// UsageCost measures counting on against off. Redis is REDIS_URL, else a
// redis-server it starts. Rounds alternate the order of on and off so that
// the machine's drift falls on both.
func UsageCost(ctx context.Context, opts Options, w io.Writer) (UsageReport, error) {
	opts.defaults()
	var rep UsageReport
	site := newSite()
	defer site.Close()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		stop, u, err := startRedis()
		if err != nil {
			return rep, err
		}
		defer stop()
		url = u
	}
	quiet := slog.New(slog.DiscardHandler)
	prefix := "surfsense:ph:bench-usage:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	start := func(stores host.Stores) (string, error) {
		cfg := host.Defaults()
		cfg.License.Backend = "dev"
		cfg.AllowPrivateNetworks = true
		cfg.RateLimitPerMinute, cfg.MaxConcurrentCalls = 0, 0
		cfg.Getenv = func(string) string { return "" }
		h, err := host.New(cfg, host.Options{Logger: quiet, Plugins: []scrapers.Constructor{webcrawl.New}, Backend: license.Dev{}, Stores: stores})
		if err != nil {
			return "", err
		}
		srv := httptest.NewServer(h.Handler())
		context.AfterFunc(ctx, srv.Close)
		return srv.URL + "/web-crawl/mcp", nil
	}
	var rOnFlush func(context.Context) error
	redisStores := func(counting bool) (host.Stores, func(), error) {
		// A deadline of 1 s, not 250 ms: a loaded bench machine must not
		// turn a slow answer into a fault (which would measure the memory
		// fallback instead).
		st, err := redisstore.New(ctx, url, redisstore.Options{Prefix: prefix, Timeout: time.Second, Logger: quiet, Registerer: prometheus.NewRegistry()})
		if err != nil {
			return host.Stores{}, nil, err
		}
		if ok, detail := st.Check(); !ok {
			_ = st.Close()
			return host.Stores{}, nil, fmt.Errorf("redis at %s is not answering: %s", redactURL(url), detail)
		}
		s := host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Usage: usage.Discard{}, Health: st.Check}
		if counting {
			s.Usage = st.Usage()
			rOnFlush = st.FlushUsage
		}
		return s, func() { _ = st.Close() }, nil
	}
	rOn, closeOn, err := redisStores(true)
	if err != nil {
		return rep, err
	}
	defer closeOn()
	rOff, closeOff, err := redisStores(false)
	if err != nil {
		return rep, err
	}
	defer closeOff()
	type measure struct {
		name  string
		url   string
		lat   []time.Duration
		errs  int
		total time.Duration
		out   *Stats
	}
	ms := []*measure{
		{name: "memory, counting on", out: &rep.MemoryOn}, {name: "memory, counting off", out: &rep.MemoryOff},
		{name: "redis, counting on", out: &rep.RedisOn}, {name: "redis, counting off", out: &rep.RedisOff},
	}
	mem := &usage.Memory{}
	for i, stores := range []host.Stores{{Usage: mem}, {Usage: usage.Discard{}}, rOn, rOff} {
		if ms[i].url, err = start(stores); err != nil {
			return rep, err
		}
	}
	args := map[string]any{"start_urls": []string{site.URL + "/page"}}
	fmt.Fprintf(w, "\nusage counting: web-crawl.crawl of one page, counting on against off, %d rounds alternating, %d clients × %d calls each\n", opts.Rounds, opts.Clients, opts.Calls)
	for round := range opts.Rounds {
		order := []int{0, 1, 2, 3}
		if round%2 == 1 {
			order = []int{1, 0, 3, 2}
		}
		for _, i := range order {
			m := ms[i]
			lat, errs, elapsed, err := drive(ctx, m.url, "crawl", args, opts)
			if err != nil {
				return rep, err
			}
			m.lat, m.errs, m.total = append(m.lat, lat...), m.errs+errs, m.total+elapsed
		}
	}
	// Counting on counted: every call measured (and warmed up) is there.
	calls := int64(opts.Rounds * opts.Clients * (opts.Calls + opts.Warmup))
	if err := rOnFlush(ctx); err != nil {
		return rep, fmt.Errorf("writing the bench's usage to Redis: %w", err)
	}
	for name, st := range map[string]usage.Store{"memory": mem, "redis": rOn.Usage} {
		m, err := st.Month(ctx, license.Hash("bench-key"), usage.MonthOf(time.Now()))
		if err != nil {
			return rep, err
		}
		if got := m.Total().Calls; got != calls-int64(ms[0].errs+ms[2].errs) && got != calls {
			return rep, fmt.Errorf("usage %s counted %d calls of the %d made: counting on did not count", name, got, calls)
		}
	}
	for _, m := range ms {
		*m.out = summarise(m.lat, m.errs, m.total)
		fmt.Fprintf(w, "  %-21s %s\n", m.name, *m.out)
	}
	memCost, redCost := rep.P50Cost()
	fmt.Fprintf(w, "  cost of counting on p50: memory %+.2f%%, redis %+.2f%% (target ≤ 2%%)\n", 100*memCost, 100*redCost)
	return rep, nil
}

package hostbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// UsageReport is the cost of counting usage (issue 15): web-crawl.crawl of
// one page through hosts that count and hosts that do not (usage.Discard),
// in memory and with Redis, measured in one run, alternating.
type UsageReport struct {
	MemoryOn, MemoryOff Stats
	RedisOn, RedisOff   Stats
	// AddMemory and AddRedis are counting's own work per call, timed alone.
	AddMemory, AddRedis time.Duration
}

// P50Cost is counting's cost on p50 as a fraction (0.01 is 1%), in memory
// and with Redis.
func (r UsageReport) P50Cost() (memory, redis float64) {
	return ratio(r.MemoryOn.P50, r.MemoryOff.P50) - 1, ratio(r.RedisOn.P50, r.RedisOff.P50) - 1
}

// UsageCost measures counting on against off. Redis is REDIS_URL, else a
// redis-server it starts. Each client's calls go round the four hosts, so
// that the machine's drift falls on all of them alike.
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
		h, err := host.New(cfg, host.Options{Logger: quiet, Plugins: []scrapers.Constructor{benchCrawl}, Backend: license.Dev{}, Stores: stores})
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
	args := uniquePages(site.URL + "/page")
	fmt.Fprintf(w, "\nusage counting: web-crawl.crawl of one page, counting on against off, %d rounds, %d clients × %d calls on each host, every client's calls interleaved across the four hosts\n", opts.Rounds, opts.Clients, opts.Calls)
	urls := make([]string, len(ms))
	for i, m := range ms {
		urls[i] = m.url
	}
	for range opts.Rounds {
		lat, errs, elapsed, err := driveInterleaved(ctx, urls, "crawl", args, opts)
		if err != nil {
			return rep, err
		}
		for i, m := range ms {
			m.lat, m.errs, m.total = append(m.lat, lat[i]...), m.errs+errs[i], m.total+elapsed
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

	// The work counting adds to one call, timed alone: an event for the
	// store and three counters; against the crawl's p50 it is a share the
	// machine's noise cannot hide.
	rep.AddMemory, rep.AddRedis = perEvent(mem), perEvent(rOn.Usage)
	fmt.Fprintf(w, "  counting's own work per call: memory %s, redis buffer %s = %.4f%% and %.4f%% of the crawl's p50 without counting\n",
		rep.AddMemory, rep.AddRedis, 100*float64(rep.AddMemory)/float64(rep.MemoryOff.P50), 100*float64(rep.AddRedis)/float64(rep.RedisOff.P50))
	return rep, nil
}

// perEvent times what countCall does per call: one Add to st and three
// Prometheus counter adds (items, upstream requests, bytes).
func perEvent(st usage.Store) time.Duration {
	const n = 200000
	cs := [3]prometheus.Counter{}
	for i := range cs {
		cs[i] = prometheus.NewCounter(prometheus.CounterOpts{Name: "bench_" + strconv.Itoa(i)})
	}
	e := usage.Event{License: license.Hash("bench-usage-key"), Plan: "team", Plugin: "web-crawl", Tool: "crawl", Counts: usage.Counts{Calls: 1, Items: 1, UpstreamRequests: 1, UpstreamBytes: 5000}}
	start := time.Now()
	for range n {
		e.Time = time.Now()
		st.Add(e)
		for _, c := range cs {
			c.Add(1)
		}
	}
	return time.Since(start) / n
}

// driveInterleaved runs opts.Clients clients, each with a session on every
// endpoint, making opts.Calls calls on each after a warm-up; a client's
// calls go round the endpoints (each client starting at another), so that
// the machine's drift falls on every endpoint alike. It returns the
// latencies and errors per endpoint.
func driveInterleaved(ctx context.Context, endpoints []string, tool string, args func() map[string]any, opts Options) ([][]time.Duration, []int, time.Duration, error) {
	k := len(endpoints)
	sessions := make([][]*mcp.ClientSession, opts.Clients)
	for i := range sessions {
		for _, ep := range endpoints {
			cs, err := mcpdial.Connect(ctx, ep, "bench-key", nil, nil, nil)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("connecting to %s: %w", ep, err)
			}
			defer cs.Close()
			sessions[i] = append(sessions[i], cs)
		}
	}
	one := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args()})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}
	lat := make([][]time.Duration, k)
	errs := make([]int, k)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for ci, ss := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([][]time.Duration, k)
			localErr := make([]int, k)
			for j := range opts.Warmup + opts.Calls {
				for r := range k {
					e := (ci + j + r) % k
					t0 := time.Now()
					err := one(ss[e])
					if j < opts.Warmup {
						continue
					}
					if err != nil {
						localErr[e]++
						continue
					}
					local[e] = append(local[e], time.Since(t0))
				}
			}
			mu.Lock()
			for e := range k {
				lat[e] = append(lat[e], local[e]...)
				errs[e] += localErr[e]
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return lat, errs, time.Since(start), ctx.Err()
}

package hostbench

// The shared result cache measured: a cache hit's latency with the answers
// in memory and in Redis, alternating rounds in one run, and the upstream
// requests a replay of calls with repeats saves across three replicas on
// one Redis against the same replay with the cache off.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// ReplayReport is the replay of calls with repeats across three replicas.
type ReplayReport struct {
	Calls, Unique int
	// Upstream is the requests the site saw with the cache on; Uncached
	// the same replay with RESULT_CACHE_TTL=0.
	Upstream, Uncached int
	Cached             int // answers that said cached: true
	Failed             int // calls that failed (either replay)
	Faults             int // Redis commands that fell back to memory (cache on)
	Elapsed            time.Duration
}

// Saved is the upstream requests the cache saved.
func (r ReplayReport) Saved() int { return r.Uncached - r.Upstream }

// cachedAnswer checks that a call was answered from the result cache.
func cachedAnswer(res *mcp.CallToolResult) error {
	if t := resultText(res); !strings.Contains(t, `"cached":true`) {
		return fmt.Errorf("not answered from the cache: %.200s", t)
	}
	return nil
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// benchHostOn starts a host serving benchCrawl with stores, the result
// cache's ttl and the bench's settings (dev license, no limits, private
// networks allowed).
func benchHostOn(stores host.Stores, ttl time.Duration) (*httptest.Server, error) {
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	cfg.RateLimitPerMinute, cfg.MaxConcurrentCalls = 0, 0
	cfg.ResultCacheTTL = ttl
	cfg.Getenv = func(string) string { return "" }
	h, err := host.New(cfg, host.Options{Logger: slog.New(slog.DiscardHandler), Plugins: []scrapers.Constructor{benchCrawl}, Backend: license.Dev{}, Stores: stores})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(h.Handler()), nil
}

// redisStores opens a store on url under prefix with the bench's 1 s
// deadline (a loaded machine must not turn a slow answer into a fault,
// which would measure the memory fallback).
// It counts the store's fallbacks to memory in faults.
func redisStores(ctx context.Context, url, prefix string, faults *faultCount) (*redisstore.Store, host.Stores, error) {
	reg := prometheus.NewRegistry()
	faults.add(reg)
	st, err := redisstore.New(ctx, url, redisstore.Options{Prefix: prefix, Timeout: time.Second, Logger: slog.New(slog.DiscardHandler), Registerer: reg})
	if err != nil {
		return nil, host.Stores{}, err
	}
	if ok, detail := st.Check(); !ok {
		_ = st.Close()
		return nil, host.Stores{}, fmt.Errorf("redis at %s is not answering: %s", redactURL(url), detail)
	}
	return st, host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
		ResultCache: st.ResultCache(), ResultLeases: st.ResultCache()}, nil
}

// faultCount reads the fallbacks to memory (redis_fallbacks_total) of the
// stores' registries: a measure on Redis that fell back measured memory.
type faultCount struct{ regs []*prometheus.Registry }

func (f *faultCount) add(r *prometheus.Registry) { f.regs = append(f.regs, r) }

func (f *faultCount) total() int {
	n := 0.0
	for _, r := range f.regs {
		mfs, _ := r.Gather()
		for _, mf := range mfs {
			if !strings.HasSuffix(mf.GetName(), "redis_fallbacks_total") {
				continue
			}
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return int(n)
}

// redisURL is REDIS_URL, else a redis-server started for the run.
func redisURL() (string, func(), error) {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u, func() {}, nil
	}
	stop, u, err := startRedis()
	return u, stop, err
}

// CacheHits measures web-crawl.crawl of one page asked by every call of
// opts.Clients clients, answered from the result cache: on the in-process
// host (memURL, answers in memory) and, unless opts.CacheReplay < 0, on a
// host whose answers are in Redis, alternating rounds. Every measured
// answer must say cached: true.
func CacheHits(ctx context.Context, opts Options, memURL string, page string, fresh Stats, rep *Report, w io.Writer) error {
	opts.defaults()
	endpoints := []string{memURL}
	var faults faultCount
	if opts.CacheReplay >= 0 {
		url, stop, err := redisURL()
		if err != nil {
			return err
		}
		defer stop()
		st, stores, err := redisStores(ctx, url, "surfsense:ph:bench-cache:"+strconv.FormatInt(time.Now().UnixNano(), 36)+":", &faults)
		if err != nil {
			return err
		}
		defer st.Close()
		srv, err := benchHostOn(stores, 5*time.Minute)
		if err != nil {
			return err
		}
		defer srv.Close()
		endpoints = append(endpoints, srv.URL+"/web-crawl/mcp")
	}
	args := map[string]any{"start_urls": []string{page}}
	same := func() map[string]any { return args }
	// Under load (opts.Clients at once), then one client alone: the first
	// is what a busy replica answers, the second a hit's own latency.
	alone := opts
	alone.Clients, alone.Calls = 1, 5*opts.Calls
	measure := func(o Options) ([]Stats, error) {
		lat := make([][]time.Duration, len(endpoints))
		errs := make([]int, len(endpoints))
		elapsed := make([]time.Duration, len(endpoints))
		for round := range o.Rounds {
			for k := range endpoints {
				e := (k + round) % len(endpoints)
				l, n, d, err := drive(ctx, endpoints[e], "crawl", same, cachedAnswer, o)
				if err != nil {
					return nil, err
				}
				lat[e], errs[e], elapsed[e] = append(lat[e], l...), errs[e]+n, elapsed[e]+d
			}
		}
		out := make([]Stats, len(endpoints))
		for e := range endpoints {
			out[e] = summarise(lat[e], errs[e], elapsed[e])
		}
		return out, nil
	}
	loaded, err := measure(opts)
	if err != nil {
		return err
	}
	single, err := measure(alone)
	if err != nil {
		return err
	}
	rep.CacheHit, rep.CacheHitAlone = loaded[0], single[0]
	fmt.Fprintf(w, "\nweb-crawl.crawl answered from the result cache, the same page asked by every call (every answer cached: true), %d rounds alternating memory and Redis\n", opts.Rounds)
	fmt.Fprintf(w, "  %d clients at once:\n", opts.Clients)
	fmt.Fprintf(w, "    memory  %s  hit/fresh p50 %.3f\n", rep.CacheHit, ratio(rep.CacheHit.P50, fresh.P50))
	if len(endpoints) > 1 {
		rep.CacheHitRedis, rep.CacheHitRedisAlone = loaded[1], single[1]
		fmt.Fprintf(w, "    redis   %s  hit/fresh p50 %.3f\n", rep.CacheHitRedis, ratio(rep.CacheHitRedis.P50, fresh.P50))
	}
	fmt.Fprintf(w, "  one client alone:\n    memory  %s\n", rep.CacheHitAlone)
	if len(endpoints) > 1 {
		rep.CacheHitRedisFaults = faults.total()
		fmt.Fprintf(w, "    redis   %s\n  redis/memory p50 %.3f alone, %.3f under load; %d Redis faults answered from memory\n", rep.CacheHitRedisAlone,
			ratio(rep.CacheHitRedisAlone.P50, rep.CacheHitAlone.P50), ratio(rep.CacheHitRedis.P50, rep.CacheHit.P50), rep.CacheHitRedisFaults)
	} else {
		fmt.Fprintf(w, "  redis skipped (-cache-replay -1)\n")
	}
	return nil
}

// replaySite is a stand-in site for the replay: /q/<n> answers a page of its
// own after 20 ms (a site takes a while, so repeats overlap), and it counts
// every request it is sent.
type replaySite struct {
	*httptest.Server
	requests atomic.Int64
}

func newReplaySite() *replaySite {
	s := &replaySite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if !strings.HasPrefix(r.URL.Path, "/q/") {
			http.NotFound(w, r)
			return
		}
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>%s</title></head><body><article><h1>%s</h1><p>Page %s has a paragraph of text long enough to count as the page's content.</p></article></body></html>`, r.URL.Path, r.URL.Path, r.URL.Path)
	}))
	return s
}

// Replay replays calls crawl calls, each of calls/2 pages asked twice in a
// shuffled order, by 8 clients spread round robin over three replicas
// sharing one Redis, first with the result cache on and then off, and
// counts the site's requests in each.
func Replay(ctx context.Context, calls int, w io.Writer) (ReplayReport, error) {
	rep := ReplayReport{Calls: calls - calls%2, Unique: calls / 2}
	url, stop, err := redisURL()
	if err != nil {
		return rep, err
	}
	defer stop()
	order := make([]int, 0, rep.Calls)
	for i := range rep.Unique {
		order = append(order, i, i)
	}
	rand.New(rand.NewSource(16)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	run := func(ttl time.Duration) (upstream, cached, failed, faulted int, elapsed time.Duration, err error) {
		var faults faultCount // read before the stores close (Close unregisters their series)
		site := newReplaySite()
		defer site.Close()
		prefix := "surfsense:ph:bench-replay:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		var urls []string
		for range 3 {
			st, stores, err := redisStores(ctx, url, prefix, &faults)
			if err != nil {
				return 0, 0, 0, 0, 0, err
			}
			defer st.Close()
			srv, err := benchHostOn(stores, ttl)
			if err != nil {
				return 0, 0, 0, 0, 0, err
			}
			defer srv.Close()
			urls = append(urls, srv.URL+"/web-crawl/mcp")
		}
		const clients = 8
		sessions := make([][]*mcp.ClientSession, clients)
		for c := range sessions {
			for _, u := range urls {
				cs, err := mcpdial.Connect(ctx, u, "bench-replay-"+strconv.Itoa(c), nil, nil, nil)
				if err != nil {
					return 0, 0, 0, 0, 0, err
				}
				defer cs.Close()
				sessions[c] = append(sessions[c], cs)
			}
		}
		var next, nCached, nFailed atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= len(order) || ctx.Err() != nil {
						return
					}
					res, err := sessions[c][i%3].CallTool(ctx, &mcp.CallToolParams{Name: "crawl",
						Arguments: map[string]any{"start_urls": []string{fmt.Sprintf("%s/q/%d", site.URL, order[i])}}})
					if err != nil || res.IsError {
						nFailed.Add(1)
						continue
					}
					if strings.Contains(resultText(res), `"cached":true`) {
						nCached.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		return int(site.requests.Load()), int(nCached.Load()), int(nFailed.Load()), faults.total(), time.Since(start), ctx.Err()
	}
	up, cached, failed, faulted, elapsed, err := run(5 * time.Minute)
	if err != nil {
		return rep, err
	}
	rep.Upstream, rep.Cached, rep.Failed, rep.Elapsed, rep.Faults = up, cached, failed, elapsed, faulted
	off, _, failedOff, _, _, err := run(0)
	if err != nil {
		return rep, err
	}
	rep.Uncached, rep.Failed = off, rep.Failed+failedOff
	fmt.Fprintf(w, "\nreplay of %d web-crawl.crawl calls (%d pages each asked twice, shuffled) by 8 clients over three replicas on one Redis\n", rep.Calls, rep.Unique)
	fmt.Fprintf(w, "  cache on:  %d upstream requests, %d answers cached: true, %d failed, %d Redis faults, %s\n", rep.Upstream, rep.Cached, failed, rep.Faults, rep.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  cache off: %d upstream requests, %d failed\n", rep.Uncached, failedOff)
	fmt.Fprintf(w, "  upstream requests saved: %d of %d (%.0f%%)\n", rep.Saved(), rep.Uncached, 100*float64(rep.Saved())/float64(max(rep.Uncached, 1)))
	return rep, nil
}

// RedisURL is REDIS_URL, else a redis-server started for the run; stop ends it.
func RedisURL() (url string, stop func(), err error) { return redisURL() }

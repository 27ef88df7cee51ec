package hostbench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redisproc"
)

// TestRunSmall runs the whole bench at a small size: every measure completes
// without errors and reports numbers (the figures themselves are for
// `pluginhost bench`, not for a test).
func TestRunSmall(t *testing.T) {
	var out bytes.Buffer
	opts := Options{Clients: 4, Calls: 3, Warmup: 1, Rounds: 1, InFlight: 20, Replicas: 5, Timeout: 2 * time.Minute, SkipUsage: true, Connections: 3, LoadRequests: 5, CacheReplay: 10,
		Throughput: Throughput{Sites: 4, Latencies: []time.Duration{50 * time.Millisecond}, InFlight: []int{4}, Window: time.Second}}
	if redisproc.Binary() == "" {
		t.Log("redis-server not installed: the replica measure is skipped")
		opts.Replicas, opts.CacheReplay = -1, -1
	}
	rep, err := Run(context.Background(), opts, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for name, s := range map[string]Stats{"host list": rep.HostList, "bare list": rep.BareList, "host crawl": rep.HostCrawl, "bare crawl": rep.BareCrawl} {
		if s.Calls != 12 || s.Errors != 0 || s.P50 <= 0 || s.P99 < s.P50 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	t.Log(out.String())
	if len(rep.Lists) != 2 {
		t.Fatalf("%d methods under the raw load, want tools/list and initialize", len(rep.Lists))
	}
	for _, l := range rep.Lists {
		servers := map[string]Served{"host": l.Host, "bare": l.Bare, "floor": l.Floor}
		if l.TSSkipped == "" {
			servers["ts"] = l.TS
		} else {
			t.Logf("the TypeScript SDK server was not measured: %s", l.TSSkipped)
		}
		for name, s := range servers {
			if s.Calls != 15 || s.Errors != 0 || s.P50 <= 0 || s.P99 < s.P50 || s.BodyBytes == 0 {
				t.Errorf("%s on %s: %+v", l.Method, name, s)
			}
		}
		// The same tools are listed everywhere: the answers are about the
		// same size (the SDKs' serverInfo differs by a few bytes).
		if d := l.Host.BodyBytes - l.Bare.BodyBytes; d < -64 || d > 64 {
			t.Errorf("%s: the host answered %d bytes, the bare server %d", l.Method, l.Host.BodyBytes, l.Bare.BodyBytes)
		}
	}
	if rep.CachedCheck <= 0 || rep.InFlight != 20 || rep.InFlightRSS == 0 || rep.InFlightGoroutines <= 0 {
		t.Errorf("report: %+v", rep)
	}
	if rep.CacheHit.Calls != 12 || rep.CacheHit.Errors != 0 || rep.CacheHitAlone.Calls != 15 || rep.CacheHitAlone.Errors != 0 {
		t.Errorf("cache hits in memory (every answer cached: true): %+v", rep.CacheHit)
	}
	if opts.CacheReplay > 0 {
		if rep.CacheHitRedis.Calls != 12 || rep.CacheHitRedis.Errors != 0 || rep.CacheHitRedisAlone.Calls != 15 || rep.CacheHitRedisFaults != 0 {
			t.Errorf("cache hits in Redis (every answer cached: true): %+v", rep.CacheHitRedis)
		}
		// 5 pages each asked twice: with the cache each is fetched once.
		// (At least 5: a site request beside the page's, robots.txt say,
		// may be saved too.)
		if r := rep.Replay; r.Failed != 0 || r.Uncached < 10 || r.Saved() < 5 || r.Cached == 0 {
			t.Errorf("replay: %+v (saved %d)", r, r.Saved())
		}
	}
	if opts.Replicas > 0 && (rep.Replicas.CancelP50 <= 0 || rep.Replicas.CheckP50 <= 0) {
		t.Errorf("replicas: %+v", rep.Replicas)
	}
	for _, want := range []string{"host/bare p50", "host/floor", "floor (net/http, same bytes)", "summary (this run", "upstream requests saved", "cached license check", "in flight"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestUsageCostSmall runs the usage measure at a small size: four hosts
// (counting on and off, memory and Redis) answer every call, and the hosts
// counting counted every one (UsageCost checks it).
func TestUsageCostSmall(t *testing.T) {
	if redisproc.Binary() == "" && os.Getenv("REDIS_URL") == "" {
		t.Skip("no redis-server installed and no REDIS_URL: the usage measure needs Redis")
	}
	var out bytes.Buffer
	rep, err := UsageCost(context.Background(), Options{Clients: 3, Calls: 2, Warmup: 1, Rounds: 2, Timeout: 2 * time.Minute}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for name, s := range map[string]Stats{"memory on": rep.MemoryOn, "memory off": rep.MemoryOff, "redis on": rep.RedisOn, "redis off": rep.RedisOff} {
		if s.Calls != 12 || s.Errors != 0 || s.P50 <= 0 {
			t.Errorf("usage %s: %+v", name, s)
		}
	}
	if !strings.Contains(out.String(), "cost of counting on p50") {
		t.Errorf("report lacks the cost:\n%s", out.String())
	}
}

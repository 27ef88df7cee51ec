package host_test

// The fleet's politeness (issue 29): three hosts on one Redis, each with
// web-crawl, crawling stand-in sites that count what they see. A site sees
// at most its limit from the three together, robots.txt is read once for
// the fleet and obeyed, Crawl-delay spaces the fleet's pages, a 429's
// Retry-After holds every replica off, and a Redis that dies costs no call.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// politeSite is a stand-in site that counts pages in flight, the starts of
// its pages, and every path asked.
type politeSite struct {
	*httptest.Server
	robots  string        // robots.txt's body; "" answers 404
	latency time.Duration // each page's
	answer  func(w http.ResponseWriter, r *http.Request) bool

	mu     sync.Mutex
	starts []time.Time
	paths  map[string]int
	cur    int
	peak   int
}

func newPoliteSite(t *testing.T, robots string, latency time.Duration) *politeSite {
	s := &politeSite{robots: robots, latency: latency, paths: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			if s.robots == "" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, s.robots)
			return
		}
		s.mu.Lock()
		s.starts = append(s.starts, time.Now())
		s.cur++
		s.peak = max(s.peak, s.cur)
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.cur--; s.mu.Unlock() }()
		if s.answer != nil && s.answer(w, r) {
			return
		}
		time.Sleep(s.latency)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p></article></body></html>`,
			r.URL.Path, r.URL.Path, strings.Repeat("A paragraph of the page's own text. ", 20))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *politeSite) seen(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[path]
}

type fleetReplica struct {
	*hosttest.Host
	store   *redisstore.Store
	session *mcp.ClientSession
}

// startFleet starts n hosts with web-crawl on the Redis at url, sharing
// politeness and robots.txt through it.
func startFleet(t *testing.T, url string, n int) []*fleetReplica {
	t.Helper()
	prefix := "surfsense:ph:fleet-test:" + time.Now().Format("150405.000000000") + ":"
	var out []*fleetReplica
	for range n {
		st, err := redisstore.New(context.Background(), url, redisstore.Options{
			// Generous on a loaded machine: a slow answer must not look like a
			// fault here, which would measure the per-replica fallback.
			Prefix: prefix, Timeout: 2 * time.Second, ProbeInterval: 100 * time.Millisecond, Logger: repQuiet,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		h := hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{webcrawl.New},
			Config:  func(c *host.Config) { c.ResultCacheTTL = 0; c.MaxConcurrentCalls = 100; c.RateLimitPerMinute = 1000 },
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
				Politeness: st.Politeness(), Shared: st.SharedCache()},
		})
		out = append(out, &fleetReplica{Host: h, store: st, session: h.Connect(t, "web-crawl", "fleet-key", nil)})
	}
	return out
}

// crawlOne crawls one page through r and returns its item (or failure).
func (r *fleetReplica) crawlOne(t *testing.T, u string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{u}, "max_crawl_pages": 1}})
	if err != nil {
		t.Errorf("crawl %s: %v", u, err)
		return nil
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var env struct {
		Items []map[string]any `json:"items"`
	}
	_ = json.Unmarshal(raw, &env)
	if len(env.Items) != 1 {
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return map[string]any{"error": text}
	}
	return env.Items[0]
}

func TestFleetKeepsEachSitesLimitsTogether(t *testing.T) {
	if redistest.Binary() == "" {
		t.Skip("redis-server not installed: the fleet's politeness is tested against a real Redis")
	}
	srv := redistest.StartProcess(t)
	fleet := startFleet(t, srv.URL, 3)

	site := newPoliteSite(t, "User-agent: *\nDisallow: /private/\n", 150*time.Millisecond)
	var wg sync.WaitGroup
	items := make([]map[string]any, 24)
	for i := range 24 {
		wg.Go(func() { items[i] = fleet[i%3].crawlOne(t, fmt.Sprintf("%s/p%d", site.URL, i)) })
	}
	private := make([]map[string]any, 3)
	for i := range 3 {
		wg.Go(func() { private[i] = fleet[i].crawlOne(t, site.URL+"/private/report") })
	}
	wg.Wait()
	for i, it := range items {
		if it["markdown"] == nil {
			t.Fatalf("page %d: %v", i, it)
		}
	}
	if site.peak > 2 {
		t.Fatalf("three replicas put %d pages in flight on one site; its limit is 2", site.peak)
	}
	if n := site.seen("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt fetched %d times by the fleet, want once", n)
	}
	if n := site.seen("/private/report"); n != 0 {
		t.Fatalf("a path robots.txt disallows was fetched %d times", n)
	}
	host := strings.TrimPrefix(site.URL, "http://")
	for _, it := range private {
		if msg := fmt.Sprint(it["error"]); !strings.Contains(msg, "robots.txt of "+host+" disallows /private/report") {
			t.Fatalf("refused page answered %v, want it to name robots.txt's rule", it)
		}
	}

	// Crawl-delay: 1 spaces the fleet's pages a second apart.
	slow := newPoliteSite(t, "User-agent: SurfSense\nAllow: /\nCrawl-delay: 1\n\nUser-agent: *\nDisallow: /\n", 0)
	for i := range 3 {
		wg.Go(func() { fleet[i].crawlOne(t, fmt.Sprintf("%s/d%d", slow.URL, i)) })
	}
	wg.Wait()
	if len(slow.starts) != 3 {
		t.Fatalf("%d pages of the Crawl-delay site fetched, want 3 (its group for SurfSense allows them)", len(slow.starts))
	}
	for i := 1; i < 3; i++ {
		if gap := slow.starts[i].Sub(slow.starts[i-1]); gap < 900*time.Millisecond {
			t.Fatalf("pages %v apart across replicas; Crawl-delay is 1 s", gap)
		}
	}

	// A 429 with Retry-After: 3 on one replica holds the others off.
	var asked atomic.Int32
	held := newPoliteSite(t, "", 0)
	held.answer = func(w http.ResponseWriter, r *http.Request) bool {
		if asked.Add(1) == 1 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		}
		return false
	}
	first := fleet[0].crawlOne(t, held.URL+"/a")
	if !strings.Contains(fmt.Sprint(first["error"]), "429") {
		t.Fatalf("the 429 answered %v", first)
	}
	for _, r := range fleet[1:] {
		start := time.Now()
		it := r.crawlOne(t, held.URL+"/b")
		if msg := fmt.Sprint(it["error"]); !strings.Contains(msg, "held off") || !strings.Contains(msg, "HTTP 429 with Retry-After") {
			t.Fatalf("another replica answered %v, want the hold and its reason", it)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatalf("a held call hung for %v", time.Since(start))
		}
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the held site was asked %d times, want once", n)
	}

	// Redis dies: politeness is per replica, and the calls go on.
	srv.Kill(t)
	calm := newPoliteSite(t, "", 0)
	for _, r := range fleet {
		if it := r.crawlOne(t, calm.URL+"/x"); it["markdown"] == nil {
			t.Fatalf("with Redis down a crawl failed: %v", it)
		}
	}
	if ready := readyz(t, fleet[0].URL); !strings.Contains(ready, "politeness is per replica") {
		t.Fatalf("/readyz during the fault says %s", ready)
	}
}

func readyz(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

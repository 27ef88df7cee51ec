package host_test

// The shared result cache end to end (CONTRACTS.md, "Tool results": Cache):
// a question asked twice is fetched once, whatever the license; partial and
// blocked answers are never kept; concurrent identical calls share one run,
// which a cancel stops only when nobody else waits; across three replicas on
// one Redis, a replay of 200 calls with 50% repeats fetches each page once.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
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

// cachedPage is the envelope's cache fields beside the page.
type cachedPage struct {
	host.Page
	Items []json.RawMessage `json:"items"`
}

func envelope(t *testing.T, res *mcp.CallToolResult) cachedPage {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	var p cachedPage
	if err := json.Unmarshal([]byte(text(res)), &p); err != nil {
		t.Fatalf("not an envelope: %v: %s", err, text(res))
	}
	return p
}

func TestResultCacheAnswersAQuestionAskedTwiceOnce(t *testing.T) {
	site, hits := crawlSite(t)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	args := map[string]any{"start_urls": []string{site.URL + "/a"}}

	first := envelope(t, mustCall(t, h.Connect(t, "web-crawl", "alice", nil), "crawl", args))
	fetched := hits.Load()
	if first.Cached || first.FetchedAt != nil || fetched == 0 {
		t.Fatalf("the first answer: cached %v fetched_at %v, %d requests", first.Cached, first.FetchedAt, fetched)
	}
	// Another license, text only: the same answer from the cache.
	bob := h.Connect(t, "web-crawl", "bob", http.Header{"X-Surfsense-Text-Only": {"1"}})
	res := mustCall(t, bob, "crawl", args)
	second := envelope(t, res)
	if !second.Cached || second.FetchedAt == nil || time.Since(*second.FetchedAt) > time.Minute || res.StructuredContent != nil {
		t.Fatalf("the second answer: cached %v fetched_at %v structured %v", second.Cached, second.FetchedAt, res.StructuredContent != nil)
	}
	if string(second.Items[0]) != string(first.Items[0]) || hits.Load() != fetched {
		t.Fatalf("the cached answer differs or went upstream (%d → %d requests)", fetched, hits.Load())
	}
	// The same question spelled otherwise is the same question.
	if p := envelope(t, mustCall(t, bob, "crawl", map[string]any{"start_urls": []string{site.URL + "/a"}, "max_age_seconds": 60})); !p.Cached {
		t.Fatal("max_age_seconds 60 missed a fresh answer")
	}
	// So is one spelling out web-crawl's published defaults.
	spelled := map[string]any{"start_urls": []string{site.URL + "/a"}, "max_crawl_depth": 0, "max_crawl_pages": webcrawl.DefaultMaxPages, "max_length": webcrawl.DefaultMaxLength}
	if p := envelope(t, mustCall(t, bob, "crawl", spelled)); !p.Cached || hits.Load() != fetched {
		t.Fatal("the defaults spelled out missed the answer to the call that left them out")
	}
	// max_age_seconds 0 fetches afresh, and the fresh answer is kept.
	if p := envelope(t, mustCall(t, bob, "crawl", map[string]any{"start_urls": []string{site.URL + "/a"}, "max_age_seconds": 0})); p.Cached || hits.Load() == fetched {
		t.Fatalf("max_age_seconds 0: cached %v, requests %d → %d", p.Cached, fetched, hits.Load())
	}
	if p := envelope(t, mustCall(t, bob, "crawl", args)); !p.Cached || !p.FetchedAt.After(*second.FetchedAt) {
		t.Fatalf("after a forced fetch the newer answer is not the one kept: %v", p.FetchedAt)
	}
	for _, bad := range []any{-1, "60", 1.5, 86401} {
		res := mustCall(t, bob, "crawl", map[string]any{"start_urls": []string{site.URL + "/a"}, "max_age_seconds": bad})
		if !res.IsError || !strings.Contains(text(res), "max_age_seconds") {
			t.Errorf("max_age_seconds %v: %v %s", bad, res.IsError, text(res))
		}
	}
	// A bad argument is still the tool's own error, named.
	if res := mustCall(t, bob, "crawl", map[string]any{"start_urls": []string{}}); !res.IsError || !strings.Contains(text(res), "start_urls") {
		t.Fatalf("bad arguments with the cache on: %s", text(res))
	}

	// Published in every tool's input schema but get_result's.
	lt, err := bob.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		if has := strings.Contains(string(b), `"max_age_seconds"`); has != (tool.Name != host.GetResultTool) {
			t.Errorf("%s's input schema and max_age_seconds: %s", tool.Name, b)
		}
	}
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, mustReq(http.MethodGet, "/metrics"))
	for _, want := range []string{
		`pluginhost_result_cache_calls_total{plugin="web-crawl",served="cache",tool="crawl"} 4`,
		// the first, the forced one, and the empty start_urls (which
		// web-crawl refuses as it runs, not as it decodes)
		`pluginhost_result_cache_calls_total{plugin="web-crawl",served="fresh",tool="crawl"} 3`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s in\n%s", want, grepLines(rec.Body.String(), "result_cache"))
		}
	}
}

func TestResultCacheOffFetchesEveryTime(t *testing.T) {
	site, hits := crawlSite(t)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: noResultCache})
	cs := h.Connect(t, "web-crawl", "k", nil)
	args := map[string]any{"start_urls": []string{site.URL + "/a"}, "max_age_seconds": 300}
	envelope(t, mustCall(t, cs, "crawl", args))
	n := hits.Load()
	if p := envelope(t, mustCall(t, cs, "crawl", args)); p.Cached || hits.Load() == n {
		t.Fatalf("RESULT_CACHE_TTL=0 answered from a cache (cached %v, requests %d → %d)", p.Cached, n, hits.Load())
	}
}

func TestResultCacheNeverKeepsPartialBlockedOrEmpty(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	cs := h.Connect(t, "slow", "k", nil)
	for _, args := range []map[string]any{
		{"items": 2, "fail": "captcha"}, // partial after a block
		{"items": 0, "fail": "captcha"}, // blocked
		{"items": 0},                    // empty
	} {
		for i := 0; i < 2; i++ {
			res := mustCall(t, cs, "work", args)
			if strings.Contains(text(res), `"cached":true`) {
				t.Fatalf("%v answered from the cache: %s", args, text(res))
			}
			select {
			case <-sp.started:
			case <-time.After(5 * time.Second):
				t.Fatalf("%v: call %d did not run", args, i+1)
			}
		}
	}
}

func TestResultCacheSharedRunStopsOnlyWhenNobodyWaits(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	args := map[string]any{"items": 1, "wait": true}
	call := func(key, thread string) <-chan *mcp.CallToolResult {
		cs := h.Connect(t, "slow", key, http.Header{"X-Surfsense-Thread": {thread}})
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: args})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			out <- res
		}()
		return out
	}
	alice := call("alice", "t-a")
	<-sp.started
	bob := call("bob", "t-b")
	waitUntil(t, "both calls in flight", func() bool { return h.InFlight() == 2 })
	select {
	case <-sp.started:
		t.Fatal("an identical call started a second run")
	case <-time.After(100 * time.Millisecond):
	}
	// Alice cancels: her call ends, the run goes on for Bob.
	if _, body := post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License alice"}}, `{"thread_id":"t-a"}`); body["cancelled"] != 1.0 {
		t.Fatalf("alice's cancel: %v", body)
	}
	if res := <-alice; !res.IsError || !strings.Contains(text(res), "cancelled") {
		t.Fatalf("alice's cancelled call: %s", text(res))
	}
	before := sp.upstream.Load()
	time.Sleep(150 * time.Millisecond)
	if sp.ended.Load() != 0 || sp.upstream.Load() == before {
		t.Fatalf("the shared run stopped when one of its two callers cancelled (ended %d)", sp.ended.Load())
	}
	close(sp.release)
	p := envelope(t, <-bob)
	if len(p.Items) != 1 || p.Cached {
		t.Fatalf("bob's answer of the shared run: %+v", p)
	}

	// Both cancel: the run stops and sends nothing more.
	sp2 := newSlow()
	h2 := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp2.ctor}})
	h = h2
	sp = sp2
	carol, dave := call("carol", "t-c"), call("dave", "t-d")
	<-sp.started
	waitUntil(t, "both calls in flight", func() bool { return h.InFlight() == 2 })
	post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License carol"}}, `{"thread_id":"t-c"}`)
	post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License dave"}}, `{"thread_id":"t-d"}`)
	for _, ch := range []<-chan *mcp.CallToolResult{carol, dave} {
		if res := <-ch; !res.IsError || !strings.Contains(text(res), "cancelled") {
			t.Fatalf("a cancelled call: %s", text(res))
		}
	}
	if sp.ended.Load() != 1 {
		t.Fatalf("the run did not stop once both callers cancelled (ended %d)", sp.ended.Load())
	}
	n := sp.upstream.Load()
	time.Sleep(100 * time.Millisecond)
	if sp.upstream.Load() != n {
		t.Fatal("the stopped run kept sending requests")
	}
}

func TestResultCacheLargeAnswerPagedPerLicense(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: func(c *host.Config) { c.ResultMaxBytes = 4096 }})
	args := map[string]any{"items": 50, "size": 500}
	alice, bob := h.Connect(t, "slow", "alice", nil), h.Connect(t, "slow", "bob", nil)
	pa := envelope(t, mustCall(t, alice, "work", args))
	pb := envelope(t, mustCall(t, bob, "work", args))
	if !pb.Cached || pb.ResultID == "" || pb.ResultID == pa.ResultID || pb.TotalItems != 50 {
		t.Fatalf("bob's cached large answer: cached %v id %q (alice's %q) total %d", pb.Cached, pb.ResultID, pa.ResultID, pb.TotalItems)
	}
	if res := mustCall(t, bob, "get_result", map[string]any{"result_id": pa.ResultID}); !res.IsError {
		t.Fatal("bob read alice's result_id")
	}
	if p := envelope(t, mustCall(t, bob, "get_result", map[string]any{"result_id": pb.ResultID, "offset": *pb.NextOffset})); len(p.Items) == 0 {
		t.Fatal("bob could not page through his own cached answer")
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestResultCacheReplayAcrossReplicas replays 200 crawl calls, each of 100
// pages asked twice, by 8 clients at once spread over three replicas on one
// Redis: every page is fetched once (concurrent repeats share a run through
// the lease, later ones are answered from Redis).
func TestResultCacheReplayAcrossReplicas(t *testing.T) {
	url := redistest.URL(t)
	var mu sync.Mutex
	perPath := map[string]int{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/q/") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		perPath[r.URL.Path]++
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // a site takes a while: repeats overlap
		fmt.Fprintf(w, `<html lang="en"><head><title>%s</title></head><body><article><p>Page %s has a paragraph of text long enough to count as content.</p></article></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(site.Close)
	prefix := "surfsense:ph:cache-replay:" + time.Now().Format("150405.000000000") + ":"
	var hosts []*hosttest.Host
	for range 3 {
		st, err := redisstore.New(context.Background(), url, redisstore.Options{Prefix: prefix, Timeout: time.Second, Logger: repQuiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		hosts = append(hosts, hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{webcrawl.New}, Logger: repQuiet,
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
				ResultCache: st.ResultCache(), ResultLeases: st.ResultCache()},
			Config: func(c *host.Config) { c.RateLimitPerMinute, c.MaxConcurrentCalls = 0, 0 },
		}))
	}
	const unique, clients = 100, 8
	order := make([]int, 0, 2*unique)
	for i := range unique {
		order = append(order, i, i)
	}
	rng := rand.New(rand.NewSource(16))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	sessions := make([][]*mcp.ClientSession, clients)
	for c := range sessions {
		for _, h := range hosts {
			sessions[c] = append(sessions[c], h.Connect(t, "web-crawl", fmt.Sprintf("license-%d", c), nil))
		}
	}
	var next, cached, failed atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(order) {
					return
				}
				cs := sessions[c][i%3] // round robin over the replicas
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl",
					Arguments: map[string]any{"start_urls": []string{fmt.Sprintf("%s/q/%d", site.URL, order[i])}}})
				if err != nil || res.IsError {
					failed.Add(1)
					continue
				}
				if strings.Contains(text(res), `"cached":true`) {
					cached.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of 200 calls failed", failed.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for path, n := range perPath {
		total += n
		if n != 1 {
			t.Errorf("%s was fetched %d times", path, n)
		}
	}
	if len(perPath) != unique || total != unique {
		t.Fatalf("%d upstream requests for %d pages (of %d calls), want %d", total, len(perPath), len(order), unique)
	}
	t.Logf("200 calls, %d upstream requests (%d saved), %d answered from the cache, the rest shared a run or fetched", total, len(order)-total, cached.Load())
}

package host_test

// Usage per license (issue 15): counted on the replica that served a call,
// summed through one real Redis, shown to its own license only, kept across a
// Redis restart as host/redisstore/doc.go says, and rolled over at UTC
// midnight by an injected clock.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// meteredArgs: fetch pages pages (an item each); block ends with a block
// page; wait holds the call until it is cancelled.
type meteredArgs struct {
	Pages int  `json:"pages,omitempty"`
	Block bool `json:"block,omitempty"`
	Wait  bool `json:"wait,omitempty"`
}

const meteredPage = "0123456789" // each page's body: 10 bytes

// meteredSite serves 10-byte pages; the first request for /retry of each
// call answers 503, so a call's retry is counted too.
func meteredSite(t testing.TB) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, meteredPage)
	}))
	t.Cleanup(site.Close)
	return site
}

// meteredPlugin is plugin "metered", tool "get": it fetches through a real
// scrapers.Fetcher, so its upstream requests reach the host by Env.Upstream.
func meteredPlugin(started chan<- struct{}) scrapers.Constructor {
	return func(env scrapers.Env) (scrapers.Plugin, error) {
		f, err := scrapers.NewFetcher(env, scrapers.Site{ID: "metered", Origin: "https://metered.example", Domains: []string{"metered.example"}, BaseBackoff: time.Millisecond})
		if err != nil {
			return scrapers.Plugin{}, err
		}
		tool := scrapers.NewTool("get", "Get", "gets pages", nil, func(ctx context.Context, call *scrapers.Call, a meteredArgs) error {
			for i := range a.Pages {
				u := fmt.Sprintf("https://metered.example/page/%d", i)
				if _, err := f.Get(ctx, u); err != nil {
					return err
				}
				call.Add(map[string]any{"url": u})
			}
			if started != nil {
				started <- struct{}{}
			}
			if a.Wait {
				<-ctx.Done()
				return ctx.Err()
			}
			if a.Block {
				return &scrapers.BlockedError{Site: "Metered", Kind: scrapers.BlockCaptcha}
			}
			return nil
		})
		return scrapers.Plugin{ID: "metered", Name: "Metered", Tools: []scrapers.Tool{tool}}, nil
	}
}

// testClock is a clock tests move.
type testClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *testClock { c := &testClock{}; c.set(t); return c }
func (c *testClock) set(t time.Time)  { c.ns.Store(t.UnixNano()) }
func (c *testClock) Now() time.Time   { return time.Unix(0, c.ns.Load()).UTC() }

type usageReplica struct {
	*hosttest.Host
	store   *redisstore.Store // nil in memory
	started chan struct{}
}

// startUsageReplicas starts n hosts mounting "metered" that share the Redis
// at url (none: "" is one host in memory), with the clock.
func startUsageReplicas(t testing.TB, url string, n int, clock *testClock, backend license.Backend, cfg func(*host.Config)) []*usageReplica {
	t.Helper()
	site := meteredSite(t)
	prefix := "surfsense:ph:usage-test:" + time.Now().Format("150405.000000000") + ":"
	var out []*usageReplica
	for range n {
		r := &usageReplica{started: make(chan struct{}, 100)}
		var stores host.Stores
		if url != "" {
			st, err := redisstore.New(context.Background(), url, redisstore.Options{
				Prefix: prefix, Timeout: time.Second, ProbeInterval: 100 * time.Millisecond, Logger: repQuiet,
				UsageFlushInterval: time.Hour, // the tests flush when they read
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			r.store = st
			stores = host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Usage: st.Usage(), Health: st.Check}
		}
		r.Host = hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{meteredPlugin(r.started)}, Backend: backend, Stores: stores,
			// Every call runs and goes upstream: these tests count repeats
			// of one call, which the result cache would answer itself.
			Config: func(c *host.Config) {
				c.ResultCacheTTL = 0
				if cfg != nil {
					cfg(c)
				}
			},
			Env: map[string]string{"METERED_BASE_URL": site.URL}, Now: clock.Now,
		})
		out = append(out, r)
	}
	return out
}

func flushAll(t testing.TB, rs []*usageReplica) {
	t.Helper()
	for _, r := range rs {
		if r.store == nil {
			continue
		}
		if err := r.store.FlushUsage(context.Background()); err != nil {
			t.Fatalf("flushing usage to Redis: %v", err)
		}
	}
}

// call makes one tools/call of metered.get on r and returns its result.
func (r *usageReplica) call(t testing.TB, key string, args meteredArgs) *mcp.CallToolResult {
	t.Helper()
	cs := r.Connect(t, "metered", key, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get", Arguments: args})
	if err != nil {
		t.Fatalf("calling metered.get: %v", err)
	}
	return res
}

type periods struct {
	Day, Month, Range *usage.Counts
}

type usageBody struct {
	Day, Month, From, To string
	Plan                 *string
	Totals               periods
	Plugins              map[string]struct {
		periods
		Tools map[string]periods
	}
	Days    map[string]usage.Counts
	Reason  string
	Message string
}

func getUsage(t testing.TB, base, key, query string) (int, usageBody) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/usage"+query, nil)
	if key != "" {
		req.Header.Set("Authorization", "License "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var b usageBody
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatalf("GET /usage%s: %d %s", query, resp.StatusCode, raw)
	}
	return resp.StatusCode, b
}

func want(t testing.TB, what string, got *usage.Counts, w usage.Counts) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no counts, want %+v", what, w)
	}
	if *got != w {
		t.Fatalf("%s = %+v\nwant %+v", what, *got, w)
	}
}

func TestUsageAcrossReplicasSumsExactlyPerLicense(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	rs := startUsageReplicas(t, redistest.URL(t), 3, clock, nil, nil)
	// key-a: 12 calls of 2 pages, spread over the three replicas; key-b: 5
	// calls of 1 page, of which one ends blocked with its page (partial).
	for i := range 12 {
		if res := rs[i%3].call(t, "key-a", meteredArgs{Pages: 2}); res.IsError {
			t.Fatalf("call %d: %s", i, text(res))
		}
	}
	for i := range 4 {
		rs[(i+1)%3].call(t, "key-b", meteredArgs{Pages: 1})
	}
	if res := rs[2].call(t, "key-b", meteredArgs{Pages: 1, Block: true}); res.IsError {
		t.Fatalf("a blocked call with a page should be a partial result: %s", text(res))
	}
	flushAll(t, rs)

	a := usage.Counts{Calls: 12, Items: 24, UpstreamRequests: 24, UpstreamBytes: 240}
	b := usage.Counts{Calls: 5, Items: 5, UpstreamRequests: 5, UpstreamBytes: 50, Blocked: 1, Partial: 1}
	for i, r := range rs { // every replica answers the same sums
		for key, w := range map[string]usage.Counts{"key-a": a, "key-b": b} {
			st, body := getUsage(t, r.URL, key, "")
			if st != 200 || body.Day != "2026-12-01" || body.Month != "2026-12" || body.Plan == nil || *body.Plan != "dev" {
				t.Fatalf("replica %d, %s: %d %+v", i, key, st, body)
			}
			want(t, fmt.Sprintf("replica %d %s totals.day", i, key), body.Totals.Day, w)
			want(t, fmt.Sprintf("replica %d %s totals.month", i, key), body.Totals.Month, w)
			p := body.Plugins["metered"]
			want(t, key+" metered.day", p.Day, w)
			want(t, key+" metered.get.month", p.Tools["get"].Month, w)
		}
	}
	// Counts only the license's own: key-c used nothing.
	_, body := getUsage(t, rs[0].URL, "key-c", "")
	want(t, "key-c totals.day", body.Totals.Day, usage.Counts{})
	want(t, "key-c metered.get.day", body.Plugins["metered"].Tools["get"].Day, usage.Counts{})

	// The operators' view: ranked by calls made, by hash.
	top, err := rs[0].store.Usage().Top(context.Background(), usage.Period{Day: "2026-12-01"}, 10)
	if err != nil || len(top) != 2 || top[0].License != license.Hash("key-a") || top[0].Counts != a || top[1].Counts != b || top[0].Plan != "dev" {
		t.Fatalf("top = %+v, %v", top, err)
	}
}

func TestUsageRefusalsCounted(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	plan := "team"
	backend := mapBackend{
		"key-ok":  {Status: license.Valid, Plan: &plan},
		"key-old": {Status: license.Expired, Plan: &plan},
	}
	rs := startUsageReplicas(t, redistest.URL(t), 2, clock, backend, func(c *host.Config) {
		c.RateLimitPerMinute = 3
		c.MaxConcurrentCalls = 1
	})
	// Concurrency: one call held on replica 0, a second on replica 1 is refused.
	cs := rs[0].Connect(t, "metered", "key-ok", nil)
	ctx, cancel := context.WithCancel(context.Background())
	held := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: meteredArgs{Wait: true}})
		held <- err
	}()
	<-rs[0].started
	resp, _ := repRequest(t, http.MethodPost, rs[1].URL+"/metered/mcp", "key-ok", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{}}}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a second call in flight = %d, want 429", resp.StatusCode)
	}
	cancel() // the client gives up: the held call ends (client_gone)
	<-held
	waitFor(t, func() bool {
		_, b := getUsage(t, rs[0].URL, "key-ok", "")
		flushAll(t, rs)
		return b.Totals.Day != nil && b.Totals.Day.Calls == 1
	})
	// Rate: 3 a minute; the held call took one, two more pass, the next two are refused.
	for i := range 4 {
		resp, _ := repRequest(t, http.MethodPost, rs[i%2].URL+"/metered/mcp", "key-ok", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"pages":1}}}`)
		if wantSt := []int{200, 200, 429, 429}[i]; resp.StatusCode != wantSt {
			t.Fatalf("call %d = %d, want %d", i, resp.StatusCode, wantSt)
		}
	}
	// A tool the plugin does not have is counted under "-", not under its name.
	resp, _ = repRequest(t, http.MethodPost, rs[0].URL+"/metered/mcp", "key-ok", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"made-up","arguments":{}}}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a call over the rate = %d, want 429", resp.StatusCode)
	}
	// An expired key is refused by license, counted under its hash.
	for range 2 {
		resp, _ := repRequest(t, http.MethodPost, rs[1].URL+"/metered/mcp", "key-old", repCall)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("an expired key = %d, want 403", resp.StatusCode)
		}
	}
	// An unknown key is not counted anywhere per license.
	repRequest(t, http.MethodPost, rs[1].URL+"/metered/mcp", "key-unknown", repCall)
	flushAll(t, rs)

	_, body := getUsage(t, rs[1].URL, "key-ok", "")
	if body.Plan == nil || *body.Plan != "team" {
		t.Fatalf("plan = %v, want team", body.Plan)
	}
	want(t, "key-ok get.day", body.Plugins["metered"].Tools["get"].Day, usage.Counts{Calls: 3, Items: 2, UpstreamRequests: 2, UpstreamBytes: 20,
		Refused: usage.Refused{Concurrency: 1, RateLimited: 2}})
	want(t, "key-ok -.day", body.Plugins["metered"].Tools[usage.UnknownTool].Day, usage.Counts{Refused: usage.Refused{RateLimited: 1}})
	want(t, "key-ok totals.day", body.Totals.Day, usage.Counts{Calls: 3, Items: 2, UpstreamRequests: 2, UpstreamBytes: 20,
		Refused: usage.Refused{Concurrency: 1, RateLimited: 3}})

	// The expired key cannot read /usage (contract 2), but its refusals are
	// there for operators, and the unknown key left nothing.
	if st, b := getUsage(t, rs[0].URL, "key-old", ""); st != 403 || b.Reason != "expired" {
		t.Fatalf("GET /usage with an expired key = %d %+v", st, b)
	}
	days, err := rs[0].store.Usage().Days(context.Background(), license.Hash("key-old"), []usage.Day{"2026-12-01"})
	if got := days["2026-12-01"].Total(); err != nil || got != (usage.Counts{Refused: usage.Refused{License: 2}}) {
		t.Fatalf("the expired key's usage = %+v, %v", got, err)
	}
	top, _ := rs[0].store.Usage().Top(context.Background(), usage.Period{Month: "2026-12"}, 10)
	for _, r := range top {
		if r.License == license.Hash("key-unknown") {
			t.Fatal("an unknown key was counted")
		}
	}
	if len(top) != 2 {
		t.Fatalf("top = %+v, want key-ok and key-old", top)
	}
}

// mapBackend knows the keys it holds; any other is invalid.
type mapBackend map[string]license.Verdict

func (m mapBackend) Validate(_ context.Context, key string) (license.Verdict, error) {
	if v, ok := m[key]; ok {
		return v, nil
	}
	return license.Verdict{Status: license.Invalid}, nil
}
func (mapBackend) Name() string { return "map" }

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestUsageRollsOverAtUTCMidnight(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC))
	rs := startUsageReplicas(t, redistest.URL(t), 3, clock, nil, nil)
	for i := range 2 {
		rs[i].call(t, "key-a", meteredArgs{Pages: 1})
	}
	clock.set(time.Date(2027, 1, 1, 0, 0, 1, 0, time.UTC))
	for i := range 3 {
		rs[i].call(t, "key-a", meteredArgs{Pages: 1})
	}
	flushAll(t, rs)
	one := func(n int64) usage.Counts {
		return usage.Counts{Calls: n, Items: n, UpstreamRequests: n, UpstreamBytes: 10 * n}
	}
	_, body := getUsage(t, rs[1].URL, "key-a", "")
	if body.Day != "2027-01-01" || body.Month != "2027-01" {
		t.Fatalf("periods = %s %s, want 2027-01-01 2027-01", body.Day, body.Month)
	}
	want(t, "new day", body.Totals.Day, one(3))
	want(t, "new month", body.Totals.Month, one(3))
	st, body := getUsage(t, rs[2].URL, "key-a", "?from=2026-12-30&to=2027-01-01")
	if st != 200 || body.From != "2026-12-30" || body.To != "2027-01-01" || len(body.Days) != 3 {
		t.Fatalf("range: %d %+v", st, body)
	}
	if body.Days["2026-12-30"] != (usage.Counts{}) || body.Days["2026-12-31"] != one(2) || body.Days["2027-01-01"] != one(3) {
		t.Fatalf("days = %+v", body.Days)
	}
	want(t, "range", body.Totals.Range, one(5))
	m, err := rs[0].store.Usage().Month(context.Background(), license.Hash("key-a"), "2026-12")
	if err != nil || m.Total() != one(2) {
		t.Fatalf("December = %+v, %v", m.Total(), err)
	}
}

func TestUsageRangeBounds(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	h := startUsageReplicas(t, "", 1, clock, nil, nil)[0]
	h.call(t, "key-a", meteredArgs{Pages: 1})
	for _, c := range []struct {
		query, reason, says string
	}{
		{"?from=2026-10-17&to=2026-12-01", "bad_request", "at most 45 days"},
		{"?from=2026-10-17", "bad_request", "at most 45 days"},
		{"?from=2026-12-1", "bad_request", "YYYY-MM-DD"},
		{"?from=2026-02-30&to=2026-03-01", "bad_request", "YYYY-MM-DD"},
		{"?from=2026-11-01&to=yesterday", "bad_request", "YYYY-MM-DD"},
		{"?to=2026-12-01", "bad_request", "from="},
		{"?from=2026-12-01&to=2026-11-30", "bad_request", "after"},
		{"?from=2026-12-01&to=2026-12-02", "bad_request", "after today"},
	} {
		st, body := getUsage(t, h.URL, "key-a", c.query)
		if st != 400 || body.Reason != c.reason || !strings.Contains(body.Message, c.says) {
			t.Errorf("GET /usage%s = %d %q %q, want 400 %s naming %q", c.query, st, body.Reason, body.Message, c.reason, c.says)
		}
	}
	st, body := getUsage(t, h.URL, "key-a", "?from=2026-10-18&to=2026-12-01")
	if st != 200 || len(body.Days) != 45 || body.Totals.Range == nil || body.Totals.Range.Calls != 1 {
		t.Fatalf("45 days = %d, %d days, %+v", st, len(body.Days), body.Totals.Range)
	}
	// Contract 2's refusals, as everywhere.
	if st, body := getUsage(t, h.URL, "", ""); st != 401 || body.Reason != "missing_license" {
		t.Fatalf("GET /usage without a key = %d %+v", st, body)
	}
}

func TestUsageRedisRestartLosesOnlyWhatRedisHeld(t *testing.T) {
	srv := redistest.StartProcess(t)
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	rs := startUsageReplicas(t, srv.URL, 3, clock, nil, nil)
	for i := range 3 {
		rs[i].call(t, "key-a", meteredArgs{Pages: 1})
	}
	flushAll(t, rs) // these three are in Redis, and only there

	srv.Kill(t)
	for i := range 6 { // counted into each replica's buffer while Redis is down
		if res := rs[i%3].call(t, "key-a", meteredArgs{Pages: 1}); res.IsError {
			t.Fatalf("a call during the fault: %s", text(res))
		}
	}
	for _, r := range rs {
		if err := r.store.FlushUsage(context.Background()); err == nil {
			t.Fatal("a flush with Redis down reported success")
		}
	}
	if st, b := getUsage(t, rs[0].URL, "key-a", ""); st != 503 || b.Reason != "usage_unavailable" {
		t.Fatalf("GET /usage with Redis down = %d %+v, want 503 usage_unavailable", st, b)
	}
	srv.Restart(t) // empty: a Redis without persistence lost the first three
	waitFor(t, func() bool {
		for _, r := range rs {
			if !r.store.Health().Up {
				return false
			}
		}
		return true
	})
	for range 2 {
		rs[1].call(t, "key-a", meteredArgs{Pages: 1})
	}
	for _, r := range rs {
		waitFor(t, func() bool { return r.store.FlushUsage(context.Background()) == nil })
	}
	// What the doc says is lost: the counts Redis held when it restarted
	// empty. Every count buffered during the fault, and after, is there,
	// once.
	one := func(n int64) usage.Counts {
		return usage.Counts{Calls: n, Items: n, UpstreamRequests: n, UpstreamBytes: 10 * n}
	}
	_, body := getUsage(t, rs[2].URL, "key-a", "")
	want(t, "after the restart", body.Totals.Day, one(8))
	want(t, "after the restart, month", body.Totals.Month, one(8))
}

// TestUsageSeriesHaveNoLicense: Prometheus gets totals by plugin, tool and
// outcome, never a license's hash.
func TestUsageSeriesHaveNoLicense(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	h := startUsageReplicas(t, "", 1, clock, nil, func(c *host.Config) { c.RateLimitPerMinute = 2 })[0]
	h.call(t, "key-a", meteredArgs{Pages: 3})
	h.call(t, "key-a", meteredArgs{Pages: 1, Block: true})
	if resp, _ := repRequest(t, http.MethodPost, h.URL+"/metered/mcp", "key-a", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{}}}`); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third call within the minute = %d, want 429", resp.StatusCode)
	}
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, line := range []string{
		`pluginhost_usage_items_total{plugin="metered",tool="get"} 4`,
		`pluginhost_usage_upstream_requests_total{plugin="metered",tool="get"} 4`,
		`pluginhost_usage_upstream_bytes_total{plugin="metered",tool="get"} 40`,
		`pluginhost_usage_refused_calls_total{plugin="metered",reason="rate_limited",tool="get"} 1`,
		`pluginhost_tool_calls_total{outcome="blocked",plugin="metered",tool="get"} 1`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("metrics lack %s", line)
		}
	}
	if strings.Contains(body, license.Hash("key-a")) || strings.Contains(body, license.Hash("key-a")[:12]) || strings.Contains(body, "license=") {
		t.Fatal("a series names the license")
	}
}

// A call answered from the shared result cache is counted, as cached and
// without upstream requests, for the license that asked it, whoever asked
// first.
func TestUsageCountsCacheHits(t *testing.T) {
	clock := newClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	rs := startUsageReplicas(t, "", 1, clock, nil, func(c *host.Config) { c.ResultCacheTTL = 5 * time.Minute })
	for range 2 {
		rs[0].call(t, "key-a", meteredArgs{Pages: 2})
	}
	rs[0].call(t, "key-b", meteredArgs{Pages: 2})
	_, a := getUsage(t, rs[0].URL, "key-a", "")
	want(t, "key-a metered.get.day", a.Plugins["metered"].Tools["get"].Day, usage.Counts{Calls: 2, Items: 4, UpstreamRequests: 2, UpstreamBytes: 20, Cached: 1})
	_, b := getUsage(t, rs[0].URL, "key-b", "")
	want(t, "key-b totals.day", b.Totals.Day, usage.Counts{Calls: 1, Items: 2, Cached: 1})
}

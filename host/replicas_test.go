package host_test

// Three hosts on one Redis, as replicas behind one ingress (issue 6): a
// cancel on one ends a call on another, a suspended key is refused
// everywhere, the rate limits hold across replicas, and a Redis that dies and
// comes back costs no call.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/license/keygentest"
	"github.com/surfsense/pluginhost/scrapers"
)

// repPlugin is the test plugin "slow" of one replica: its tool "work"
// returns at once, or with wait runs until its call is cancelled.
type repPlugin struct {
	started chan struct{}
	ended   chan time.Time // when a waiting call saw its cancel
}

func newRepPlugin() *repPlugin {
	return &repPlugin{started: make(chan struct{}, 100), ended: make(chan time.Time, 100)}
}

type repArgs struct {
	Wait bool `json:"wait,omitempty"`
}

func (p *repPlugin) ctor(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "slow", Name: "Slow", Tools: []scrapers.Tool{
		scrapers.NewTool("work", "Work", "test tool", nil, func(ctx context.Context, call *scrapers.Call, a repArgs) error {
			call.Add(map[string]any{"url": "https://example.com/1"})
			p.started <- struct{}{}
			if !a.Wait {
				return nil
			}
			<-ctx.Done()
			p.ended <- time.Now()
			return ctx.Err()
		}),
	}}, nil
}

type replica struct {
	*hosttest.Host
	store  *redisstore.Store
	plugin *repPlugin
}

var repQuiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startReplicas starts n hosts sharing the Redis at url under one fresh
// prefix. timeout is each Redis command's deadline.
func startReplicas(t testing.TB, url string, n int, backend license.Backend, timeout time.Duration, cfg func(*host.Config)) []*replica {
	t.Helper()
	prefix := "surfsense:ph:replicas-test:" + time.Now().Format("150405.000000000") + ":"
	var out []*replica
	for range n {
		st, err := redisstore.New(context.Background(), url, redisstore.Options{
			Prefix: prefix, Timeout: timeout, ProbeInterval: 100 * time.Millisecond, Logger: repQuiet,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		p := newRepPlugin()
		h := hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{p.ctor}, Backend: backend,
			// The result cache is off unless cfg turns it on: these tests
			// count runs of one question (resultcache_test.go shares them).
			Config: func(c *host.Config) {
				c.ResultCacheTTL = 0
				if cfg != nil {
					cfg(c)
				}
			},
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
				ResultCache: st.ResultCache(), ResultLeases: st.ResultCache()},
		})
		out = append(out, &replica{Host: h, store: st, plugin: p})
	}
	return out
}

func repRequest(t testing.TB, method, url, key, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "License "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m == nil {
		m = map[string]any{"_raw": string(raw)}
	}
	return resp, m
}

const repCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{}}}`

// callOK makes one quick tool call on r and fails t unless it succeeded.
func (r *replica) callOK(t testing.TB, key string) {
	t.Helper()
	resp, m := repRequest(t, http.MethodPost, r.URL+"/slow/mcp", key, repCall)
	if resp.StatusCode != 200 || strings.Contains(fmt.Sprint(m), `"isError":true`) || !strings.Contains(fmt.Sprint(m), `"result"`) {
		t.Fatalf("tool call on a replica: %d %v", resp.StatusCode, m)
	}
	select {
	case <-r.plugin.started:
	case <-time.After(5 * time.Second):
		t.Fatalf("the tool did not run: %d %v", resp.StatusCode, m)
	}
}

// waitingCall starts a tool call on r in thread that runs until cancelled;
// its result arrives on the channel.
func (r *replica) waitingCall(t testing.TB, key, thread string) <-chan *mcp.CallToolResult {
	t.Helper()
	cs := r.Connect(t, "slow", key, http.Header{"X-Surfsense-Thread": {thread}})
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"wait": true}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "transport: " + err.Error()}}}
		}
		out <- res
	}()
	select {
	case <-r.plugin.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting call did not start")
	}
	return out
}

func (r *replica) cancel(t testing.TB, key, thread string) (cancelled, still float64, took time.Duration) {
	t.Helper()
	start := time.Now()
	resp, m := repRequest(t, http.MethodPost, r.URL+"/cancel", key, `{"thread_id":"`+thread+`"}`)
	took = time.Since(start)
	if resp.StatusCode != 200 || m["thread_id"] != thread {
		t.Fatalf("cancel: %d %v", resp.StatusCode, m)
	}
	c, _ := m["cancelled"].(float64)
	s, _ := m["still_running"].(float64)
	return c, s, took
}

func (r *replica) redisPart(t testing.TB) string {
	t.Helper()
	resp, m := repRequest(t, http.MethodGet, r.URL+"/readyz", "", "")
	if resp.StatusCode != 200 {
		t.Fatalf("/readyz = %d %v, want 200 whatever Redis does", resp.StatusCode, m)
	}
	parts, _ := m["parts"].(map[string]any)
	s, _ := parts["redis"].(string)
	return s
}

func TestReplicasCancelOnOneEndsCallOnAnother(t *testing.T) {
	rs := startReplicas(t, redistest.URL(t), 3, nil, time.Second, nil)
	a, b, c := rs[0], rs[1], rs[2]

	mine := c.waitingCall(t, "key-1", "thread-9")
	othersOnC := c.waitingCall(t, "key-2", "thread-9") // same thread, another license
	mineOnB := b.waitingCall(t, "key-1", "thread-9")

	start := time.Now()
	n, still, took := a.cancel(t, "key-1", "thread-9")
	if n != 2 || still != 0 {
		t.Fatalf("cancel on A = %v cancelled, %v still running; want 2, 0", n, still)
	}
	for _, r := range []*replica{b, c} {
		select {
		case end := <-r.plugin.ended:
			if lat := end.Sub(start); lat > time.Second {
				t.Errorf("a call ended %v after the cancel, want < 1s", lat)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("a cancelled call on another replica did not end")
		}
	}
	for _, ch := range []<-chan *mcp.CallToolResult{mine, mineOnB} {
		res := <-ch
		if !res.IsError || !strings.Contains(text(res), "cancelled") {
			t.Fatalf("cancelled call's result: error=%v %q", res.IsError, text(res))
		}
	}
	if took > time.Second {
		t.Errorf("/cancel answered after %v, want < 1s", took)
	}
	t.Logf("/cancel on A ended calls on B and C and answered in %v", took)

	// The other license's call on the same thread runs on.
	select {
	case res := <-othersOnC:
		t.Fatalf("another license's call ended: %q", text(res))
	case <-time.After(100 * time.Millisecond):
	}
	if n, _, _ := b.cancel(t, "key-2", "thread-9"); n != 1 {
		t.Fatalf("key-2's cancel on B = %v, want 1", n)
	}
	<-othersOnC
	if n, _, _ := a.cancel(t, "key-1", "thread-9"); n != 0 {
		t.Fatalf("a second cancel found %v calls", n)
	}
}

func TestReplicasShareLicenseVerdicts(t *testing.T) {
	kg := keygentest.New("acct", map[string]keygentest.License{"k1": {Code: "VALID", Plan: "team"}})
	t.Cleanup(kg.Close)
	backend, err := license.NewKeygen(kg.URL, "acct")
	if err != nil {
		t.Fatal(err)
	}
	backend.Client = &http.Client{Timeout: 2 * time.Second}
	const ttl = 400 * time.Millisecond
	rs := startReplicas(t, redistest.URL(t), 3, backend, time.Second, func(c *host.Config) { c.License.CacheTTL = ttl })

	// Three replicas checking one new key at once make one Keygen request.
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, m := repRequest(t, http.MethodGet, r.URL+"/license", "k1", "")
			if resp.StatusCode != 200 || m["status"] != "valid" || m["plan"] != "team" {
				t.Errorf("/license: %d %v", resp.StatusCode, m)
			}
		}()
	}
	wg.Wait()
	if n := kg.Requests(); n != 1 {
		t.Fatalf("three replicas made %d Keygen requests for one new key, want 1", n)
	}
	for _, r := range rs {
		r.callOK(t, "k1")
	}
	if n := kg.Requests(); n != 1 {
		t.Fatalf("cached calls made Keygen requests: %d", n)
	}

	// Suspended in Keygen: refused on every replica once the cache expired.
	kg.Set("k1", keygentest.License{Code: "SUSPENDED"})
	time.Sleep(ttl + 100*time.Millisecond)
	for i, r := range rs {
		resp, m := repRequest(t, http.MethodGet, r.URL+"/license", "k1", "")
		if resp.StatusCode != 403 || m["reason"] != "revoked" {
			t.Errorf("replica %d after the suspension: /license %d %v, want 403 revoked", i, resp.StatusCode, m)
		}
		resp, m = repRequest(t, http.MethodPost, r.URL+"/slow/mcp", "k1", repCall)
		if resp.StatusCode != 403 || m["reason"] != "revoked" {
			t.Errorf("replica %d after the suspension: tool call %d %v, want 403 revoked", i, resp.StatusCode, m)
		}
	}
	if n := kg.Requests(); n != 2 {
		t.Errorf("Keygen requests after the suspension = %d, want 2 (one replica asks, the others read its verdict)", n)
	}
}

func TestReplicasShareRateLimits(t *testing.T) {
	rs := startReplicas(t, redistest.URL(t), 3, nil, time.Second, func(c *host.Config) {
		c.RateLimitPerMinute = 4
		c.MaxConcurrentCalls = 2
	})
	for i := range 4 {
		rs[i%3].callOK(t, "rl-key")
	}
	for i, r := range rs {
		resp, m := repRequest(t, http.MethodPost, r.URL+"/slow/mcp", "rl-key", repCall)
		secs, _ := m["retry_after_seconds"].(float64)
		if resp.StatusCode != 429 || m["reason"] != "rate_limited" || resp.Header.Get("Retry-After") == "" || secs < 1 || secs > 60 {
			t.Fatalf("5th call in a minute on replica %d: %d %v Retry-After %q", i, resp.StatusCode, m, resp.Header.Get("Retry-After"))
		}
	}
	// Calls in flight: two across the replicas, the third refused.
	rs2 := startReplicas(t, redistest.URL(t), 3, nil, time.Second, func(c *host.Config) { c.MaxConcurrentCalls = 2 })
	first := rs2[0].waitingCall(t, "conc-key", "t1")
	second := rs2[1].waitingCall(t, "conc-key", "t1")
	resp, m := repRequest(t, http.MethodPost, rs2[2].URL+"/slow/mcp", "conc-key", repCall)
	if resp.StatusCode != 429 || m["reason"] != "rate_limited" {
		t.Fatalf("a third call in flight on another replica: %d %v, want 429", resp.StatusCode, m)
	}
	rs2[2].callOK(t, "another-key")
	if n, _, _ := rs2[2].cancel(t, "conc-key", "t1"); n != 2 {
		t.Fatalf("cancel = %v, want 2", n)
	}
	<-first
	<-second
	rs2[2].callOK(t, "conc-key") // slots released
}

func TestReplicasSurviveRedisRestart(t *testing.T) {
	srv := redistest.StartProcess(t)
	kg := keygentest.New("acct", map[string]keygentest.License{"k1": {Code: "VALID"}})
	t.Cleanup(kg.Close)
	backend, _ := license.NewKeygen(kg.URL, "acct")
	backend.Client = &http.Client{Timeout: 2 * time.Second}
	rs := startReplicas(t, srv.URL, 3, backend, 250*time.Millisecond, func(c *host.Config) {
		c.License.CacheTTL = 300 * time.Millisecond
	})
	for _, r := range rs {
		if p := r.redisPart(t); p != "ok" {
			t.Fatalf("redis part before the fault: %q", p)
		}
		r.callOK(t, "k1")
	}

	srv.Kill(t)
	deadline := time.Now().Add(3 * time.Second)
	for i, r := range rs {
		start := time.Now()
		r.callOK(t, "k1")
		if took := time.Since(start); took > time.Second {
			t.Errorf("a call on replica %d took %v with Redis down", i, took)
		}
		resp, m := repRequest(t, http.MethodGet, r.URL+"/license", "k1", "")
		if resp.StatusCode != 200 || m["status"] != "valid" {
			t.Errorf("/license on replica %d with Redis down: %d %v", i, resp.StatusCode, m)
		}
	}
	for _, r := range rs {
		for !strings.HasPrefix(r.redisPart(t), "degraded") {
			if time.Now().After(deadline) {
				t.Fatalf("/readyz does not name Redis as degraded: %q", r.redisPart(t))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Cancel works on the replica that runs the call.
	ch := rs[1].waitingCall(t, "k1", "during")
	if n, _, took := rs[1].cancel(t, "k1", "during"); n != 1 || took > time.Second {
		t.Fatalf("local cancel with Redis down = %v in %v", n, took)
	}
	<-ch
	<-rs[1].plugin.ended
	// Past the cache TTL, keys are checked again without Redis.
	time.Sleep(350 * time.Millisecond)
	for _, r := range rs {
		r.callOK(t, "k1")
	}

	srv.Restart(t)
	for _, r := range rs {
		for r.redisPart(t) != "ok" {
			if time.Now().After(deadline.Add(3 * time.Second)) {
				t.Fatalf("a replica did not recover: %q", r.redisPart(t))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Shared again: a cancel on A reaches C.
	ch = rs[2].waitingCall(t, "k1", "after")
	if n, still, _ := rs[0].cancel(t, "k1", "after"); n != 1 || still != 0 {
		t.Fatalf("cancel across replicas after recovery = %v, %v still", n, still)
	}
	res := <-ch
	if !res.IsError || !strings.Contains(text(res), "cancelled") {
		t.Fatalf("result: %q", text(res))
	}
	for _, r := range rs {
		r.callOK(t, "k1")
	}
}

// BenchmarkCancelAcrossReplicas measures the time from /cancel on one
// replica to the end of a call on another (three replicas on one Redis), and
// reports its p50 and p99.
func BenchmarkCancelAcrossReplicas(b *testing.B) {
	rs := startReplicas(b, redistest.URL(b), 3, nil, time.Second, nil)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		on, from := rs[(i+2)%3], rs[i%3]
		b.StopTimer()
		ch := on.waitingCall(b, "lat-key", "lat")
		b.StartTimer()
		start := time.Now()
		if n, _, _ := from.cancel(b, "lat-key", "lat"); n != 1 {
			b.Fatalf("cancel %d = %v", i, n)
		}
		end := <-on.plugin.ended
		lat = append(lat, end.Sub(start))
		<-ch
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

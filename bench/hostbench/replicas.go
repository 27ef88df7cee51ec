package hostbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/internal/redisproc"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// ReplicaReport is what the three-replica measure found.
type ReplicaReport struct {
	CancelP50, CancelP99 time.Duration // from POST /cancel on one replica to the call's end on another
	CheckP50, CheckP99   time.Duration // a cached license check through Redis
	Runs                 int
}

// waiter is a test plugin whose tool waits until its call is cancelled and
// says when it saw the cancel.
type waiter struct {
	started chan struct{}
	ended   chan time.Time
}

type waitArgs struct{}

func (w *waiter) ctor(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "wait", Name: "Wait", Tools: []scrapers.Tool{
		scrapers.NewTool("wait", "Wait", "waits until cancelled", nil, func(ctx context.Context, call *scrapers.Call, _ waitArgs) error {
			call.Add(map[string]any{"url": "https://example.com/"})
			w.started <- struct{}{}
			<-ctx.Done()
			w.ended <- time.Now()
			return ctx.Err()
		}),
	}}, nil
}

// Replicas starts three hosts sharing one Redis (REDIS_URL, else a
// redis-server it starts on a free port) and measures cancel latency across
// replicas and cached license checks through Redis.
func Replicas(ctx context.Context, runs int, w io.Writer) (ReplicaReport, error) {
	var rep ReplicaReport
	url := os.Getenv("REDIS_URL")
	if url == "" {
		stop, u, err := startRedis()
		if err != nil {
			return rep, err
		}
		defer stop()
		url = u
	}
	prefix := "surfsense:ph:bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	quiet := slog.New(slog.DiscardHandler)
	type replica struct {
		url   string
		w     *waiter
		store *redisstore.Store
	}
	var reps []replica
	for i := 0; i < 3; i++ {
		st, err := redisstore.New(ctx, url, redisstore.Options{Prefix: prefix, Logger: quiet, Registerer: prometheus.NewRegistry()})
		if err != nil {
			return rep, err
		}
		defer st.Close()
		wt := &waiter{started: make(chan struct{}, 4), ended: make(chan time.Time, 4)}
		cfg := host.Defaults()
		cfg.License.Backend = "dev"
		cfg.RateLimitPerMinute, cfg.MaxConcurrentCalls = 0, 0
		h, err := host.New(cfg, host.Options{Logger: quiet, Plugins: []scrapers.Constructor{wt.ctor}, Backend: license.Dev{},
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check}})
		if err != nil {
			return rep, err
		}
		srv := httptest.NewServer(h.Handler())
		defer srv.Close()
		reps = append(reps, replica{url: srv.URL, w: wt, store: st})
	}
	if ok, detail := reps[0].store.Check(); !ok {
		return rep, fmt.Errorf("redis at %s is not answering: %s", redactURL(url), detail)
	}
	var cancelLat []time.Duration
	for i := 0; i < runs; i++ {
		on, from := reps[(i+2)%3], reps[i%3]
		thread := "bench-" + strconv.Itoa(i)
		cs, err := mcpdial.Connect(ctx, on.url+"/wait/mcp", "bench-key", http.Header{"X-Surfsense-Thread": {thread}}, nil, nil)
		if err != nil {
			return rep, err
		}
		done := make(chan struct{})
		go func() {
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
			close(done)
		}()
		<-on.w.started
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, from.url+"/cancel", strings.NewReader(`{"thread_id":"`+thread+`"}`))
		req.Header.Set("Authorization", "License bench-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return rep, err
		}
		resp.Body.Close()
		select {
		case end := <-on.w.ended:
			cancelLat = append(cancelLat, end.Sub(start))
		case <-time.After(6 * time.Second):
			return rep, fmt.Errorf("a cancel on one replica did not end the call on another within 6 s")
		}
		<-done
		cs.Close()
	}
	// Cached license checks through Redis: a fresh checker per replica with
	// no local cache in front, so each check reads Redis.
	var checkLat []time.Duration
	for i, r := range reps {
		c := &license.Checker{Backend: license.Dev{}, Store: r.store.Licenses()}
		c.Check(ctx, "bench-check-key")
		for j := 0; j < runs*10; j++ {
			t0 := time.Now()
			if res := c.Check(ctx, "bench-check-key"); !res.Cached && i > 0 {
				return rep, fmt.Errorf("a check on replica %d was not answered from Redis", i)
			}
			checkLat = append(checkLat, time.Since(t0))
		}
	}
	rep.Runs = runs
	rep.CancelP50, rep.CancelP99 = pct(cancelLat, 50), pct(cancelLat, 99)
	rep.CheckP50, rep.CheckP99 = pct(checkLat, 50), pct(checkLat, 99)
	fmt.Fprintf(w, "\nthree replicas on one Redis (%d cancels, %d checks)\n", len(cancelLat), len(checkLat))
	fmt.Fprintf(w, "  /cancel on one replica to the call's end on another: p50 %s  p99 %s (target p99 ≤ 250ms)\n", rep.CancelP50, rep.CancelP99)
	fmt.Fprintf(w, "  cached license check through Redis:                 p50 %s  p99 %s (target p99 ≤ 1ms)\n", rep.CheckP50, rep.CheckP99)
	return rep, nil
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

// startRedis runs a private redis-server (internal/redisproc) in a
// temporary folder.
func startRedis() (stop func(), url string, err error) {
	dir, err := os.MkdirTemp("", "pluginhost-bench-redis")
	if err != nil {
		return nil, "", err
	}
	p, err := redisproc.Start(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", fmt.Errorf("the replica measure needs Redis: set REDIS_URL or install redis-server: %w", err)
	}
	return func() { p.Stop(); _ = os.RemoveAll(dir) }, p.URL, nil
}

// redactURL drops credentials from a Redis URL for messages.
func redactURL(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "…" + u[i:]
		}
	}
	return u
}

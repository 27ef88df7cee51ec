package redisstore

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
)

// fleetPeak runs n requests spread over the replicas' politeness for slot,
// each holding its lease for hold and releasing with after; it returns the
// most in flight at once across all of them and the starts.
func fleetPeak(t *testing.T, ps []scrapers.Politeness, slot scrapers.Slot, n int, hold, after time.Duration) (int32, []time.Time) {
	t.Helper()
	var cur, most atomic.Int32
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	for i := range n {
		p := ps[i%len(ps)]
		wg.Go(func() {
			l, err := p.Acquire(context.Background(), slot)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			starts = append(starts, time.Now())
			mu.Unlock()
			c := cur.Add(1)
			for m := most.Load(); c > m && !most.CompareAndSwap(m, c); m = most.Load() {
			}
			time.Sleep(hold)
			cur.Add(-1)
			l.Release(after)
		})
	}
	wg.Wait()
	return most.Load(), starts
}

func politenessOf(rs []*Store) []scrapers.Politeness {
	out := make([]scrapers.Politeness, len(rs))
	for i, s := range rs {
		out[i] = s.Politeness()
	}
	return out
}

// Three replicas together keep a site's limit, its spacing and its pause.
func TestPolitenessHoldsAcrossReplicas(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	ps := politenessOf(rs)
	if m, _ := fleetPeak(t, ps, scrapers.Slot{Key: "host:a.test", Exit: scrapers.ExitDirect, Limit: 2}, 18, 40*time.Millisecond, 0); m != 2 {
		t.Fatalf("three replicas had %d requests in flight at once; the limit is 2", m)
	}
	_, starts := fleetPeak(t, ps, scrapers.Slot{Key: "host:b.test", Exit: scrapers.ExitDirect, Limit: 6, Interval: 250 * time.Millisecond}, 6, 0, 0)
	sortTimes(starts)
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 150*time.Millisecond {
			t.Fatalf("starts %v apart across replicas; the interval is 250ms", gap)
		}
	}
	// The pause after a page holds for the fleet: one slot, a 150 ms pause.
	_, starts = fleetPeak(t, ps, scrapers.Slot{Key: "host:c.test", Exit: scrapers.ExitDirect, Limit: 1}, 3, 0, 250*time.Millisecond)
	sortTimes(starts)
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 200*time.Millisecond {
			t.Fatalf("starts %v apart across replicas; the pause is 250ms", gap)
		}
	}
	// Released with a pause: each member lapses by itself after it.
	time.Sleep(300 * time.Millisecond)
	now := time.Now().UnixMilli()
	if n := rs[0].rdb.ZCount(context.Background(), rs[0].key("pol", "host:c.test"), strconv.FormatInt(now, 10), "+inf").Val(); n != 0 {
		t.Fatalf("%d released slots still held after their pause", n)
	}
}

// A hold put by one replica is obeyed by the others, per exit, and said.
func TestPolitenessHoldReachesEveryReplica(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	ctx := context.Background()
	rs[0].Politeness().Hold(ctx, "site:google:google", scrapers.ExitDirect, 3*time.Second, "HTTP 429 with Retry-After")
	for i, s := range rs[1:] {
		start := time.Now()
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := s.Politeness().Acquire(dctx, scrapers.Slot{Key: "site:google:google", Exit: scrapers.ExitDirect, Limit: 2})
		cancel()
		var held *scrapers.HeldError
		if !errors.As(err, &held) || held.Wait <= 2*time.Second || held.Reason != "HTTP 429 with Retry-After" {
			t.Fatalf("replica %d: err = %v, want the hold of about 3s and its reason", i+1, err)
		}
		if time.Since(start) > 300*time.Millisecond {
			t.Fatalf("replica %d waited %v on a hold longer than its deadline", i+1, time.Since(start))
		}
	}
	// The proxy exit is not held.
	l, err := rs[2].Politeness().Acquire(ctx, scrapers.Slot{Key: "site:google:google", Exit: "proxy-0", Limit: 2})
	if err != nil {
		t.Fatalf("another exit: %v", err)
	}
	l.Release(0)
	// A short hold is waited out by another replica.
	rs[0].Politeness().Hold(ctx, "host:d.test", scrapers.ExitDirect, 300*time.Millisecond, "HTTP 503 with Retry-After")
	start := time.Now()
	l, err = rs[1].Politeness().Acquire(ctx, scrapers.Slot{Key: "host:d.test", Exit: scrapers.ExitDirect, Limit: 1})
	if err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("err %v after %v; want the 300ms hold waited out", err, time.Since(start))
	}
	l.Release(0)
}

// A replica that dies holding slots frees them when its leases lapse.
func TestPolitenessLeasesOfADeadReplicaLapse(t *testing.T) {
	url := redistest.URL(t)
	o := Options{CallTTL: 900 * time.Millisecond, Prefix: testPrefix()}
	rs := replicas(t, url, 2, o)
	ctx := context.Background()
	slot := scrapers.Slot{Key: "host:e.test", Exit: scrapers.ExitDirect, Limit: 2}
	for range 2 {
		if _, err := rs[0].Politeness().Acquire(ctx, slot); err != nil {
			t.Fatal(err)
		}
	}
	// While rs[0] lives, its heartbeats keep the slots past CallTTL.
	time.Sleep(1200 * time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if _, err := rs[1].Politeness().Acquire(short, slot); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v: a live replica's slots were taken from it", err)
	}
	cancel()
	_ = rs[0].Close() // dies without releasing
	start := time.Now()
	l, err := rs[1].Politeness().Acquire(ctx, slot)
	if err != nil {
		t.Fatal(err)
	}
	l.Release(0)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("slots of a dead replica freed after %v, CallTTL 900ms", d)
	}
}

// With Redis gone, politeness falls back to each replica's own at once,
// never failing or stalling a request; and comes back with Redis.
func TestPolitenessFallsBackWhileRedisIsDown(t *testing.T) {
	srv := redistest.StartProcess(t)
	rs := replicas(t, srv.URL, 2, Options{Timeout: 200 * time.Millisecond, ProbeInterval: 100 * time.Millisecond})
	ctx := context.Background()
	slot := scrapers.Slot{Key: "host:f.test", Exit: scrapers.ExitDirect, Limit: 1}
	srv.Kill(t)
	for i, s := range rs {
		start := time.Now()
		l, err := s.Politeness().Acquire(ctx, slot)
		if err != nil {
			t.Fatalf("replica %d while Redis is down: %v", i, err)
		}
		// Each replica keeps the limit alone: both hold the one slot.
		if d := time.Since(start); d > time.Second {
			t.Fatalf("replica %d waited %v for a slot while Redis is down", i, d)
		}
		defer l.Release(0)
	}
	if ok, detail := rs[0].Check(); ok || !containsAll(detail, "politeness is per replica") {
		t.Fatalf("Check = %v %q, want degraded naming politeness per replica", ok, detail)
	}
	// A hold during the fault still holds on the replica that met it.
	rs[0].Politeness().Hold(ctx, "host:f.test", scrapers.ExitDirect, time.Minute, "HTTP 429 with Retry-After")
	if _, err := rs[0].Politeness().Acquire(ctx, slot); !errors.Is(err, scrapers.ErrHeld) {
		t.Fatalf("err = %v, want the hold kept in memory", err)
	}
	srv.Restart(t)
	waitFor(t, 5*time.Second, "Redis back", func() bool { return rs[1].Health().Up })
	other := scrapers.Slot{Key: "host:g.test", Exit: scrapers.ExitDirect, Limit: 1}
	l, err := rs[1].Politeness().Acquire(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(0)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := rs[0].Politeness().Acquire(short, other); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after recovery the limit is not shared again: err %v", err)
	}
}

func sortTimes(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		found := false
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Site scrapers' fetchers on three replicas keep the site's MaxConcurrent
// together, and a 429's Retry-After met by one keeps the others from asking.
func TestFetchersKeepASitesLimitAcrossReplicas(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	var mu sync.Mutex
	cur, peak, asked := 0, 0, 0
	limited := atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked++
		cur++
		peak = max(peak, cur)
		mu.Unlock()
		defer func() { mu.Lock(); cur--; mu.Unlock() }()
		if limited.Load() {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		time.Sleep(40 * time.Millisecond)
		_, _ = w.Write([]byte("<html>ok</html>"))
	}))
	defer srv.Close()
	site := scrapers.Site{ID: "google-search", Name: "Google", Origin: "https://www.google.com", MaxConcurrent: 2, MaxAttempts: 1}
	fetchers := make([]*scrapers.Fetcher, 3)
	for i, s := range rs {
		f, err := scrapers.NewFetcher(scrapers.Env{AllowPrivateNetworks: true, Politeness: s.Politeness()}, site)
		if err != nil {
			t.Fatal(err)
		}
		fetchers[i] = f
	}
	var wg sync.WaitGroup
	for i := range 18 {
		wg.Go(func() {
			if _, err := fetchers[i%3].Get(context.Background(), srv.URL+"/search?q="+strconv.Itoa(i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak != 2 {
		t.Fatalf("three replicas' fetchers had %d requests in flight; the site's MaxConcurrent is 2", peak)
	}
	limited.Store(true)
	if _, err := fetchers[0].Get(context.Background(), srv.URL+"/search?q=x"); err == nil {
		t.Fatal("the 429 was no error")
	}
	before := asked
	for _, f := range fetchers[1:] {
		_, err := f.Get(context.Background(), srv.URL+"/search?q=y")
		var held *scrapers.HeldError
		if !errors.As(err, &held) || !strings.Contains(err.Error(), "Google was not asked") {
			t.Fatalf("err = %v, want the hold the 429 put on every replica", err)
		}
	}
	if asked != before {
		t.Fatalf("the held site was asked %d more times", asked-before)
	}
}

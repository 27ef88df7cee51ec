package redisstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

// fast fails t when fn took longer than the fallback budget.
func fast(t *testing.T, what string, budget time.Duration, fn func()) {
	t.Helper()
	start := time.Now()
	fn()
	if took := time.Since(start); took > budget {
		t.Errorf("%s took %v while Redis is down, want < %v", what, took, budget)
	}
}

func metricValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum, found := 0.0, false
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			found = true
			if m.GetGauge() != nil {
				sum += m.GetGauge().GetValue()
			}
			if m.GetCounter() != nil {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	if !found && name == "redis_up" {
		t.Fatalf("metric %s not registered", name)
	}
	return sum
}

func TestKillRedisFallsBackAndRecovers(t *testing.T) {
	srv := redistest.StartProcess(t)
	regA := prometheus.NewRegistry()
	base := Options{Prefix: testPrefix(), Timeout: 250 * time.Millisecond, ProbeInterval: 100 * time.Millisecond,
		CallTTL: 3 * time.Second, Heartbeat: time.Second}
	oa := base
	oa.Registerer = regA
	a := replicas(t, srv.URL, 1, oa)[0]
	b := replicas(t, srv.URL, 1, base)[0]
	ctx := context.Background()
	const budget = 300 * time.Millisecond

	if v := metricValue(t, regA, "redis_up"); v != 1 {
		t.Fatalf("redis_up = %v before the fault, want 1", v)
	}
	h := license.Hash("known-key")
	_ = a.Licenses().Save(ctx, h, license.Entry{Verdict: license.Verdict{Status: license.Valid}, LastValidAt: time.Now()}, time.Hour)
	if _, ok, _ := b.Licenses().Load(ctx, h); !ok { // B learns it through Redis
		t.Fatal("B did not see A's verdict")
	}
	kB := calls.Key{License: h, Thread: "on-b"}
	callB := startSlow(t, b.Calls(), kB, 0)

	srv.Kill(t)

	fast(t, "Load of a verdict B loaded before", budget, func() {
		e, ok, err := b.Licenses().Load(ctx, h)
		if err != nil || !ok || e.Verdict.Status != license.Valid {
			t.Errorf("Load during the fault = (%+v, %v, %v), want the mirrored valid entry", e, ok, err)
		}
	})
	waitFor(t, time.Second, "A to notice the fault", func() bool { return !a.Health().Up })
	hNew := license.Hash("new-during-fault")
	fast(t, "Save", budget, func() {
		if err := a.Licenses().Save(ctx, hNew, license.Entry{Verdict: license.Verdict{Status: license.Expired}}, time.Hour); err != nil {
			t.Errorf("Save: %v", err)
		}
	})
	fast(t, "Load", budget, func() {
		if e, ok, _ := a.Licenses().Load(ctx, hNew); !ok || e.Verdict.Status != license.Expired {
			t.Errorf("Load of an entry saved during the fault: %+v %v", e, ok)
		}
	})
	fast(t, "Lock", budget, func() {
		if _, ok, err := a.Licenses().Lock(ctx, hNew, time.Second); !ok || err != nil {
			t.Errorf("Lock during the fault = (%v, %v), want granted (fail open)", ok, err)
		}
	})
	fast(t, "Allow", budget, func() {
		for i := range 2 {
			if ok, _, err := a.Limiter().Allow(ctx, h, "amazon", 2); !ok || err != nil {
				t.Errorf("Allow %d during the fault = (%v, %v)", i, ok, err)
			}
		}
		if ok, retry, _ := a.Limiter().Allow(ctx, h, "amazon", 2); ok || retry <= 0 {
			t.Errorf("the local limit did not hold during the fault: ok=%v retry=%v", ok, retry)
		}
	})
	fast(t, "Acquire", budget, func() {
		rel, ok, err := a.Limiter().Acquire(ctx, h, 1)
		if !ok || err != nil {
			t.Fatalf("Acquire during the fault = (%v, %v)", ok, err)
		}
		if _, ok, _ := a.Limiter().Acquire(ctx, h, 1); ok {
			t.Error("the local concurrency limit did not hold")
		}
		rel()
	})
	var id string
	fast(t, "Put/Get", budget, func() {
		var err error
		id, err = a.Results().Put(ctx, h, results.Stored{Plugin: "amazon", Tool: "scrape"})
		if err != nil {
			t.Fatalf("Put: %v", err)
		}
		if st, err := a.Results().Get(ctx, h, id); err != nil || st.Plugin != "amazon" {
			t.Errorf("Get of a result stored during the fault: %v", err)
		}
		// The other replica says where it is, not that there is none.
		var elsewhere *results.HeldElsewhereError
		if _, err := b.Results().Get(ctx, h, id); !errors.As(err, &elsewhere) || elsewhere.Replica != a.ReplicaID() {
			t.Errorf("Get on another replica: %v, want it held by %s", err, a.ReplicaID())
		}
	})
	kA := calls.Key{License: h, Thread: "on-a"}
	callA := startSlow(t, a.Calls(), kA, 5*time.Millisecond)
	fast(t, "Cancel (local only)", budget, func() {
		n, still, err := a.Calls().Cancel(ctx, kA, 5*time.Second)
		if n != 1 || still != 0 || err != nil {
			t.Errorf("local Cancel during the fault = (%d, %d, %v), want (1, 0, nil)", n, still, err)
		}
		n, still, _ = a.Calls().Cancel(ctx, kB, 5*time.Second)
		if n != 0 || still != 0 {
			t.Errorf("Cancel of another replica's thread during the fault = (%d, %d), want (0, 0)", n, still)
		}
	})
	<-callA.ended
	select {
	case <-callB.cancelled:
		t.Fatal("B's call was cancelled though no cancel could reach it")
	default:
	}
	// A call started on B during the fault.
	kLate := calls.Key{License: h, Thread: "late"}
	late := startSlow(t, b.Calls(), kLate, 0)

	hl := a.Health()
	if hl.Status() != "degraded" || hl.LastError == "" {
		t.Errorf("Health during the fault = %+v", hl)
	}
	if v := metricValue(t, regA, "redis_up"); v != 0 {
		t.Errorf("redis_up = %v during the fault, want 0", v)
	}
	if v := metricValue(t, regA, "redis_fallbacks_total"); v < 5 {
		t.Errorf("redis_fallbacks_total = %v, want the fallbacks counted", v)
	}

	srv.Restart(t)
	waitFor(t, 3*time.Second, "both replicas to recover", func() bool { return a.Health().OK() && b.Health().OK() })
	if v := metricValue(t, regA, "redis_up"); v != 1 {
		t.Errorf("redis_up = %v after recovery, want 1", v)
	}
	// The restarted Redis is empty, yet B's calls are registered again by
	// the heartbeat that follows the recovery: a cancel from A reaches them.
	waitFor(t, 2*time.Second, "B's calls to be registered again", func() bool {
		return raw(t, srv.URL).Exists(ctx, a.callsKey(kLate), a.callsKey(kB)).Val() == 2
	})
	n, still, err := a.Calls().Cancel(ctx, kLate, 5*time.Second)
	if n != 1 || still != 0 || err != nil {
		t.Fatalf("Cancel after recovery = (%d, %d, %v), want (1, 0, nil)", n, still, err)
	}
	<-late.ended
	if n, _, _ := a.Calls().Cancel(ctx, kB, 5*time.Second); n != 1 {
		t.Fatalf("Cancel of the call B ran through the fault = %d, want 1", n)
	}
	<-callB.ended
	// Shared again: one lock holder, one window.
	if _, ok, _ := a.Licenses().Lock(ctx, h, time.Second); !ok {
		t.Fatal("Lock after recovery refused")
	}
	if _, ok, _ := b.Licenses().Lock(ctx, h, time.Second); ok {
		t.Fatal("two lock holders after recovery")
	}
	for i := range 3 {
		if ok, _, _ := []*Store{a, b}[i%2].Limiter().Allow(ctx, h, "walmart", 3); !ok {
			t.Fatalf("Allow %d after recovery refused", i)
		}
	}
	if ok, _, _ := b.Limiter().Allow(ctx, h, "walmart", 3); ok {
		t.Fatal("the shared limit does not hold after recovery")
	}
	// The result stored on A during the fault is still readable there.
	if _, err := a.Results().Get(ctx, h, id); err != nil {
		t.Errorf("Get of the result stored during the fault, after recovery: %v", err)
	}
}

func TestFrozenRedisTimesOut(t *testing.T) {
	srv := redistest.StartProcess(t)
	fz := newFreezer(t, srv.Addr)
	const timeout = 150 * time.Millisecond
	s := replicas(t, fz.url(), 1, Options{Timeout: timeout, ProbeInterval: 100 * time.Millisecond})[0]
	ctx := context.Background()
	h := license.Hash("frozen")
	if err := s.Licenses().Save(ctx, h, license.Entry{Verdict: license.Verdict{Status: license.Valid}}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if !s.Health().Up {
		t.Fatal("not up before the freeze")
	}
	fz.frozen.Store(true)
	start := time.Now()
	_, ok, err := s.Licenses().Load(ctx, h)
	first := time.Since(start)
	if !ok || err != nil {
		t.Fatalf("Load while frozen = (%v, %v), want the local copy", ok, err)
	}
	if first > timeout+150*time.Millisecond {
		t.Fatalf("first command while frozen took %v, want about the %v timeout", first, timeout)
	}
	fast(t, "Allow after the fault was noticed", 30*time.Millisecond, func() {
		_, _, _ = s.Limiter().Allow(ctx, h, "amazon", 10)
	})
	fast(t, "Cancel after the fault was noticed", 30*time.Millisecond, func() {
		_, _, _ = s.Calls().Cancel(ctx, calls.Key{License: h, Thread: "x"}, time.Second)
	})
	if s.Health().Up {
		t.Fatal("Health up while frozen")
	}
	fz.frozen.Store(false)
	waitFor(t, 5*time.Second, "recovery after the freeze", func() bool { return s.Health().Up })
	if ok, _, _ := s.Limiter().Allow(ctx, h, "x", 1); !ok {
		t.Fatal("Allow after recovery refused")
	}
	t.Logf("first command while frozen: %v", first)
}

func TestNewWhileRedisIsDown(t *testing.T) {
	srv := redistest.StartProcess(t)
	srv.Kill(t)
	start := time.Now()
	s := replicas(t, srv.URL, 1, Options{Timeout: 250 * time.Millisecond, ProbeInterval: 100 * time.Millisecond})[0]
	if took := time.Since(start); took > time.Second {
		t.Fatalf("New took %v with Redis down", took)
	}
	if h := s.Health(); h.Up || h.Status() != "degraded" || h.LastError == "" {
		t.Fatalf("Health = %+v, want degraded with the error", h)
	}
	ctx := context.Background()
	if ok, _, err := s.Limiter().Allow(ctx, "l", "p", 1); !ok || err != nil {
		t.Fatal("Allow refused while degraded")
	}
	srv.Restart(t)
	waitFor(t, 3*time.Second, "recovery", func() bool { return s.Health().OK() })
	k := calls.Key{License: "l", Thread: "t"}
	c := startSlow(t, s.Calls(), k, 0)
	if n, _, _ := s.Calls().Cancel(ctx, k, time.Second); n != 1 {
		t.Fatalf("Cancel = %d, want 1", n)
	}
	<-c.ended
}

func TestNewRejectsBadURLWithoutLeakingIt(t *testing.T) {
	for _, u := range []string{"", "http://example.com", "redis://:s3cretpw@127.0.0.1:6379/notadb", "redis://:s3cretpw@[::1", "rediss://u:s3cretpw@h:6380/0/1"} {
		s, err := New(context.Background(), u, Options{})
		if err == nil {
			_ = s.Close()
			t.Errorf("New(%q) accepted a bad URL", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("New's error repeats the password: %v", err)
		}
	}
}

func TestCloseIsIdempotentAndQuick(t *testing.T) {
	s := replicas(t, redistest.URL(t), 1, Options{})[0]
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Close took %v", took)
	}
}

// Every concern that falls back (Store.fallback) is one of the concerns
// whose series start at 0.
func TestFallbackConcernsStartAtZero(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	re := regexp.MustCompile(`\.fallback\("([a-z_]+)"\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			used++
			if !slices.Contains(concerns, m[1]) {
				t.Errorf("%s falls back for %q, which is not in concerns", f, m[1])
			}
		}
	}
	if used == 0 {
		t.Fatal("no fallback found in the sources")
	}
	reg := prometheus.NewRegistry()
	replicas(t, redistest.URL(t), 1, Options{Registerer: reg})
	mfs, err := reg.Gather()
	n := 0
	for _, mf := range mfs {
		if mf.GetName() == "redis_fallbacks_total" {
			for _, m := range mf.GetMetric() {
				if m.GetCounter().GetValue() == 0 {
					n++
				}
			}
		}
	}
	if err != nil || n != len(concerns) {
		t.Fatalf("%d redis_fallbacks_total series at start (%v), want %d", n, err, len(concerns))
	}
}

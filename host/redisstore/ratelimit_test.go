package redisstore

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	ctx := context.Background()
	lic := license.Hash("rl")
	for i := range 5 {
		ok, _, err := rs[i%3].Limiter().Allow(ctx, lic, "amazon", 5)
		if err != nil || !ok {
			t.Fatalf("call %d refused: ok=%v err=%v", i, ok, err)
		}
	}
	for i, s := range rs {
		ok, retry, err := s.Limiter().Allow(ctx, lic, "amazon", 5)
		if err != nil || ok {
			t.Fatalf("replica %d allowed a 6th call: ok=%v err=%v", i, ok, err)
		}
		if retry <= 0 || retry > time.Minute {
			t.Fatalf("retry after %v, want within (0, 1m]", retry)
		}
	}
	// Another plugin and another license have their own windows.
	if ok, _, _ := rs[0].Limiter().Allow(ctx, lic, "walmart", 5); !ok {
		t.Fatal("another plugin refused")
	}
	if ok, _, _ := rs[0].Limiter().Allow(ctx, license.Hash("other"), "amazon", 5); !ok {
		t.Fatal("another license refused")
	}
	// No limit: always allowed.
	if ok, _, _ := rs[0].Limiter().Allow(ctx, lic, "amazon", 0); !ok {
		t.Fatal("a zero limit refused")
	}
}

func TestRateLimitConcurrentExact(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	ctx := context.Background()
	lic := license.Hash("race")
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range 90 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _, err := rs[i%3].Limiter().Allow(ctx, lic, "youtube", 40); err == nil && ok {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != 40 {
		t.Fatalf("allowed %d of 90 concurrent calls, want exactly 40", got)
	}
}

func TestRateLimitWindowSlides(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	for _, s := range rs {
		s.rlWindow = 400 * time.Millisecond
	}
	ctx := context.Background()
	lic := license.Hash("slide")
	start := time.Now()
	for range 3 {
		if ok, _, _ := rs[0].Limiter().Allow(ctx, lic, "tiktok", 3); !ok {
			t.Fatal("refused under the limit")
		}
	}
	ok, retry, _ := rs[1].Limiter().Allow(ctx, lic, "tiktok", 3)
	if ok {
		t.Fatal("allowed over the limit")
	}
	if elapsed := time.Since(start); retry <= 0 || retry > 400*time.Millisecond-elapsed+50*time.Millisecond {
		t.Fatalf("retry after %v (elapsed %v), want until the oldest call leaves the 400ms window", retry, elapsed)
	}
	time.Sleep(retry + 20*time.Millisecond)
	if ok, _, _ := rs[1].Limiter().Allow(ctx, lic, "tiktok", 3); !ok {
		t.Fatal("still refused after the retry-after passed")
	}
}

func TestConcurrencySlotsShared(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	ctx := context.Background()
	lic := license.Hash("conc")
	r1, ok, err := rs[0].Limiter().Acquire(ctx, lic, 2)
	if !ok || err != nil {
		t.Fatal("first slot refused")
	}
	r2, ok, _ := rs[1].Limiter().Acquire(ctx, lic, 2)
	if !ok {
		t.Fatal("second slot refused")
	}
	if _, ok, _ := rs[0].Limiter().Acquire(ctx, lic, 2); ok {
		t.Fatal("third slot granted with max 2")
	}
	if _, ok, _ := rs[0].Limiter().Acquire(ctx, license.Hash("other"), 2); !ok {
		t.Fatal("another license's slot refused")
	}
	r2()
	r2() // twice is harmless
	r3, ok, _ := rs[0].Limiter().Acquire(ctx, lic, 2)
	if !ok {
		t.Fatal("slot refused after a release")
	}
	r1()
	r3()
	if rel, ok, _ := rs[0].Limiter().Acquire(ctx, lic, 0); !ok || rel == nil {
		t.Fatal("no limit refused")
	}
}

func TestConcurrencySlotOfDeadReplicaLapses(t *testing.T) {
	o := Options{Prefix: testPrefix(), CallTTL: 300 * time.Millisecond, Heartbeat: 80 * time.Millisecond}
	rs := replicas(t, redistest.URL(t), 2, o)
	ctx := context.Background()
	lic := license.Hash("lapse")
	if _, ok, _ := rs[1].Limiter().Acquire(ctx, lic, 1); !ok {
		t.Fatal("slot refused")
	}
	time.Sleep(3 * o.CallTTL) // held by heartbeats
	if _, ok, _ := rs[0].Limiter().Acquire(ctx, lic, 1); ok {
		t.Fatal("a held slot lapsed while its replica lives")
	}
	_ = rs[1].Close() // dies holding it
	waitFor(t, 2*time.Second, "the dead replica's slot to lapse", func() bool {
		rel, ok, _ := rs[0].Limiter().Acquire(ctx, lic, 1)
		if ok {
			rel()
		}
		return ok
	})
}

package redisstore

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redistest"
)

func TestSeenStatesOnceAcrossReplicas(t *testing.T) {
	url := redistest.URL(t)
	rs := replicas(t, url, 3, Options{})
	ctx := context.Background()
	const state = "50123.nonce-abc_DEF"
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, err := rs[i%3].SeenStates().FirstUse(ctx, state)
			if err != nil {
				t.Errorf("FirstUse: %v", err)
			}
			if first {
				firsts.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := firsts.Load(); n != 1 {
		t.Fatalf("%d first uses of one state across replicas, want 1", n)
	}
	if first, _ := rs[0].SeenStates().FirstUse(ctx, "50123.other"); !first {
		t.Fatal("another state is not new")
	}
	c := raw(t, url)
	keys := c.Keys(ctx, rs[0].opts.Prefix+"oauth-state:*").Val()
	if len(keys) != 2 {
		t.Fatalf("keys = %v, want 2", keys)
	}
	for _, k := range keys {
		if strings.Contains(k, "nonce") || strings.Contains(k, "50123") {
			t.Fatalf("the state is stored in clear: %s", k)
		}
		if ttl := c.TTL(ctx, k).Val(); ttl <= 9*time.Minute || ttl > 10*time.Minute {
			t.Errorf("TTL %v, want 10m", ttl)
		}
	}
}

func TestSeenStatesFallBack(t *testing.T) {
	srv := redistest.StartProcess(t)
	s := replicas(t, srv.URL, 1, Options{Timeout: 250 * time.Millisecond, ProbeInterval: 100 * time.Millisecond})[0]
	ctx := context.Background()
	if first, _ := s.SeenStates().FirstUse(ctx, "1.a"); !first {
		t.Fatal("not first")
	}
	srv.Kill(t)
	fast(t, "FirstUse", 300*time.Millisecond, func() {
		if first, err := s.SeenStates().FirstUse(ctx, "1.a"); first || err != nil {
			t.Errorf("a state used before the fault is new again: first=%v err=%v", first, err)
		}
		if first, err := s.SeenStates().FirstUse(ctx, "1.b"); !first || err != nil {
			t.Errorf("a new state during the fault: first=%v err=%v", first, err)
		}
		if first, _ := s.SeenStates().FirstUse(ctx, "1.b"); first {
			t.Error("used twice during the fault")
		}
	})
	if ok, detail := s.Check(); ok || !strings.Contains(detail, "unreachable") {
		t.Errorf("Check during the fault = (%v, %q)", ok, detail)
	}
}

package redisstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

func TestLicenseSharedAndHashed(t *testing.T) {
	url := redistest.URL(t)
	rs := replicas(t, url, 2, Options{})
	a, b := rs[0].Licenses(), rs[1].Licenses()
	ctx := context.Background()
	const key = "SECRET-KEY-123"
	h := license.Hash(key)
	plan := "team"
	checked := time.Now().UTC().Truncate(time.Second)
	want := license.Entry{Verdict: license.Verdict{Status: license.Valid, Plan: &plan}, CheckedAt: checked, LastValidAt: checked}

	if _, ok, err := b.Load(ctx, h); ok || err != nil {
		t.Fatalf("Load before Save: ok=%v err=%v", ok, err)
	}
	if err := a.Save(ctx, h, want, time.Hour); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Load(ctx, h)
	if err != nil || !ok {
		t.Fatalf("Load on the other replica: ok=%v err=%v", ok, err)
	}
	if got.Verdict.Status != license.Valid || got.Verdict.Plan == nil || *got.Verdict.Plan != "team" || !got.CheckedAt.Equal(checked) || !got.LastValidAt.Equal(checked) {
		t.Fatalf("Load = %+v, want %+v", got, want)
	}

	// Stored under the hash, with the grace as its lifetime; the key never appears.
	c := raw(t, url)
	keys, err := c.Keys(ctx, rs[0].opts.Prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != rs[0].opts.Prefix+"lic:"+h {
		t.Fatalf("keys = %v, want one lic:<hash>", keys)
	}
	val, _ := c.Get(ctx, keys[0]).Result()
	for _, s := range append(keys, val) {
		if contains(s, key) {
			t.Fatalf("the license key is stored in clear: %q", s)
		}
	}
	if ttl := c.PTTL(ctx, keys[0]).Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("PTTL = %v, want about 1h", ttl)
	}
}

func contains(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && (func() bool {
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				return true
			}
		}
		return false
	})()
}

func TestLicenseEntryExpires(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	ctx := context.Background()
	h := license.Hash("k-expires")
	if err := rs[0].Licenses().Save(ctx, h, license.Entry{Verdict: license.Verdict{Status: license.Revoked}}, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := rs[1].Licenses().Load(ctx, h); !ok {
		t.Fatal("entry missing right after Save")
	}
	time.Sleep(250 * time.Millisecond)
	if _, ok, _ := rs[1].Licenses().Load(ctx, h); ok {
		t.Fatal("entry still there after its lifetime")
	}
	// A zero lifetime keeps nothing.
	_ = rs[0].Licenses().Save(ctx, h, license.Entry{Verdict: license.Verdict{Status: license.Valid}}, 0)
	if _, ok, _ := rs[1].Licenses().Load(ctx, h); ok {
		t.Fatal("entry saved with zero lifetime is there")
	}
}

func TestLicenseCorruptEntryIsAMiss(t *testing.T) {
	url := redistest.URL(t)
	rs := replicas(t, url, 1, Options{})
	ctx := context.Background()
	h := license.Hash("k-corrupt")
	raw(t, url).Set(ctx, rs[0].opts.Prefix+"lic:"+h, "{not json", time.Minute)
	if _, ok, err := rs[0].Licenses().Load(ctx, h); ok || err != nil {
		t.Fatalf("corrupt entry: ok=%v err=%v, want a plain miss", ok, err)
	}
}

func TestLicenseLockOneWinnerAmongThree(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	ctx := context.Background()
	h := license.Hash("new-key")
	for round := range 3 {
		var (
			mu      sync.Mutex
			winners int
			unlocks []func()
			wg      sync.WaitGroup
			start   = make(chan struct{})
		)
		for _, s := range rs {
			for range 4 { // several goroutines per replica too
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					unlock, ok, err := s.Licenses().Lock(ctx, h, 5*time.Second)
					if err != nil {
						t.Errorf("Lock: %v", err)
						return
					}
					if ok {
						mu.Lock()
						winners++
						unlocks = append(unlocks, unlock)
						mu.Unlock()
					}
				}()
			}
		}
		close(start)
		wg.Wait()
		if winners != 1 {
			t.Fatalf("round %d: %d holders of the lock, want 1", round, winners)
		}
		unlocks[0]() // released: the next round has a winner again
	}
}

func TestLicenseLockLapsesAndUnlockIsOwnersOnly(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	ctx := context.Background()
	h := license.Hash("lapse")
	unlockA, ok, _ := rs[0].Licenses().Lock(ctx, h, 100*time.Millisecond)
	if !ok {
		t.Fatal("first Lock refused")
	}
	if _, ok, _ := rs[1].Licenses().Lock(ctx, h, time.Second); ok {
		t.Fatal("second Lock granted while held")
	}
	time.Sleep(150 * time.Millisecond)
	unlockB, ok, _ := rs[1].Licenses().Lock(ctx, h, time.Second)
	if !ok {
		t.Fatal("Lock not granted after the holder's lock lapsed")
	}
	unlockA() // A's lapsed lock must not release B's
	if _, ok, _ := rs[0].Licenses().Lock(ctx, h, time.Second); ok {
		t.Fatal("a stale unlock released another holder's lock")
	}
	unlockB()
	if _, ok, _ := rs[0].Licenses().Lock(ctx, h, time.Second); !ok {
		t.Fatal("Lock refused after unlock")
	}
}

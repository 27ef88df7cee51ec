package scrapers

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// peak runs n requests through p for slot, each holding its lease for
// hold and releasing it with after, and returns the most in flight at once
// and the starts.
func peak(t *testing.T, p Politeness, slot Slot, n int, hold, after time.Duration) (int32, []time.Time) {
	t.Helper()
	var cur, most atomic.Int32
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	for range n {
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

func TestLocalPolitenessLimitsSlotsAndSpacing(t *testing.T) {
	p := &LocalPoliteness{}
	if m, _ := peak(t, p, Slot{Key: "host:a", Limit: 2}, 8, 20*time.Millisecond, 0); m != 2 {
		t.Fatalf("%d in flight at once, limit 2", m)
	}
	_, starts := peak(t, p, Slot{Key: "host:b", Limit: 4, Interval: 50 * time.Millisecond}, 4, 0, 0)
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 40*time.Millisecond {
			t.Fatalf("starts %v apart, interval 50ms", gap)
		}
	}
	// A release's pause keeps the slot taken after the request: with one
	// slot and a 60 ms pause, two quick requests start 60 ms apart.
	_, starts = peak(t, p, Slot{Key: "host:c", Limit: 1}, 2, 0, 60*time.Millisecond)
	if gap := starts[1].Sub(starts[0]); gap < 50*time.Millisecond {
		t.Fatalf("second request %v after the first, pause 60ms", gap)
	}
}

func TestLocalPolitenessHolds(t *testing.T) {
	p := &LocalPoliteness{}
	ctx := context.Background()
	p.Hold(ctx, "host:a", ExitDirect, time.Minute, "HTTP 429 with Retry-After")
	p.Hold(ctx, "host:a", ExitDirect, time.Second, "shorter") // never shortens
	start := time.Now()
	_, err := p.Acquire(ctx, Slot{Key: "host:a", Exit: ExitDirect, Limit: 2})
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) || held.Wait < 55*time.Second || held.Reason != "HTTP 429 with Retry-After" {
		t.Fatalf("err = %v, want a HeldError of about a minute for the 429", err)
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Fatal("a long hold made the caller wait instead of answering")
	}
	if want := "a is held off for 1m0s more (HTTP 429 with Retry-After)"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	// Another exit (a proxy) is not held.
	if l, err := p.Acquire(ctx, Slot{Key: "host:a", Exit: "proxy-0", Limit: 2}); err != nil {
		t.Fatalf("proxy exit: %v", err)
	} else {
		l.Release(0)
	}
	// A short hold is waited out when it fits.
	p.Hold(ctx, "host:b", ExitDirect, 80*time.Millisecond, "HTTP 503 with Retry-After")
	start = time.Now()
	l, err := p.Acquire(ctx, Slot{Key: "host:b", Exit: ExitDirect, Limit: 1})
	if err != nil || time.Since(start) < 60*time.Millisecond {
		t.Fatalf("short hold: err %v after %v, want a wait of about 80ms", err, time.Since(start))
	}
	l.Release(0)
	// ... unless the caller's deadline comes first.
	p.Hold(ctx, "host:c", ExitDirect, 1500*time.Millisecond, "captcha")
	dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(dctx, Slot{Key: "host:c", Exit: ExitDirect, Limit: 1}); !errors.As(err, &held) {
		t.Fatalf("err = %v, want a HeldError at once: the hold outlasts the deadline", err)
	}
	// Holds are cut at MaxHold.
	p.Hold(ctx, "host:d", ExitDirect, 24*time.Hour, "x")
	if _, err := p.Acquire(ctx, Slot{Key: "host:d", Exit: ExitDirect, Limit: 1}); !errors.As(err, &held) || held.Wait > MaxHold {
		t.Fatalf("err = %v, want a hold of at most %v", err, MaxHold)
	}
}

func TestLocalPolitenessForgetsIdleKeys(t *testing.T) {
	p := &LocalPoliteness{}
	for i := range 3000 {
		l, err := p.Acquire(context.Background(), Slot{Key: "host:" + string(rune('a'+i%26)) + time.Duration(i).String(), Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		l.Release(0)
	}
	p.mu.Lock()
	n := len(p.keys)
	p.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d idle keys kept", n)
	}
}

func TestLocalPolitenessStopsWaitingWithTheCall(t *testing.T) {
	p := &LocalPoliteness{}
	l, err := p.Acquire(context.Background(), Slot{Key: "k", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx, Slot{Key: "k", Limit: 1}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}

package oauthpage

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)} }
func firstUse(t *testing.T, s SeenStates, state string) bool {
	t.Helper()
	first, err := s.FirstUse(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	return first
}

func TestMemorySeenOnce(t *testing.T) {
	var m MemorySeen // the zero value is ready
	if !firstUse(t, &m, "8000.a") {
		t.Fatal("a new state is not first")
	}
	if firstUse(t, &m, "8000.a") {
		t.Error("a used state is first again")
	}
	if !firstUse(t, &m, "8000.b") {
		t.Error("another state is not first")
	}
}

func TestMemorySeenExpires(t *testing.T) {
	c := newClock()
	m := &MemorySeen{Now: c.now}
	firstUse(t, m, "8000.a")
	c.add(DefaultSeenTTL - time.Second)
	if firstUse(t, m, "8000.a") {
		t.Fatal("forgotten before the TTL")
	}
	c.add(time.Second)
	if !firstUse(t, m, "8000.a") {
		t.Fatal("remembered past the TTL")
	}
	// The earlier use's entry leaving the queue must not forget the new use.
	c.add(time.Minute)
	firstUse(t, m, "8000.other")
	if firstUse(t, m, "8000.a") {
		t.Error("the second use was forgotten with the first")
	}
	if m.Len() != 2 {
		t.Errorf("Len %d, want 2", m.Len())
	}
	c.add(DefaultSeenTTL)
	firstUse(t, m, "8000.c")
	if m.Len() != 1 {
		t.Errorf("Len %d after everything expired, want 1", m.Len())
	}
}

func TestMemorySeenBounded(t *testing.T) {
	c := newClock()
	m := &MemorySeen{Now: c.now, Max: 100, TTL: time.Hour}
	for i := range 1000 {
		c.add(time.Millisecond)
		if !firstUse(t, m, fmt.Sprintf("8000.n%d", i)) {
			t.Fatalf("state %d not first", i)
		}
		if m.Len() > 100 {
			t.Fatalf("Len %d over Max", m.Len())
		}
	}
	// The newest are still refused, the oldest were let go.
	if firstUse(t, m, "8000.n999") || firstUse(t, m, "8000.n900") {
		t.Error("a recent state was forgotten")
	}
	if !firstUse(t, m, "8000.n0") {
		t.Error("the oldest state was kept past Max")
	}
	if len(m.order)-m.head > 2*100+1024 {
		t.Errorf("queue holds %d entries", len(m.order)-m.head)
	}
}

func TestMemorySeenConcurrent(t *testing.T) {
	var m MemorySeen
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			if first, _ := m.FirstUse(context.Background(), "8000.race"); first {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Errorf("%d callers were first, want 1", wins.Load())
	}
}

package resultcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

var errDeadline = errors.New("deadline")

// blockingRun is a run that adds one item and waits for release (or its
// context); runs counts its starts.
type blockingRun struct {
	runs    atomic.Int64
	release chan struct{}
	err     error
	partial bool
}

func newBlockingRun() *blockingRun { return &blockingRun{release: make(chan struct{})} }

func (b *blockingRun) run(ctx context.Context, call *scrapers.Call) error {
	b.runs.Add(1)
	call.Progress("working", 1, 2)
	call.Add(map[string]any{"url": "https://example.com/a"})
	if b.partial {
		call.MarkPartial("half")
	}
	select {
	case <-b.release:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func start(key string, r Run) Start {
	return Start{Key: key, MaxAge: -1, Context: context.Background(), Deadline: time.Minute, DeadlineCause: errDeadline, Run: r}
}

func waitDone(t *testing.T, m *Member) {
	t.Helper()
	select {
	case <-m.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not answer")
	}
}

func TestConcurrentCallsShareOneRunAndTheAnswerIsStored(t *testing.T) {
	c := New(Options{TTL: time.Minute})
	b := newBlockingRun()
	var heard sync.Map
	members := make([]*Member, 5)
	for i := range members {
		s := start("k", b.run)
		s.Progress = func(msg string, done, total int) { heard.Store(i, msg) }
		members[i] = c.Join(s)
	}
	// Every member is there before the run reports: wait for its item.
	for members[0].Call().Len() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(b.release)
	for i, m := range members {
		waitDone(t, m)
		runErr, cause, entry := m.Result()
		if runErr != nil || cause != nil || entry != nil {
			t.Fatalf("member %d: %v %v %v", i, runErr, cause, entry)
		}
		if m.Call().Len() != 1 {
			t.Fatalf("member %d sees %d items", i, m.Call().Len())
		}
		if m.Ran() != (i == 0) {
			t.Fatalf("member %d Ran = %v; only the starter's run ran", i, m.Ran())
		}
	}
	if n := b.runs.Load(); n != 1 {
		t.Fatalf("%d runs for 5 identical calls, want 1", n)
	}
	n := 0
	heard.Range(func(any, any) bool { n++; return true })
	if n == 0 {
		t.Fatal("no member heard the run's progress")
	}
	e, ok := c.Lookup(context.Background(), "k", -1)
	if !ok || len(e.Items) != 1 || e.FetchedAt.IsZero() {
		t.Fatalf("lookup after the run: %v %+v", ok, e)
	}
	if _, ok := c.Lookup(context.Background(), "other", -1); ok {
		t.Fatal("another key hit")
	}
}

func TestLookupHonoursMaxAgeAndTTL(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c := New(Options{TTL: 5 * time.Minute, Now: clock, Store: &Memory{Now: clock}})
	b := newBlockingRun()
	close(b.release)
	waitDone(t, c.Join(start("k", b.run)))
	now = now.Add(90 * time.Second)
	ctx := context.Background()
	if _, ok := c.Lookup(ctx, "k", 0); ok {
		t.Fatal("max age 0 hit: it must force a fresh fetch")
	}
	if _, ok := c.Lookup(ctx, "k", time.Minute); ok {
		t.Fatal("a 90 s old answer hit a 60 s max age")
	}
	if e, ok := c.Lookup(ctx, "k", 2*time.Minute); !ok || now.Sub(e.FetchedAt) != 90*time.Second {
		t.Fatalf("a 90 s old answer missed a 120 s max age: %v %v", ok, e.FetchedAt)
	}
	if _, ok := c.Lookup(ctx, "k", time.Hour); !ok {
		t.Fatal("max age above the TTL should still hit within the TTL")
	}
	now = now.Add(4 * time.Minute)
	if _, ok := c.Lookup(ctx, "k", time.Hour); ok {
		t.Fatal("an answer past the TTL hit")
	}
}

func TestPartialFailedAndCancelledRunsAreSharedButNotStored(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*blockingRun)
	}{
		{"partial", func(b *blockingRun) { b.partial = true }},
		{"failed", func(b *blockingRun) { b.err = &scrapers.BlockedError{Site: "Example", Kind: scrapers.BlockCaptcha} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{TTL: time.Minute})
			b := newBlockingRun()
			tc.mod(b)
			m1, m2 := c.Join(start("k", b.run)), c.Join(start("k", b.run))
			close(b.release)
			waitDone(t, m1)
			waitDone(t, m2)
			e1, _, _ := m1.Result()
			e2, _, _ := m2.Result()
			if b.runs.Load() != 1 || e1 != e2 {
				t.Fatalf("runs %d, errors %v / %v: both members share the one run", b.runs.Load(), e1, e2)
			}
			if _, ok := c.Lookup(context.Background(), "k", -1); ok {
				t.Fatal("a " + tc.name + " result was stored")
			}
		})
	}
}

func TestLeaveCancelsTheRunOnlyWhenNobodyElseWaits(t *testing.T) {
	c := New(Options{TTL: time.Minute})
	b := newBlockingRun()
	m1, m2 := c.Join(start("k", b.run)), c.Join(start("k", b.run))
	cancelled := errors.New("cancelled by thread")
	if m1.Leave(cancelled) {
		t.Fatal("the first member to leave was told the run ends, with another member waiting")
	}
	select {
	case <-m2.Done():
		t.Fatal("the run ended when one of two members left")
	case <-time.After(50 * time.Millisecond):
	}
	// A caller arriving now joins the same run.
	m3 := c.Join(start("k", b.run))
	if m2.Leave(cancelled) {
		t.Fatal("m2 was told the run ends, with m3 waiting")
	}
	select {
	case <-m3.Done():
		t.Fatal("the run ended while m3 waited")
	case <-time.After(50 * time.Millisecond):
	}
	if !m3.Leave(cancelled) {
		t.Fatal("the last member to leave was not told to wait for the run's end")
	}
	waitDone(t, m3)
	_, cause, _ := m3.Result()
	if !errors.Is(cause, cancelled) {
		t.Fatalf("the run's cause = %v, want the last member's", cause)
	}
	if b.runs.Load() != 1 {
		t.Fatalf("%d runs", b.runs.Load())
	}
	// A new caller after the run ended starts afresh (nothing was stored).
	b2 := newBlockingRun()
	close(b2.release)
	m4 := c.Join(start("k", b2.run))
	waitDone(t, m4)
	if b2.runs.Load() != 1 || !m4.Ran() {
		t.Fatal("a call after a cancelled run did not run")
	}
}

func TestARunThatIgnoresItsContextIsAnsweredAfterTheGrace(t *testing.T) {
	c := New(Options{TTL: time.Minute, Grace: 30 * time.Millisecond})
	stuck := make(chan struct{})
	defer close(stuck)
	s := start("k", func(ctx context.Context, call *scrapers.Call) error {
		call.Add(map[string]any{"url": "x"})
		<-stuck
		return nil
	})
	s.Deadline = 20 * time.Millisecond
	m := c.Join(s)
	waitDone(t, m)
	runErr, cause, _ := m.Result()
	if !errors.Is(cause, errDeadline) || !errors.Is(runErr, errDeadline) {
		t.Fatalf("run error %v, cause %v; want the deadline", runErr, cause)
	}
	if m.Call().Len() != 1 {
		t.Fatal("what the run gathered is gone")
	}
}

func TestOffCacheRunsEveryCallPrivately(t *testing.T) {
	c := New(Options{})
	b := newBlockingRun()
	m1, m2 := c.Join(start("k", b.run)), c.Join(start("k", b.run))
	close(b.release)
	waitDone(t, m1)
	waitDone(t, m2)
	if b.runs.Load() != 2 {
		t.Fatalf("%d runs with the cache off, want 2", b.runs.Load())
	}
	if _, ok := c.Lookup(context.Background(), "k", -1); ok {
		t.Fatal("the off cache answered")
	}
}

func TestAPanickingRunIsAnError(t *testing.T) {
	c := New(Options{TTL: time.Minute})
	m := c.Join(start("k", func(context.Context, *scrapers.Call) error { panic("boom") }))
	waitDone(t, m)
	if err, _, _ := m.Result(); err == nil {
		t.Fatal("no error from a panicking run")
	}
}

func TestMemoryIsBounded(t *testing.T) {
	m := &Memory{MaxBytes: 64 << 10}
	ctx := context.Background()
	item := func(n int) Entry {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a'
		}
		return Entry{Items: []json.RawMessage{append(append([]byte(`"`), b...), '"')}, FetchedAt: time.Now()}
	}
	_ = m.Put(ctx, "huge", item(10<<10), time.Minute) // over an eighth of the bound
	if _, ok, _ := m.Get(ctx, "huge"); ok {
		t.Fatal("an entry larger than an eighth of the bound was kept")
	}
	for i := range 100 {
		_ = m.Put(ctx, fmt.Sprint(i), item(1<<10), time.Minute)
	}
	if m.bytes > m.MaxBytes || m.Len() >= 100 {
		t.Fatalf("%d bytes in %d entries, bound %d", m.bytes, m.Len(), m.MaxBytes)
	}
	if _, ok, _ := m.Get(ctx, "99"); !ok {
		t.Fatal("the newest entry was evicted")
	}
	if _, ok, _ := m.Get(ctx, "0"); ok {
		t.Fatal("the oldest entry survived")
	}
}

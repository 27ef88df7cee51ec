package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
)

// sharedRun counts runs across replicas; each adds one item and waits for
// release or its context.
type sharedRun struct {
	runs    atomic.Int64
	release chan struct{}
	ended   chan error
}

func newSharedRun() *sharedRun {
	return &sharedRun{release: make(chan struct{}), ended: make(chan error, 10)}
}

func (r *sharedRun) run(ctx context.Context, call *scrapers.Call) error {
	r.runs.Add(1)
	call.Add(map[string]any{"url": "https://example.com/p"})
	select {
	case <-r.release:
		return nil
	case <-ctx.Done():
		r.ended <- context.Cause(ctx)
		return ctx.Err()
	}
}

func caches(stores []*Store, leaseTTL time.Duration) []*resultcache.Cache {
	out := make([]*resultcache.Cache, len(stores))
	for i, s := range stores {
		rc := s.ResultCache()
		out[i] = resultcache.New(resultcache.Options{TTL: time.Minute, Store: rc, Leases: rc, Replica: s.ReplicaID(),
			LeaseTTL: leaseTTL, Poll: 50 * time.Millisecond, Logger: quiet})
	}
	return out
}

func join(c *resultcache.Cache, key string, run resultcache.Run) *resultcache.Member {
	return c.Join(resultcache.Start{Key: key, MaxAge: -1, Context: context.Background(), Deadline: time.Minute, Run: run})
}

func answered(t *testing.T, m *resultcache.Member, within time.Duration) {
	t.Helper()
	select {
	case <-m.Done():
	case <-time.After(within):
		t.Fatal("no answer")
	}
}

func TestResultCacheOneRunAcrossReplicas(t *testing.T) {
	cs := caches(replicas(t, redistest.URL(t), 3, Options{}), 3*time.Second)
	r := newSharedRun()
	m0 := join(cs[0], "q1", r.run)
	waitFor(t, 5*time.Second, "the first replica's run to start", func() bool { return r.runs.Load() == 1 })
	m1, m2 := join(cs[1], "q1", r.run), join(cs[2], "q1", r.run)
	time.Sleep(150 * time.Millisecond) // the others look, and wait
	close(r.release)
	for _, m := range []*resultcache.Member{m0, m1, m2} {
		answered(t, m, 5*time.Second)
	}
	if n := r.runs.Load(); n != 1 {
		t.Fatalf("%d runs of one question on three replicas, want 1", n)
	}
	for i, m := range []*resultcache.Member{m1, m2} {
		runErr, _, entry := m.Result()
		if runErr != nil || entry == nil || len(entry.Items) != 1 || m.Ran() {
			t.Fatalf("replica %d: err %v entry %+v ran %v; want the first replica's answer", i+1, runErr, entry, m.Ran())
		}
	}
	// Afterwards every replica answers from Redis.
	for i, c := range cs {
		e, ok := c.Lookup(context.Background(), "q1", -1)
		if !ok || len(e.Items) != 1 || e.FetchedAt.IsZero() {
			t.Fatalf("replica %d lookup: %v %+v", i, ok, e)
		}
	}
	var item map[string]any
	e, _ := cs[2].Lookup(context.Background(), "q1", -1)
	if json.Unmarshal(e.Items[0], &item) != nil || item["url"] != "https://example.com/p" {
		t.Fatalf("stored item %s", e.Items[0])
	}
}

func TestResultCacheWaiterTakesOverFromADeadLeader(t *testing.T) {
	stores := replicas(t, redistest.URL(t), 2, Options{})
	cs := caches(stores, 600*time.Millisecond)
	dead := newSharedRun() // never released: its replica dies
	defer close(dead.release)
	join(cs[0], "q2", dead.run)
	waitFor(t, 5*time.Second, "the leader's run", func() bool { return dead.runs.Load() == 1 })
	alive := newSharedRun()
	close(alive.release)
	m := join(cs[1], "q2", alive.run)
	select {
	case <-m.Done():
		t.Fatal("the waiter answered while the leader was alive")
	case <-time.After(300 * time.Millisecond):
	}
	_ = stores[0].Close() // the leader's replica dies: its lease lapses
	answered(t, m, 5*time.Second)
	if alive.runs.Load() != 1 || !m.Ran() {
		t.Fatalf("the waiter did not take over: runs %d ran %v", alive.runs.Load(), m.Ran())
	}
}

func TestResultCacheLeaderRunOutlivesItsCallerWhileAnotherReplicaWaits(t *testing.T) {
	cs := caches(replicas(t, redistest.URL(t), 2, Options{}), 600*time.Millisecond)
	r := newSharedRun()
	lead := join(cs[0], "q3", r.run)
	waitFor(t, 5*time.Second, "the run", func() bool { return r.runs.Load() == 1 })
	other := join(cs[1], "q3", r.run)
	time.Sleep(200 * time.Millisecond) // registered as a waiter
	cancelled := errors.New("cancelled by its user")
	if lead.Leave(cancelled) {
		t.Fatal("the leader's caller left and the run was cancelled, with another replica waiting")
	}
	select {
	case err := <-r.ended:
		t.Fatalf("the run ended (%v) while another replica waited", err)
	case <-time.After(400 * time.Millisecond):
	}
	close(r.release)
	answered(t, other, 5*time.Second)
	if _, _, e := other.Result(); e == nil || len(e.Items) != 1 {
		t.Fatalf("the waiting replica's answer: %+v", e)
	}

	// Both leave: the run stops once nobody waits.
	r2 := newSharedRun()
	defer close(r2.release)
	lead = join(cs[0], "q4", r2.run)
	waitFor(t, 5*time.Second, "the second run", func() bool { return r2.runs.Load() == 1 })
	other = join(cs[1], "q4", r2.run)
	time.Sleep(200 * time.Millisecond)
	lead.Leave(cancelled)
	other.Leave(cancelled)
	select {
	case err := <-r2.ended:
		if !errors.Is(err, cancelled) {
			t.Fatalf("the run ended with %v, want the caller's cancel", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the run went on after every caller on every replica left")
	}
}

func TestResultCacheWorksAloneWhileRedisIsDown(t *testing.T) {
	srv := redistest.StartProcess(t)
	stores := replicas(t, srv.URL, 1, Options{Timeout: 100 * time.Millisecond})
	c := caches(stores, time.Second)[0]
	srv.Kill(t)
	r := newSharedRun()
	close(r.release)
	m := join(c, "q5", r.run)
	answered(t, m, 5*time.Second)
	if !m.Ran() {
		t.Fatal("with Redis down the call did not run here")
	}
	if _, ok := c.Lookup(context.Background(), "q5", -1); !ok {
		t.Fatal("the answer was not kept in this replica's memory while Redis was down")
	}
}

package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

func TestCancelAcrossReplicas(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	a, b, c := rs[0].Calls(), rs[1].Calls(), rs[2].Calls()
	k := calls.Key{License: license.Hash("L1"), Thread: "thread-1"}
	otherThread := calls.Key{License: k.License, Thread: "thread-2"}
	otherLicense := calls.Key{License: license.Hash("L2"), Thread: "thread-1"}

	onC := startSlow(t, c, k, 30*time.Millisecond)
	onB := startSlow(t, b, k, 10*time.Millisecond)
	onA := startSlow(t, a, k, 0)
	keepT := startSlow(t, c, otherThread, 0)
	keepL := startSlow(t, b, otherLicense, 0)

	start := time.Now()
	n, still, err := a.Cancel(context.Background(), k, 5*time.Second)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || still != 0 {
		t.Fatalf("Cancel = (%d cancelled, %d still running), want (3, 0)", n, still)
	}
	if took > time.Second {
		t.Fatalf("Cancel took %v, want < 1s", took)
	}
	for name, c := range map[string]*slowCall{"A": onA, "B": onB, "C": onC} {
		select {
		case <-c.ended:
		default:
			t.Errorf("the call on %s had not ended when Cancel answered", name)
		}
	}
	for name, c := range map[string]*slowCall{"another thread": keepT, "another license": keepL} {
		select {
		case <-c.cancelled:
			t.Errorf("%s's call was cancelled", name)
		default:
		}
	}
	t.Logf("cancel across 3 replicas answered in %v", took)

	// Nothing left: a second cancel finds nothing.
	if n, still, _ := b.Cancel(context.Background(), k, time.Second); n != 0 || still != 0 {
		t.Fatalf("second Cancel = (%d, %d), want (0, 0)", n, still)
	}
}

func TestCancelReportsStillRunning(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	k := calls.Key{License: license.Hash("L"), Thread: "t"}
	stubborn := startSlow(t, rs[1].Calls(), k, -1) // never ends
	quick := startSlow(t, rs[1].Calls(), k, 0)
	start := time.Now()
	n, still, err := rs[0].Calls().Cancel(context.Background(), k, 300*time.Millisecond)
	if err != nil || n != 2 || still != 1 {
		t.Fatalf("Cancel = (%d, %d, %v), want (2, 1, nil)", n, still, err)
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 2*time.Second {
		t.Errorf("Cancel waited %v, want about 300ms", took)
	}
	<-stubborn.cancelled
	<-quick.ended
}

func TestCancelHonoursContext(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	k := calls.Key{License: license.Hash("L"), Thread: "t"}
	startSlow(t, rs[1].Calls(), k, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, still, _ := rs[0].Calls().Cancel(ctx, k, 5*time.Second)
	if n != 1 || still != 1 {
		t.Fatalf("Cancel = (%d, %d), want (1, 1)", n, still)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Cancel ignored its context: %v", took)
	}
}

func TestDeadReplicaLeavesNoPhantomCalls(t *testing.T) {
	url := redistest.URL(t)
	o := Options{Prefix: testPrefix(), CallTTL: 400 * time.Millisecond, Heartbeat: 100 * time.Millisecond}
	rs := replicas(t, url, 2, o)
	k := calls.Key{License: license.Hash("L"), Thread: "t"}
	startSlow(t, rs[1].Calls(), k, -1)

	// Alive past several lifetimes thanks to heartbeats.
	time.Sleep(3 * o.CallTTL)
	if got := raw(t, url).ZCard(context.Background(), rs[0].callsKey(k)).Val(); got != 1 {
		t.Fatalf("registered calls while the replica lives = %d, want 1", got)
	}
	// The replica dies: no more heartbeats, no done.
	_ = rs[1].Close() // stops heartbeats; done is never called
	time.Sleep(o.CallTTL + 100*time.Millisecond)
	start := time.Now()
	n, still, err := rs[0].Calls().Cancel(context.Background(), k, 5*time.Second)
	if err != nil || n != 0 || still != 0 {
		t.Fatalf("Cancel after the replica died = (%d, %d, %v), want (0, 0, nil)", n, still, err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Fatalf("Cancel waited %v for a dead replica's call", took)
	}
}

func TestDoneRemovesRegistration(t *testing.T) {
	url := redistest.URL(t)
	rs := replicas(t, url, 1, Options{})
	k := calls.Key{License: license.Hash("L"), Thread: "t"}
	done, err := rs[0].Calls().Start(context.Background(), k, func() {})
	if err != nil {
		t.Fatal(err)
	}
	c := raw(t, url)
	if got := c.ZCard(context.Background(), rs[0].callsKey(k)).Val(); got != 1 {
		t.Fatalf("registered = %d, want 1", got)
	}
	done()
	done() // twice is harmless
	if got := c.ZCard(context.Background(), rs[0].callsKey(k)).Val(); got != 0 {
		t.Fatalf("registered after done = %d, want 0", got)
	}
	rs[0].heartbeat() // must not bring it back
	if got := c.ZCard(context.Background(), rs[0].callsKey(k)).Val(); got != 0 {
		t.Fatalf("registered after a heartbeat = %d, want 0", got)
	}
}

func TestCancelStormManyCalls(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 3, Options{})
	k := calls.Key{License: license.Hash("L"), Thread: "storm"}
	var all []*slowCall
	for i := range 60 {
		all = append(all, startSlow(t, rs[i%3].Calls(), k, time.Duration(i%5)*time.Millisecond))
	}
	n, still, err := rs[1].Calls().Cancel(context.Background(), k, 5*time.Second)
	if err != nil || n != 60 || still != 0 {
		t.Fatalf("Cancel = (%d, %d, %v), want (60, 0, nil)", n, still, err)
	}
	for i, c := range all {
		select {
		case <-c.ended:
		default:
			t.Fatalf("call %d not ended", i)
		}
	}
}

package calls

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryCancelEndsOnlyThatKeyAndWaits(t *testing.T) {
	var m Memory
	ctx := context.Background()
	a, b := Key{License: "L1", Thread: "t"}, Key{License: "L2", Thread: "t"}
	var cancelledA, cancelledB atomic.Int32
	doneA1, _ := m.Start(ctx, a, func() { cancelledA.Add(1) })
	doneA2, _ := m.Start(ctx, a, func() { cancelledA.Add(1) })
	doneB, _ := m.Start(ctx, b, func() { cancelledB.Add(1) })
	defer doneB()
	go func() {
		time.Sleep(50 * time.Millisecond)
		doneA1()
		doneA2()
	}()
	start := time.Now()
	n, running, err := m.Cancel(ctx, a, time.Second)
	if err != nil || n != 2 || running != 0 {
		t.Fatalf("cancel: %d %d %v", n, running, err)
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatal("cancel answered before the calls ended")
	}
	if cancelledA.Load() != 2 || cancelledB.Load() != 0 {
		t.Fatalf("cancelled A %d, B %d", cancelledA.Load(), cancelledB.Load())
	}
	if m.Running(a) != 0 || m.Running(b) != 1 {
		t.Fatalf("running: %d %d", m.Running(a), m.Running(b))
	}
}

func TestMemoryCancelStopsWaitingAndCountsStillRunning(t *testing.T) {
	var m Memory
	k := Key{License: "L", Thread: "t"}
	var n atomic.Int32
	done, _ := m.Start(context.Background(), k, func() { n.Add(1) })
	defer done()
	cancelled, running, _ := m.Cancel(context.Background(), k, 30*time.Millisecond)
	if cancelled != 1 || running != 1 {
		t.Fatalf("a call that ignores its cancel: cancelled %d, still running %d", cancelled, running)
	}
	// A second cancel calls the cancel func again only once per call.
	m.Cancel(context.Background(), k, time.Millisecond)
	if n.Load() != 1 {
		t.Fatalf("cancel func called %d times", n.Load())
	}
	done()
	done() // twice is harmless
	if cancelled, _, _ := m.Cancel(context.Background(), k, time.Millisecond); cancelled != 0 {
		t.Fatalf("an ended call was cancelled again: %d", cancelled)
	}
}

func TestWaitEndedAndCountOpen(t *testing.T) {
	open, closed := make(chan struct{}), make(chan struct{})
	close(closed)
	ends := []<-chan struct{}{closed, open, open}
	if n := CountOpen(ends); n != 2 {
		t.Fatalf("CountOpen %d", n)
	}
	if n := WaitEnded(context.Background(), ends, 10*time.Millisecond); n != 2 {
		t.Fatalf("WaitEnded after the wait %d", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := WaitEnded(ctx, ends, time.Hour); n != 2 {
		t.Fatalf("WaitEnded with an ended context %d", n)
	}
	if n := WaitEnded(context.Background(), []<-chan struct{}{closed}, time.Hour); n != 0 {
		t.Fatalf("WaitEnded on closed %d", n)
	}
}

func TestMemoryCancelRequestEndsOnlyTheOneMatch(t *testing.T) {
	m := &Memory{}
	ctx := context.Background()
	var got sync.Map
	start := func(name string, r Request) func() {
		done, _ := m.StartRequest(ctx, r, func() { got.Store(name, true) })
		return done
	}
	mine := Request{License: "L1", Plugin: "p", ID: "7"}
	start("mine", mine)
	start("other license", Request{License: "L2", Plugin: "p", ID: "7"})
	start("other plugin", Request{License: "L1", Plugin: "q", ID: "7"})
	start("other id", Request{License: "L1", Plugin: "p", ID: `"7"`})
	if n, _ := m.CancelRequest(ctx, mine); n != 1 {
		t.Fatalf("matched %d, want 1", n)
	}
	for _, name := range []string{"other license", "other plugin", "other id"} {
		if _, ok := got.Load(name); ok {
			t.Errorf("cancelled %s", name)
		}
	}
	if _, ok := got.Load("mine"); !ok {
		t.Fatal("the call was not cancelled")
	}

	// Two calls share license, plugin and id: told apart by thread, or not
	// at all.
	a := Request{License: "L3", Plugin: "p", ID: "1", Thread: "a"}
	b := Request{License: "L3", Plugin: "p", ID: "1", Thread: "b"}
	doneA := start("a", a)
	start("b", b)
	if n, _ := m.CancelRequest(ctx, Request{License: "L3", Plugin: "p", ID: "1"}); n != 2 {
		t.Fatalf("a cancel without thread matched %d, want 2", n)
	}
	if _, ok := got.Load("a"); ok {
		t.Fatal("an ambiguous cancel ended a call")
	}
	if n, _ := m.CancelRequest(ctx, b); n != 1 {
		t.Fatalf("thread b matched %d", n)
	}
	if _, ok := got.Load("a"); ok {
		t.Fatal("thread b's cancel ended thread a's call")
	}
	doneA()
	if n, _ := m.CancelRequest(ctx, a); n != 0 {
		t.Fatalf("an ended call matched: %d", n)
	}
}

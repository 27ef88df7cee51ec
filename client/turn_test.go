package client

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gate holds a stand-in's tools/list answers until opened.
type gate struct {
	once   sync.Once
	open   chan struct{}
	waited atomic.Int32 // tools/list requests held
}

func newGate() *gate { return &gate{open: make(chan struct{})} }

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// hold has s hold every tools/list until the gate opens.
func (g *gate) hold(s *standIn) {
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if r.Method == http.MethodPost && rpcMethod(readBody(r)) == "tools/list" {
			g.waited.Add(1)
			<-g.open
		}
		return false
	})
}

func readBody(r *http.Request) string {
	b := make([]byte, 0, 512)
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	r.Body = readCloser(b)
	return string(b)
}

func connectedStandIn(t *testing.T) (*Client, *standIn) {
	t.Helper()
	s := newStandIn(t, standInOptions{}, readOnlyTool("find", "Finds."))
	c := &Client{Store: &MemoryStore{}, Lister: quickLister()}
	c.SetThirdPartyAllowed(context.Background(), true)
	if _, err := c.ConnectCustom(context.Background(), CustomPlugin{URL: s.URL(), Name: "Notes"}); err != nil {
		t.Fatal(err)
	}
	return c, s
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func toolsByName(t *testing.T, c *Client, id string) map[string]PluginTool {
	t.Helper()
	tools, err := c.Store.Tools(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]PluginTool{}
	for _, tl := range tools {
		m[tl.Name] = tl
	}
	return m
}

// TestCheckCallerGivingUpFailsNoOther: callers of one check share one
// listing; one that gives up gets its own context's error, the others get
// the check, and a listing whose callers all gave up is recorded when it
// ends.
func TestCheckCallerGivingUpFailsNoOther(t *testing.T) {
	c, s := connectedStandIn(t)
	s.addTool(readOnlyTool("summarize", "Summarizes."))
	g := newGate()
	g.hold(s)
	defer g.release()

	quitter, quit := context.WithCancel(context.Background())
	errA := make(chan error, 1)
	go func() { _, err := c.Check(quitter, "notes"); errA <- err }()
	waitFor(t, "the listing to reach the server", func() bool { return g.waited.Load() == 1 })
	resB := make(chan error, 1)
	var rowB InstalledPlugin
	go func() {
		var err error
		rowB, err = c.Check(context.Background(), "notes")
		resB <- err
	}()
	quit()
	if err := <-errA; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that gave up got %v, want context.Canceled", err)
	}
	time.Sleep(300 * time.Millisecond) // B joins the listing held at the gate
	g.release()
	if err := <-resB; err != nil || rowB.CheckFailure != CheckOK {
		t.Fatalf("the caller that waited got %v, %v", rowB, err)
	}
	if g.waited.Load() != 1 {
		t.Errorf("%d listings for concurrent checks, want one shared", g.waited.Load())
	}
	if tl, ok := toolsByName(t, c, "notes")["summarize"]; !ok || tl.Enabled || tl.Change != ChangeAdded {
		t.Errorf("the new tool = %+v, %t; want recorded, off, added", tl, ok)
	}

	// Every caller gives up: the listing is still recorded when it ends.
	s.addTool(readOnlyTool("translate", "Translates."))
	g2 := newGate()
	g2.hold(s)
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Check(short, "notes"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a check past its caller's deadline = %v", err)
	}
	g2.release()
	waitFor(t, "the abandoned listing to be recorded", func() bool {
		_, ok := toolsByName(t, c, "notes")["translate"]
		return ok
	})
}

// TestPrepareTurnWaitsAtMostTurnCheckWait: a turn waits on a stale
// plugin's check for at most TurnCheckWait, starts with the tools as last
// recorded, and the listing still running is recorded when it ends.
func TestPrepareTurnWaitsAtMostTurnCheckWait(t *testing.T) {
	c, s := connectedStandIn(t)
	ctx := context.Background()
	p, _ := c.Store.Plugin(ctx, "notes")
	p.CheckedAt = p.CheckedAt.Add(-10 * time.Minute) // five minutes old and more
	c.Store.PutPlugin(ctx, p)
	s.addTool(readOnlyTool("summarize", "Summarizes."))
	g := newGate()
	g.hold(s)
	defer g.release()

	start := time.Now()
	ready, err := c.PrepareTurn(ctx)
	waited := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if g.waited.Load() != 1 {
		t.Fatalf("the stale plugin was listed %d times", g.waited.Load())
	}
	select {
	case <-g.open:
		t.Fatal("the gate opened early")
	default:
	}
	if waited < TurnCheckWait-100*time.Millisecond {
		t.Errorf("the turn waited %v, less than TurnCheckWait (%v), on a listing still running", waited, TurnCheckWait)
	}
	if len(ready) != 1 || ready[0].Tool != "find" {
		t.Errorf("ready = %v, want the tools as last recorded", ready)
	}
	// A second turn joins the agent's running check rather than starting
	// another.
	if _, err := c.PrepareTurn(ctx); err != nil {
		t.Fatal(err)
	}
	if g.waited.Load() != 1 {
		t.Errorf("a second turn started another listing (%d)", g.waited.Load())
	}
	g.release()
	waitFor(t, "the late listing to be recorded", func() bool {
		_, ok := toolsByName(t, c, "notes")["summarize"]
		return ok
	})
	// After a turn: nothing is 200 seconds old now, so nothing is listed.
	before := len(s.seen())
	<-c.AfterTurn()
	if len(s.seen()) != before {
		t.Errorf("the check after the turn listed a plugin just checked")
	}
}

package results

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestMemoryOwnerOnlyAndExpiry(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := &Memory{Now: func() time.Time { return now }}
	ctx := context.Background()
	id, err := m.Put(ctx, "alice", Stored{Plugin: "amazon", Tool: "scrape", Items: []json.RawMessage{json.RawMessage(`{"url":"x"}`)}})
	if err != nil || !strings.HasPrefix(id, "res_") || len(id) != 36 {
		t.Fatalf("id %q %v", id, err)
	}
	if s, err := m.Get(ctx, "alice", id); err != nil || s.Plugin != "amazon" || len(s.Items) != 1 {
		t.Fatalf("owner read: %+v %v", s, err)
	}
	if _, err := m.Get(ctx, "bob", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another owner read it: %v", err)
	}
	if _, err := m.Get(ctx, "alice", "res_nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	now = now.Add(TTL + time.Second)
	if _, err := m.Get(ctx, "alice", id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read after 24 h: %v", err)
	}
	if a, b := NewID(), NewID(); a == b {
		t.Fatal("ids repeat")
	}
}

func TestLocalIDNamesItsReplica(t *testing.T) {
	for replica, want := range map[string]string{"replica-a": "replica-a", "pluginhost--rev3-6f7d9c-xk2lp": "pluginhost--rev3-6f7d9c-xk2lp",
		"a.b_c/d e": "abcde", "": "replica", "---": "replica", strings.Repeat("x", 100): strings.Repeat("x", 64)} {
		id := LocalID(replica)
		got, ok := HeldBy(id)
		if !ok || got != want || ReplicaName(replica) != want || !strings.HasPrefix(id, "res_") || len(strings.SplitN(id, "-on-", 2)[0]) != 36 {
			t.Errorf("LocalID(%q) = %q: held by %q (%v), want %q", replica, id, got, ok, want)
		}
	}
	if r, ok := HeldBy(NewID()); ok {
		t.Errorf("a shared id is held by %q", r)
	}
	var m Memory
	id := LocalID("here")
	m.Keep("owner", id, Stored{Plugin: "p"})
	if st, err := m.Get(context.Background(), "owner", id); err != nil || st.Plugin != "p" {
		t.Fatalf("Keep then Get: %v", err)
	}
	e := &HeldElsewhereError{ID: id, Replica: "here", Here: "there"}
	if msg := e.Error(); !strings.Contains(msg, "replica here only") || !strings.Contains(msg, "reached replica there") || strings.Contains(msg, "expired") {
		t.Fatalf("message: %s", msg)
	}
}

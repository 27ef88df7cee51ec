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

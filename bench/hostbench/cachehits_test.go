package hostbench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/internal/redisproc"
)

// TestFaultCountSeesFallbacks: a Redis that stops answering makes the
// store fall back to memory, and the bench's fault count sees it (so a cache
// measure on Redis that in fact measured memory says so).
func TestFaultCountSeesFallbacks(t *testing.T) {
	if redisproc.Binary() == "" {
		t.Skip("redis-server not installed")
	}
	dir := t.TempDir()
	p, err := redisproc.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	var faults faultCount
	ctx := context.Background()
	st, stores, err := redisStores(ctx, p.URL, "surfsense:ph:bench-faults:", &faults)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := stores.ResultCache.Put(ctx, "k", resultcache.Entry{Items: []json.RawMessage{[]byte(`{"url":"https://example.com/"}`)}, FetchedAt: time.Now()}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, err := stores.ResultCache.Get(ctx, "k"); err != nil || faults.total() != 0 {
		t.Fatalf("with Redis up: err %v, %d faults", err, faults.total())
	}
	p.Stop()
	_, _, _ = stores.ResultCache.Get(ctx, "k")
	if faults.total() == 0 {
		t.Fatal("a Get with Redis stopped was not counted as a fault")
	}
}

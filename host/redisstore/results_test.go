package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/license"
)

func TestResultsSharedOwnerOnly(t *testing.T) {
	url := redistest.URL(t)
	rs := replicas(t, url, 2, Options{})
	ctx := context.Background()
	owner, other := license.Hash("owner"), license.Hash("other")
	st := results.Stored{
		Plugin: "amazon", Tool: "scrape",
		Items:   []json.RawMessage{json.RawMessage(`{"a":1}`), json.RawMessage(`{"b":"x"}`)},
		Partial: true, Reasons: []string{"deadline"},
		Meta: map[string]any{"n": float64(2)},
	}
	id, err := rs[0].Results().Put(ctx, owner, st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rs[1].Results().Get(ctx, owner, id)
	if err != nil {
		t.Fatalf("Get on the other replica: %v", err)
	}
	if !reflect.DeepEqual(got, st) {
		t.Fatalf("Get = %+v, want %+v", got, st)
	}
	if _, err := rs[1].Results().Get(ctx, other, id); !errors.Is(err, results.ErrNotFound) {
		t.Fatalf("another license's Get: %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "res_", "nope", "res_../../x", "res_" + string(make([]byte, 200)), id + "0"} {
		if _, err := rs[1].Results().Get(ctx, owner, bad); !errors.Is(err, results.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", bad, err)
		}
	}
	ttl := raw(t, url).PTTL(ctx, rs[0].opts.Prefix+"res:"+id).Val()
	if ttl < results.TTL-time.Minute || ttl > results.TTL {
		t.Errorf("PTTL = %v, want about %v", ttl, results.TTL)
	}
}

func TestResultsLarge(t *testing.T) {
	rs := replicas(t, redistest.URL(t), 2, Options{})
	ctx := context.Background()
	owner := license.Hash("big")
	items := make([]json.RawMessage, 2000)
	for i := range items {
		items[i] = json.RawMessage(`"` + string(make([]byte, 0)) + randHex(1000) + `"`)
	}
	id, err := rs[0].Results().Put(ctx, owner, results.Stored{Plugin: "web-crawl", Tool: "crawl", Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Health().Up != true {
		t.Fatalf("a 4 MB result marked Redis down: %+v", rs[0].Health())
	}
	got, err := rs[1].Results().Get(ctx, owner, id)
	if err != nil || len(got.Items) != len(items) || string(got.Items[1999]) != string(items[1999]) {
		t.Fatalf("large result: err=%v items=%d", err, len(got.Items))
	}
}

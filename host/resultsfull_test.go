package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
)

// manyArgs asks the "big" plugin for n items of about 600 bytes each.
type manyArgs struct {
	N int `json:"n"`
}

func manyPlugin(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "big", Name: "Big", Tools: []scrapers.Tool{
		scrapers.NewTool("many", "Many", "test tool: many items", nil, func(ctx context.Context, call *scrapers.Call, a manyArgs) error {
			for i := range a.N {
				call.Add(map[string]any{"url": "https://example.com/" + strings.Repeat("p", 600), "n": i})
			}
			return nil
		}),
	}}, nil
}

// pageOf reads a result's envelope; it fails t on a tool error.
func pageOf(t *testing.T, res *mcp.CallToolResult, err error) host.Page {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %s", resultText(res))
	}
	var p host.Page
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// Two replicas on one real redis-server that fills up (maxmemory,
// noeviction): a large result Redis refuses is kept by the replica that made
// it, under an id that names it; the answer says so (result_held_by); that
// replica pages through it, and the other says by name where it is, never
// that it expired. A result stored before Redis filled is still read by
// both (a full Redis still answers reads).
func TestGetResultTellsTheTruthWhenRedisIsFull(t *testing.T) {
	srv := redistest.StartProcess(t)
	prefix := "surfsense:ph:full-test:"
	names := []string{"replica-a", "replica-b"}
	var reps []*hosttest.Host
	for _, name := range names {
		st, err := redisstore.New(context.Background(), srv.URL, redisstore.Options{
			Prefix: prefix, ReplicaID: name, Timeout: 2 * time.Second, ProbeInterval: 100 * time.Millisecond, Logger: repQuiet,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		reps = append(reps, hosttest.Start(t, hosttest.Options{
			Plugins: []scrapers.Constructor{manyPlugin},
			Config:  func(c *host.Config) { c.ResultMaxBytes = 2048; c.ResultCacheTTL = 0 },
			Stores: host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check,
				ResultCache: st.ResultCache(), ResultLeases: st.ResultCache()},
		}))
	}
	a := reps[0].Connect(t, "big", "full-key", nil)
	b := reps[1].Connect(t, "big", "full-key", nil)
	ctx := context.Background()
	call := func(cs *mcp.ClientSession) host.Page {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "many", Arguments: map[string]any{"n": 40}})
		return pageOf(t, res, err)
	}
	getResult := func(cs *mcp.ClientSession, id string, off int) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_result", Arguments: map[string]any{"result_id": id, "offset": off}})
	}
	getPage := func(cs *mcp.ClientSession, id string, off int) host.Page {
		res, err := getResult(cs, id, off)
		return pageOf(t, res, err)
	}

	// While Redis takes writes, a result is shared.
	shared := call(a)
	if shared.ResultID == "" || shared.ResultHeldBy != "" || shared.NextOffset == nil {
		t.Fatalf("a shared result: %+v", shared)
	}
	if p := getPage(b, shared.ResultID, *shared.NextOffset); p.Offset != *shared.NextOffset || len(p.Items) == 0 {
		t.Fatalf("the other replica's page of a shared result: %+v", p)
	}

	// Redis fills up: it refuses every write that needs memory.
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rdb.Close()
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, "probe", strings.Repeat("x", 1000), 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "OOM") {
		t.Fatalf("redis-server still takes writes (%v)", err)
	}

	local := call(a)
	if local.ResultHeldBy != "replica-a" || !strings.HasSuffix(local.ResultID, "-on-replica-a") || local.NextOffset == nil {
		t.Fatalf("a result Redis refused: result_id %q, result_held_by %q; want it held by replica-a and said so", local.ResultID, local.ResultHeldBy)
	}
	// The replica that keeps it pages through it, to the end.
	for off := *local.NextOffset; ; {
		p := getPage(a, local.ResultID, off)
		if p.ResultHeldBy != "replica-a" || len(p.Items) == 0 {
			t.Fatalf("replica-a's page at %d: %+v", off, p)
		}
		if p.NextOffset == nil {
			break
		}
		off = *p.NextOffset
	}
	// The other says where it is, by name.
	res, err := getResult(b, local.ResultID, *local.NextOffset)
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if !res.IsError || !strings.Contains(text, "replica replica-a only") || !strings.Contains(text, "reached replica replica-b") || strings.Contains(text, "expired") {
		t.Fatalf("replica-b's answer for a result replica-a keeps: %s", text)
	}
	// Another license learns nothing more than it would of any id.
	other := reps[0].Connect(t, "big", "other-key", nil)
	if res, err := getResult(other, local.ResultID, 0); err != nil || !res.IsError || !strings.Contains(resultText(res), "no such result") {
		t.Fatalf("another license's get_result on the keeping replica: %v %s", err, resultText(res))
	}

	// A result Redis kept before it filled is still read on both.
	for i, cs := range []*mcp.ClientSession{a, b} {
		if p := getPage(cs, shared.ResultID, *shared.NextOffset); len(p.Items) == 0 {
			t.Fatalf("%s: the shared result while Redis is full: %+v", names[i], p)
		}
	}
}

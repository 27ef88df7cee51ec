package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/all"
)

// TestEveryToolOnASlowSite calls every tool of every first-party plugin
// through the host while its site (the <ID>_BASE_URL stand-in) never answers:
// each call must send progress notifications while it waits and end at the
// deadline with a tool error that says so, not an empty success.
func TestEveryToolOnASlowSite(t *testing.T) {
	old := host.ProgressInterval
	host.ProgressInterval = 150 * time.Millisecond
	t.Cleanup(func() { host.ProgressInterval = old })
	var hits atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	env := map[string]string{}
	for _, id := range []string{"GOOGLE_SEARCH", "YOUTUBE", "TIKTOK", "GOOGLE_MAPS", "AMAZON", "WALMART", "INDEED"} {
		env[id+"_BASE_URL"] = slow.URL
	}
	h := hosttest.Start(t, hosttest.Options{Plugins: all.Plugins, Env: env, Config: func(c *host.Config) { c.CallDeadline = 1200 * time.Millisecond }})
	calls := []struct {
		plugin, tool string
		args         map[string]any
	}{
		{"google-search", "search", map[string]any{"queries": []string{"surfsense"}}},
		{"web-crawl", "crawl", map[string]any{"start_urls": []string{slow.URL + "/page"}}},
		{"youtube", "scrape", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=GJLlxj_dtq8"}}},
		{"youtube", "comments", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=GJLlxj_dtq8"}}},
		{"tiktok", "scrape", map[string]any{"profiles": []string{"cookwithhali"}}},
		{"google-maps", "scrape", map[string]any{"search_queries": []string{"coffee in Athens"}}},
		{"google-maps", "reviews", map[string]any{"urls": []string{"https://www.google.com/maps/place/Kipriakon/@34.67,33.04,17z"}}},
		{"amazon", "scrape", map[string]any{"search_terms": []string{"laptop"}}},
		{"walmart", "scrape", map[string]any{"search_terms": []string{"milk"}}},
		{"walmart", "reviews", map[string]any{"item_ids": []string{"10450114"}}},
		{"indeed", "scrape", map[string]any{"queries": []string{"devops"}}},
	}
	for _, c := range calls {
		t.Run(c.plugin+"."+c.tool, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			progress := 0
			cs, err := hosttest.Connect(context.Background(), h.URL+"/"+c.plugin+"/mcp", "k", nil, &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress++
					mu.Unlock()
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			p := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			p.SetProgressToken("p-" + c.plugin + c.tool)
			start := time.Now()
			res, err := cs.CallTool(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 6*time.Second {
				t.Errorf("the call took %s with a 1.2 s deadline", took)
			}
			msg := text(res)
			if !res.IsError || !strings.Contains(msg, "deadline") {
				t.Fatalf("want a tool error naming the deadline, got error=%v %q", res.IsError, msg)
			}
			mu.Lock()
			defer mu.Unlock()
			if progress < 3 {
				t.Fatalf("%d progress notifications in 1.2 s at a 150 ms interval", progress)
			}
		})
	}
	t.Cleanup(func() {
		if hits.Load() == 0 {
			t.Error("no plugin reached the slow stand-in: the base URLs were not applied")
		}
	})
}

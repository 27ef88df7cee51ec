package indeed_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/all"
	"github.com/surfsense/pluginhost/scrapers/indeed"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with Indeed replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	search, job, cf := read("search-page.html"), read("job-page.html"), read("cloudflare.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/jobs" && r.URL.Query().Get("q") == "blocked":
			w.WriteHeader(http.StatusForbidden)
			w.Write(cf)
		case r.URL.Path == "/jobs":
			w.Write(search) // the same two cards on every page: paging stops
		case r.URL.Path == "/viewjob":
			w.Write(job)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{indeed.New},
		Env:     map[string]string{"INDEED_BASE_URL": site.URL},
	})
	cs := h.Connect(t, "indeed", "test-license", nil)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var scrape *mcp.Tool
	for _, tool := range tools.Tools {
		if tool.Name == "scrape" {
			scrape = tool
		}
	}
	if scrape == nil || scrape.Title != "Scrape Indeed" || scrape.Annotations == nil || !scrape.Annotations.ReadOnlyHint {
		t.Fatalf("no read-only scrape tool titled Scrape Indeed among %d tools", len(tools.Tools))
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{
		"position": "baker", "location": "Leeds", "country": "uk", "max_items": 5, "include_details": true, "parse_company_details": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	var page struct {
		Items   []map[string]any `json:"items"`
		Partial bool             `json:"partial"`
	}
	if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
		t.Fatalf("%v: %s", err, text(res))
	}
	if len(page.Items) != 2 || page.Partial {
		t.Fatalf("result: %s", text(res))
	}
	first := page.Items[0]
	if first["url"] != "https://uk.indeed.com/viewjob?jk=aaaa111122223333" || first["title"] != "Head Baker" ||
		!strings.HasPrefix(first["description"].(string), "We bake everything by hand.") || first["company_details"] == nil {
		t.Errorf("first job: %v", first)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"queries": []string{"blocked"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "Indeed") || !strings.Contains(text(res), "robot check") {
		t.Errorf("blocked call: error %v, %q", res.IsError, text(res))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"queries": []string{"x"}, "country": "atlantis"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "country") {
		t.Errorf("bad country: error %v, %q", res.IsError, text(res))
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

package walmart_test

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
	"github.com/surfsense/pluginhost/scrapers/walmart"
)

// TestEndToEnd calls both tools through a real host (license, MCP over
// HTTP, the official client) with walmart.com replaced by a local stand-in
// serving the package's own pages.
func TestEndToEnd(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	search, reviews, robot := read("search.html"), read("reviews.html"), read("robot.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("q") == "blocked":
			w.Write(robot)
		case r.URL.Path == "/search":
			w.Write(search)
		case strings.HasPrefix(r.URL.Path, "/reviews/product/"):
			w.Write(reviews)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{walmart.New},
		Env:     map[string]string{"WALMART_BASE_URL": site.URL},
	})
	cs := h.Connect(t, "walmart", "test-license", nil)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, tool := range tools.Tools {
		titles[tool.Name] = tool.Title
		if tool.Name != "get_result" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("%s annotations %+v", tool.Name, tool.Annotations)
		}
	}
	if titles["scrape"] != "Scrape Walmart" || titles["reviews"] != "Walmart reviews" {
		t.Errorf("tools %v", titles)
	}

	items := func(res *mcp.CallToolResult) []map[string]any {
		t.Helper()
		if res.IsError {
			t.Fatalf("tool error: %s", text(res))
		}
		var page struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
			t.Fatal(err)
		}
		return page.Items
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"search_terms": []string{"milk"}, "max_items": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := items(res); len(got) != 2 || got[0]["id"] != "10450114" || got[0]["price"] != 3.74 {
		t.Errorf("search items %v", got)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "reviews", Arguments: map[string]any{"item_ids": []string{"10450114"}, "max_reviews": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := items(res); len(got) != 2 || got[0]["review_id"] != "292593328" || got[0]["item_id"] != "10450114" {
		t.Errorf("reviews %v", got)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"search_terms": []string{"blocked"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "Walmart") || !strings.Contains(text(res), "robot check") {
		t.Errorf("blocked: error %v, %q", res.IsError, text(res))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "reviews", Arguments: map[string]any{"item_ids": []string{"1"}, "sort_by": "best"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "sort_by") {
		t.Errorf("bad sort_by: error %v, %q", res.IsError, text(res))
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

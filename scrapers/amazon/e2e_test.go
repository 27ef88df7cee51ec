package amazon_test

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
	"github.com/surfsense/pluginhost/scrapers/amazon"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with Amazon replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	search, product, captcha := read("search.html"), read("product.html"), read("captcha.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Query().Get("k") == "blocked":
			w.Write(captcha)
		case r.URL.Path == "/s" && r.URL.Query().Get("page") == "1":
			w.Write(search)
		case r.URL.Path == "/s":
			w.Write([]byte(`<div class="s-main-slot s-result-list"></div>`))
		case strings.Contains(r.URL.Path, "/dp/"):
			w.Write(product)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{amazon.New},
		Env:     map[string]string{"AMAZON_BASE_URL": site.URL},
	})
	cs := h.Connect(t, "amazon", "test-license", nil)
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
	if scrape == nil || scrape.Title != "Scrape Amazon" {
		t.Fatalf("no scrape tool titled Scrape Amazon among %d tools", len(tools.Tools))
	}
	if a := scrape.Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("annotations %+v", a)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{
		"search_terms": []string{"wireless headphones"}, "max_items": 2, "include_details": true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %v", text(res))
	}
	var page struct {
		Items   []map[string]any `json:"items"`
		Partial bool             `json:"partial"`
	}
	if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Partial {
		t.Fatalf("%d items, partial %v: %s", len(page.Items), page.Partial, text(res))
	}
	for _, it := range page.Items {
		if it["availability"] != "In Stock" || it["url"] == nil || it["asin"] == nil {
			t.Errorf("item %v", it)
		}
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"search_terms": []string{"blocked"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "Amazon") || !strings.Contains(text(res), "captcha") {
		t.Errorf("blocked call: error %v, %q", res.IsError, text(res))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"search_terms": []string{"x"}, "domain": "ebay.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "domain") {
		t.Errorf("bad domain: error %v, %q", res.IsError, text(res))
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

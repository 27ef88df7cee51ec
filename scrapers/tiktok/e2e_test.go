package tiktok_test

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
	"github.com/surfsense/pluginhost/scrapers/tiktok"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with TikTok replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	video, verify := read("video.html"), read("verify.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/@chef.anna/video/7000000000000000001":
			w.Write(video)
		case "/@blocked":
			w.Write(verify)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{tiktok.New},
		Env:     map[string]string{"TIKTOK_BASE_URL": site.URL},
	})
	cs := h.Connect(t, "tiktok", "test-license", nil)
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
	if scrape == nil || scrape.Title != "Scrape TikTok" {
		t.Fatalf("no scrape tool titled Scrape TikTok among %d tools", len(tools.Tools))
	}
	if a := scrape.Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("annotations %+v", a)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{
		"urls": []string{"https://www.tiktok.com/@chef.anna/video/7000000000000000001"},
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
	if len(page.Items) != 1 || page.Partial || page.Items[0]["id"] != "7000000000000000001" ||
		page.Items[0]["url"] != "https://www.tiktok.com/@chef.anna/video/7000000000000000001" {
		t.Fatalf("result: %s", text(res))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"profiles": []string{"blocked"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "TikTok") || !strings.Contains(text(res), "captcha") {
		t.Errorf("blocked call: error %v, %q", res.IsError, text(res))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "scrape", Arguments: map[string]any{"hashtags": []string{"a"}, "max_items": 500}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "max_items") {
		t.Errorf("bad max_items: error %v, %q", res.IsError, text(res))
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

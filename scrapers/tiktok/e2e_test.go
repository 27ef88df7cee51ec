package tiktok_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/tiktok"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with TikTok replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	video := scrapertest.Testdata(t, "video.html")
	verify := scrapertest.Testdata(t, "verify.html")
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

	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": site.URL}, nil)

	if titles := scrapertest.ToolTitles(t, cs); titles["scrape"] != "Scrape TikTok" {
		t.Fatalf("no scrape tool titled Scrape TikTok among %v", titles)
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{
		"urls": []string{"https://www.tiktok.com/@chef.anna/video/7000000000000000001"},
	})
	if res.IsError {
		t.Fatalf("tool error: %s", scrapertest.Text(res))
	}
	if len(page.Items) != 1 || page.Partial || page.Items[0]["id"] != "7000000000000000001" ||
		page.Items[0]["url"] != "https://www.tiktok.com/@chef.anna/video/7000000000000000001" {
		t.Fatalf("result: %s", scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"profiles": []string{"blocked"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "TikTok") || !strings.Contains(scrapertest.Text(res), "captcha") {
		t.Errorf("blocked call: error %v, %q", res.IsError, scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"hashtags": []string{"a"}, "max_items": 500})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "max_items") {
		t.Errorf("bad max_items: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

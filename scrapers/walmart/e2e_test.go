package walmart_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/walmart"
)

// TestEndToEnd calls both tools through a real host (license, MCP over
// HTTP, the official client) with walmart.com replaced by a local stand-in
// serving the package's own pages.
func TestEndToEnd(t *testing.T) {
	search := scrapertest.Testdata(t, "search.html")
	reviews := scrapertest.Testdata(t, "reviews.html")
	robot := scrapertest.Testdata(t, "robot.html")
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

	cs := hosttest.ConnectPlugin(t, "walmart", walmart.New, map[string]string{"WALMART_BASE_URL": site.URL}, nil)

	titles := scrapertest.ToolTitles(t, cs)
	if titles["scrape"] != "Scrape Walmart" || titles["reviews"] != "Walmart reviews" {
		t.Errorf("tools %v", titles)
	}

	items := func(name string, args map[string]any) []map[string]any {
		t.Helper()
		res, page := scrapertest.CallTool(t, cs, name, args)
		if res.IsError {
			t.Fatalf("tool error: %s", scrapertest.Text(res))
		}
		return page.Items
	}

	if got := items("scrape", map[string]any{"search_terms": []string{"milk"}, "max_items": 2}); len(got) != 2 || got[0]["id"] != "10450114" || got[0]["price"] != 3.74 {
		t.Errorf("search items %v", got)
	}

	if got := items("reviews", map[string]any{"item_ids": []string{"10450114"}, "max_reviews": 2}); len(got) != 2 || got[0]["review_id"] != "292593328" || got[0]["item_id"] != "10450114" {
		t.Errorf("reviews %v", got)
	}

	res, _ := scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_terms": []string{"blocked"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "Walmart") || !strings.Contains(scrapertest.Text(res), "robot check") {
		t.Errorf("blocked: error %v, %q", res.IsError, scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "reviews", map[string]any{"item_ids": []string{"1"}, "sort_by": "best"})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "sort_by") {
		t.Errorf("bad sort_by: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

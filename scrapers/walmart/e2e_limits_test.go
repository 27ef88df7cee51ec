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

// TestBlocksAndLimitsThroughTheHost: Walmart's robot check (served, or
// redirected to /blocked) and a lasting 429 are tool errors naming Walmart
// and the kind; each argument's bound is refused naming it or honoured.
func TestBlocksAndLimitsThroughTheHost(t *testing.T) {
	search := scrapertest.Testdata(t, "search.html")
	reviews := scrapertest.Testdata(t, "reviews.html")
	robot := scrapertest.Testdata(t, "robot.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch q := r.URL.Query().Get("q"); {
		case q == "robot":
			w.Write(robot)
		case q == "redirected":
			http.Redirect(w, r, "/blocked?url=L3NlYXJjaA==", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/blocked"):
			w.Write(robot)
		case q == "busy":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
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

	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"robot"}}, "Walmart", "robot check")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"redirected"}}, "Walmart", "robot check")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"busy"}}, "Walmart", "rate limited")

	for _, c := range []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"scrape", map[string]any{}, "urls"},
		{"scrape", map[string]any{"search_terms": []string{"x"}, "max_items": 0}, "max_items"},
		{"scrape", map[string]any{"search_terms": []string{"x"}, "max_items": 101}, "max_items"},
		{"scrape", map[string]any{"search_terms": scrapertest.Many("x", 21)}, "search_terms"},
		{"scrape", map[string]any{"urls": scrapertest.Many("https://www.walmart.com/ip/x/10450114", 21)}, "urls"},
		{"reviews", map[string]any{}, "urls"},
		{"reviews", map[string]any{"item_ids": []string{"1"}, "max_reviews": 0}, "max_reviews"},
		{"reviews", map[string]any{"item_ids": []string{"1"}, "max_reviews": 501}, "max_reviews"},
		{"reviews", map[string]any{"item_ids": scrapertest.Many("1", 21)}, "item_ids"},
		{"reviews", map[string]any{"item_ids": []string{"1"}, "sort_by": "best"}, "sort_by"},
	} {
		scrapertest.WantToolError(t, cs, c.tool, c.args, c.arg)
	}
	if res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_terms": []string{"milk"}, "max_items": 1}); res.IsError || len(pg.Items) != 1 {
		t.Errorf("max_items 1: error %v, %d items", res.IsError, len(pg.Items))
	}
	if res, pg := scrapertest.CallTool(t, cs, "reviews", map[string]any{"item_ids": []string{"10450114"}, "max_reviews": 1}); res.IsError || len(pg.Items) != 1 {
		t.Errorf("max_reviews 1: error %v, %d items", res.IsError, len(pg.Items))
	}
}

package googlesearch_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/googlesearch"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEndCursor walks a query's pages in two calls with the cursor the
// first returned, through the host; Google's last page has no Next link, so
// the last answer has no cursor.
func TestEndToEndCursor(t *testing.T) {
	google := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		start, _ := strconv.Atoi(r.URL.Query().Get("start"))
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		fmt.Fprint(w, `<!doctype html><html><body><div id="search"><div id="rso">`)
		for i := start; i < start+10 && i < 30; i++ {
			fmt.Fprintf(w, `<div class="MjjYud"><div class="g"><div class="yuRUbf"><a href="https://example.com/%d"><h3>%s %d</h3><cite>example.com</cite></a></div><div class="VwiC3b">Result %d.</div></div></div>`, i, q, i, i)
		}
		fmt.Fprint(w, `</div></div><div id="botstuff">`)
		if start+10 < 30 {
			fmt.Fprintf(w, `<a id="pnnext" aria-label="Next page" href="/search?q=%s&amp;start=%d&amp;sa=N">Next</a>`, url.QueryEscape(q), start+10)
		}
		fmt.Fprint(w, `</div></body></html>`)
	}))
	defer google.Close()
	cs := hosttest.ConnectPlugin(t, "google-search", googlesearch.New, map[string]string{"GOOGLE_SEARCH_BASE_URL": google.URL}, nil)

	cursorOf := func(text string) string {
		var p struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(err)
		}
		return p.NextCursor
	}
	res, page := scrapertest.CallTool(t, cs, "search", map[string]any{"queries": []string{"gophers"}, "max_pages_per_query": 2})
	cursor := cursorOf(scrapertest.Text(res))
	if res.IsError || len(page.Items) != 2 || cursor == "" {
		t.Fatalf("first call: %s", scrapertest.Text(res))
	}
	res, page = scrapertest.CallTool(t, cs, "search", map[string]any{"queries": []string{"gophers"}, "max_pages_per_query": 2, "cursor": cursor})
	// Pages 3 and 4 (the plugin reads on past a page without a Next link
	// until a page has no results).
	if res.IsError || len(page.Items) != 2 || page.Items[0]["page"] != 3.0 || cursorOf(scrapertest.Text(res)) != "" {
		t.Fatalf("second call: %s", scrapertest.Text(res))
	}
	organic, _ := page.Items[0]["organic_results"].([]any)
	if first, _ := organic[0].(map[string]any); len(organic) != 10 || first["position"] != 21.0 || first["title"] != "gophers 20" {
		t.Errorf("third page results: %v", organic)
	}
	scrapertest.WantToolError(t, cs, "search", map[string]any{"queries": []string{"gophers"}, "cursor": cursor, "start": 10}, "cursor", "start")
	scrapertest.WantToolError(t, cs, "search", map[string]any{"queries": []string{"gophers"}, "country_code": "de", "cursor": cursor}, "cursor", "another listing")
	scrapertest.WantToolError(t, cs, "search", map[string]any{"queries": []string{"gophers", "rust"}, "cursor": cursor}, "cursor", "one query")
}

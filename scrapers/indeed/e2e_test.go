package indeed_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/indeed"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with Indeed replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	search := scrapertest.Testdata(t, "search-page.html")
	job := scrapertest.Testdata(t, "job-page.html")
	cf := scrapertest.Testdata(t, "cloudflare.html")
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

	cs := hosttest.ConnectPlugin(t, "indeed", indeed.New, map[string]string{"INDEED_BASE_URL": site.URL}, nil)

	if titles := scrapertest.ToolTitles(t, cs); titles["scrape"] != "Scrape Indeed" {
		t.Fatalf("no scrape tool titled Scrape Indeed among %v", titles)
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{
		"position": "baker", "location": "Leeds", "country": "uk", "max_items": 5, "include_details": true, "parse_company_details": true,
	})
	if res.IsError {
		t.Fatalf("tool error: %s", scrapertest.Text(res))
	}
	if len(page.Items) != 2 || page.Partial {
		t.Fatalf("result: %s", scrapertest.Text(res))
	}
	first := page.Items[0]
	if first["url"] != "https://uk.indeed.com/viewjob?jk=aaaa111122223333" || first["title"] != "Head Baker" ||
		!strings.HasPrefix(first["description"].(string), "We bake everything by hand.") || first["company_details"] == nil {
		t.Errorf("first job: %v", first)
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"queries": []string{"blocked"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "Indeed") || !strings.Contains(scrapertest.Text(res), "robot check") {
		t.Errorf("blocked call: error %v, %q", res.IsError, scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"queries": []string{"x"}, "country": "atlantis"})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "country") {
		t.Errorf("bad country: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

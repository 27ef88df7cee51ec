package amazon_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/amazon"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEnd calls the scrape tool through a real host (license, MCP over
// HTTP, the official client) with Amazon replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	search := scrapertest.Testdata(t, "search.html")
	product := scrapertest.Testdata(t, "product.html")
	captcha := scrapertest.Testdata(t, "captcha.html")
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

	cs := hosttest.ConnectPlugin(t, "amazon", amazon.New, map[string]string{"AMAZON_BASE_URL": site.URL}, nil)

	if titles := scrapertest.ToolTitles(t, cs); titles["scrape"] != "Scrape Amazon" {
		t.Fatalf("no scrape tool titled Scrape Amazon among %v", titles)
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{
		"search_terms": []string{"wireless headphones"}, "max_items": 2, "include_details": true,
	})
	if res.IsError {
		t.Fatalf("tool error: %v", scrapertest.Text(res))
	}
	if len(page.Items) != 2 || page.Partial {
		t.Fatalf("%d items, partial %v: %s", len(page.Items), page.Partial, scrapertest.Text(res))
	}
	for _, it := range page.Items {
		if it["availability"] != "In Stock" || it["url"] == nil || it["asin"] == nil {
			t.Errorf("item %v", it)
		}
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_terms": []string{"blocked"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "Amazon") || !strings.Contains(scrapertest.Text(res), "captcha") {
		t.Errorf("blocked call: error %v, %q", res.IsError, scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_terms": []string{"x"}, "domain": "ebay.com"})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "domain") {
		t.Errorf("bad domain: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

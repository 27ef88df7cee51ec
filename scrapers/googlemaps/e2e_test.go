package googlemaps_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/googlemaps"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEnd calls both tools through a real host (license, MCP over HTTP,
// the official client) with Google Maps replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	placePage := scrapertest.Testdata(t, "place-page.html")
	sorry := scrapertest.Testdata(t, "sorry.html")
	// One listugcposts page: a review with an owner's reply, no next page.
	review := `[["rev-1",[null,null,1700000000000000,null,[null,null,["https://www.google.com/maps/contrib/9"],null,null,["Ada","https://photo.example.test/a",null,"9"]],null,"a year ago"],` +
		`[[5],null,null,null,null,null,null,null,null,null,null,null,null,null,["en"],[["Best rye in town."]]],` +
		`[null,1700000100000000,null,"a year ago",null,null,null,null,null,null,null,null,null,["en"],[["Thank you, Ada!"]]]]]`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/maps/place/" && r.URL.Query().Get("q") == "place_id:ChIJtestTestTest0123456789":
			w.Write(placePage)
		case r.URL.Path == "/maps/rpc/listugcposts" && strings.Contains(r.URL.Query().Get("pb"), "!1s0x48761b3333333333:0x1234abcd5678ef90!"):
			w.Write([]byte(")]}'\n[null,null,[" + review + "]]"))
		case r.URL.Path == "/search":
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
		case r.URL.Path == "/sorry/index":
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(sorry)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	cs := hosttest.ConnectPlugin(t, "google-maps", googlemaps.New, map[string]string{"GOOGLE_MAPS_BASE_URL": site.URL}, nil)

	titles := scrapertest.ToolTitles(t, cs)
	if titles["scrape"] != "Scrape Google Maps" || titles["reviews"] != "Google Maps reviews" {
		t.Fatalf("tools = %v", titles)
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}})
	items := page.Items
	if res.IsError || len(items) != 1 || items[0]["name"] != "Harbour Bakery" || items[0]["rating"] != 4.6 {
		t.Fatalf("scrape: %s", scrapertest.Text(res))
	}
	res, page = scrapertest.CallTool(t, cs, "reviews", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}, "sort_by": "newest"})
	items = page.Items
	if res.IsError || len(items) != 1 || items[0]["text"] != "Best rye in town." || items[0]["place_name"] != "Harbour Bakery" {
		t.Fatalf("reviews: %s", scrapertest.Text(res))
	}
	if reply, _ := items[0]["owner_reply"].(map[string]any); reply["text"] != "Thank you, Ada!" {
		t.Errorf("reply = %v", items[0]["owner_reply"])
	}
	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"bakery in Portside"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "Google Maps") || !strings.Contains(scrapertest.Text(res), "captcha") {
		t.Errorf("blocked search: error %v, %q", res.IsError, scrapertest.Text(res))
	}
	res, _ = scrapertest.CallTool(t, cs, "reviews", map[string]any{"urls": []string{"https://www.google.com/maps/place/x"}, "sort_by": "oldest"})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "sort_by") {
		t.Errorf("bad sort_by: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

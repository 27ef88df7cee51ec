package googlemaps_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/googlemaps"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestBlocksAndLimitsThroughTheHost: Google's unusual-traffic page, its
// consent wall and a lasting 429 are tool errors naming Google Maps and the
// kind; each argument's bound is refused naming the argument.
func TestBlocksAndLimitsThroughTheHost(t *testing.T) {
	sorry := scrapertest.Testdata(t, "sorry.html")
	consent := scrapertest.Testdata(t, "consent.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("q") {
		case "sorry":
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
		case "consent":
			w.Write(consent)
		case "busy":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
		default:
			if r.URL.Path == "/sorry/index" {
				w.Write(sorry)
				return
			}
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "google-maps", googlemaps.New, map[string]string{"GOOGLE_MAPS_BASE_URL": site.URL}, nil)

	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"sorry"}}, "Google Maps", "captcha")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"consent"}}, "Google Maps", "consent wall")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"busy"}}, "Google Maps", "rate limited")

	for _, c := range []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"scrape", map[string]any{}, "search_queries"},
		{"scrape", map[string]any{"search_queries": []string{"x"}, "max_places": 0}, "max_places"},
		{"scrape", map[string]any{"search_queries": []string{"x"}, "max_places": 101}, "max_places"},
		{"scrape", map[string]any{"search_queries": scrapertest.Many("x", 21)}, "search_queries"},
		{"scrape", map[string]any{"place_ids": scrapertest.Many("ChIJtestTestTest0123456789", 21)}, "place_ids"},
		{"reviews", map[string]any{}, "urls"},
		{"reviews", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}, "max_reviews": 0}, "max_reviews"},
		{"reviews", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}, "max_reviews": 501}, "max_reviews"},
		{"reviews", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}, "sort_by": "oldest"}, "sort_by"},
	} {
		scrapertest.WantToolError(t, cs, c.tool, c.args, c.arg)
	}
}

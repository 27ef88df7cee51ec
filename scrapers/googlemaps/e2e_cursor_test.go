package googlemaps_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/googlemaps"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEndCursors walks a search's places (Google's pages of 20) and a
// place's reviews (pages of 20 with Google's next token) through the host in
// calls smaller than Google's pages, each going on where the last stopped.
func TestEndToEndCursors(t *testing.T) {
	site := httptest.NewServer(googlemaps.NewStandIn(t, 45, 47))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "google-maps", googlemaps.New, map[string]string{"GOOGLE_MAPS_BASE_URL": site.URL}, nil)

	walk := func(tool string, args map[string]any, field string) (got []any, calls int) {
		t.Helper()
		for calls < 20 {
			calls++
			res, page := scrapertest.CallTool(t, cs, tool, args)
			if res.IsError {
				t.Fatalf("%s: %s", tool, scrapertest.Text(res))
			}
			for _, it := range page.Items {
				got = append(got, it[field])
			}
			var p struct {
				NextCursor string `json:"next_cursor"`
			}
			json.Unmarshal([]byte(scrapertest.Text(res)), &p)
			if p.NextCursor == "" {
				return got, calls
			}
			args["cursor"] = p.NextCursor
		}
		t.Fatalf("%s: still a cursor after %d calls", tool, calls)
		return
	}
	ranks, calls := walk("scrape", map[string]any{"search_queries": []string{"cafe in Springfield"}, "max_places": 15}, "rank")
	if len(ranks) != 45 || calls != 3 || ranks[44] != 45.0 || fmt.Sprint(ranks[15]) != "16" {
		t.Errorf("places walked in %d calls: ranks %v", calls, ranks)
	}
	ids, calls := walk("reviews", map[string]any{"place_ids": []string{"0x89c25a1111111111:0x0000000000000001"}, "max_reviews": 12, "sort_by": "newest"}, "review_id")
	seen := map[any]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(ids) != 47 || len(seen) != 47 || calls != 4 || ids[0] != "rev0" || ids[46] != "rev46" {
		t.Errorf("reviews walked in %d calls: %v", calls, ids)
	}
	scrapertest.WantToolError(t, cs, "reviews", map[string]any{"place_ids": []string{"0x89c25a1111111111:0x0000000000000001"}, "cursor": "x"}, "cursor")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"a", "b"}, "cursor": "x"}, "cursor", "one search")
}

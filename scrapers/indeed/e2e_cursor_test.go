package indeed_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/indeed"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// pagedSearch serves a search of total jobs as Indeed pages it: 15 cards a
// page, start moving by 10 (so pages overlap), and a pagination nav whose
// "Next Page" link is there while more follow.
func pagedSearch(t *testing.T, total int, mu *sync.Mutex, asked *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jobs" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		*asked = append(*asked, r.URL.Query().Get("start"))
		mu.Unlock()
		q := r.URL.Query()
		start, _ := strconv.Atoi(q.Get("start"))
		var results []any
		for i := start; i < start+15 && i < total; i++ {
			results = append(results, map[string]any{
				"jobkey": fmt.Sprintf("%016x", i+1), "displayTitle": fmt.Sprintf("%s %d", q.Get("q"), i), "company": "Works Ltd",
				"formattedLocation": "Leeds", "formattedRelativeTime": "Today",
			})
		}
		cards, _ := json.Marshal(map[string]any{"metaData": map[string]any{"mosaicProviderJobCardsModel": map[string]any{"pageNumber": start/10 + 1, "results": results}}})
		nav := `<nav role="navigation" aria-label="pagination"><ul><li><a data-testid="pagination-page-current" aria-current="page">` + strconv.Itoa(start/10+1) + `</a></li>`
		if start+15 < total {
			next := url.Values{"q": {q.Get("q")}, "l": {q.Get("l")}, "start": {strconv.Itoa(start + 10)}}
			nav += `<li><a data-testid="pagination-page-next" aria-label="Next Page" href="/jobs?` + next.Encode() + `">Next</a></li>`
		}
		nav += `</ul></nav>`
		w.Header().Set("Content-Type", "text/html;charset=UTF-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Jobs | Indeed</title></head><body><div id="mosaic-provider-jobcards"></div>`+
			`<script>window.mosaic = window.mosaic || {};window.mosaic.providerData = window.mosaic.providerData || {};`+
			`window.mosaic.providerData["mosaic-provider-jobcards"]=%s;</script>%s</body></html>`, cards, nav)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func cursorOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var p struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(scrapertest.Text(res)), &p); err != nil {
		t.Fatalf("%v: %s", err, scrapertest.Text(res))
	}
	return p.NextCursor
}

// TestSearchCursorWalksPages reads one search in three calls, each going on
// where the previous stopped: no job twice (Indeed's pages overlap), ranks
// going on, and no cursor once the pager has no next page.
func TestSearchCursorWalksPages(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := pagedSearch(t, 32, &mu, &asked)
	cs := hosttest.ConnectPlugin(t, "indeed", indeed.New, map[string]string{"INDEED_BASE_URL": srv.URL}, nil)
	args := map[string]any{"queries": []string{"welder"}, "location": "Leeds", "country": "uk", "max_items": 12}
	seen := map[any]bool{}
	rank := 0
	var cursors []string
	for call := 0; call < 3; call++ {
		if call > 0 {
			args["cursor"] = cursors[call-1]
		}
		res, page := scrapertest.CallTool(t, cs, "scrape", args)
		if res.IsError {
			t.Fatalf("call %d: %s", call, scrapertest.Text(res))
		}
		for _, j := range page.Items {
			rank++
			if seen[j["job_key"]] || j["rank"] != float64(rank) || j["title"] != fmt.Sprintf("welder %d", rank-1) {
				t.Errorf("call %d: job %v (rank %d)", call, j, rank)
			}
			seen[j["job_key"]] = true
		}
		cursors = append(cursors, cursorOf(t, res))
	}
	if rank != 32 || cursors[0] == "" || cursors[1] == "" || cursors[2] != "" {
		t.Errorf("%d jobs in all, cursors %q", rank, cursors)
	}
	// Pages asked: 0 and 10 for the first two calls (each resuming in the
	// page it stopped in), then 10 and 20.
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprint([]string{"", "", "10", "10", "20"}); fmt.Sprint(asked) != want {
		t.Errorf("start asked %v, want %s", asked, want)
	}
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"welder", "baker"}, "location": "Leeds", "country": "uk", "cursor": cursors[0]}, "cursor", "one search")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"queries": []string{"baker"}, "location": "Leeds", "country": "uk", "cursor": cursors[0]}, "cursor", "another listing")
}

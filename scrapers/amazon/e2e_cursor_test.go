package amazon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/amazon"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEndCursor walks a search in calls that each go on where the
// previous stopped (inside a page, then on the next), through the host,
// against a stand-in paging as Amazon does: ?page=N, 8 cards a page, a live
// Next link until the last page, whose Next is disabled.
func TestEndToEndCursor(t *testing.T) {
	const pages, perPage = 2, 8
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/s" {
			http.NotFound(w, r)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		w.Header().Set("Content-Type", "text/html;charset=UTF-8")
		var b strings.Builder
		b.WriteString(`<!doctype html><html lang="en-us"><head><title>Amazon.com : lamps</title></head><body><div class="s-main-slot s-result-list s-search-results sg-row">`)
		for i := 1; page <= pages && i <= perPage; i++ {
			asin := fmt.Sprintf("B%09d", page*100+i)
			fmt.Fprintf(&b, `<div data-asin="%s" data-index="%d" data-component-type="s-search-result" class="s-result-item s-asin"><div class="s-card-container">`+
				`<div data-cy="title-recipe"><h2><a class="a-link-normal a-text-normal" href="/Lamp-%s/dp/%s/ref=sr_1_%d"><span>Lamp %d-%d</span></a></h2></div>`+
				`<div data-cy="price-recipe"><span class="a-price"><span class="a-offscreen">$1%d.00</span></span></div></div></div>`, asin, i, asin, asin, i, page, i, i)
		}
		b.WriteString(`</div><span class="s-pagination-strip">`)
		if page < pages {
			fmt.Fprintf(&b, `<a href="/s?k=lamps&amp;page=%d" class="s-pagination-item s-pagination-next s-pagination-button">Next</a>`, page+1)
		} else {
			b.WriteString(`<span class="s-pagination-item s-pagination-next s-pagination-disabled" aria-disabled="true">Next</span>`)
		}
		b.WriteString(`</span></body></html>`)
		fmt.Fprint(w, b.String())
	}))
	defer site.Close()
	cs := hosttest.ConnectPlugin(t, "amazon", amazon.New, map[string]string{"AMAZON_BASE_URL": site.URL}, nil)

	cursorOf := func(text string) string {
		var p struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(err)
		}
		return p.NextCursor
	}
	args := map[string]any{"search_terms": []string{"lamps"}, "domain": "amazon.co.uk", "max_items": 6}
	var names []any
	var cursors []string
	for call := 0; call < 3; call++ {
		res, page := scrapertest.CallTool(t, cs, "scrape", args)
		if res.IsError {
			t.Fatalf("call %d: %s", call, scrapertest.Text(res))
		}
		for _, it := range page.Items {
			names = append(names, it["name"])
			if it["position"] != float64(len(names)) {
				t.Errorf("call %d: %v at position %v, want %d", call, it["name"], it["position"], len(names))
			}
		}
		cursors = append(cursors, cursorOf(scrapertest.Text(res)))
		args["cursor"] = cursors[call]
		if cursors[call] == "" {
			break
		}
	}
	want := []any{}
	for p := 1; p <= pages; p++ {
		for i := 1; i <= perPage; i++ {
			want = append(want, fmt.Sprintf("Lamp %d-%d", p, i))
		}
	}
	if fmt.Sprint(names) != fmt.Sprint(want) || len(cursors) != 3 || cursors[2] != "" {
		t.Errorf("names %v\nwant  %v\ncursors %q", names, want, cursors)
	}
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"lamps"}, "cursor": cursors[0]}, "cursor", "another listing")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"lamps", "desks"}, "domain": "amazon.co.uk", "cursor": cursors[0]}, "cursor", "one search")
}

package walmart_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/walmart"
)

// pagedWalmart serves searches of 3 pages of 8 items (paginationV2.maxPage
// 3) and reviews of 23 in pages of 10 (a pager with next until the last),
// in Walmart's __NEXT_DATA__, as walmart.com pages them with ?page=N.
func pagedWalmart(t *testing.T) *httptest.Server {
	write := func(w http.ResponseWriter, title string, data any) {
		b, _ := json.Marshal(map[string]any{"props": map[string]any{"pageProps": map[string]any{"initialData": data}, "__N_SSP": true}, "page": "/", "buildId": "b"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en-US"><head><meta charSet="utf-8"/><title>%s - Walmart.com</title></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">%s</script></body></html>`, html.EscapeString(title), b)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		switch {
		case r.URL.Path == "/search":
			var items []any
			for i := 1; page <= 3 && i <= 8; i++ {
				id := fmt.Sprintf("%d%03d", page, i)
				items = append(items, map[string]any{"__typename": "Product", "usItemId": id, "name": fmt.Sprintf("Kettle %d-%d", page, i),
					"canonicalUrl": "/ip/Kettle-" + id + "/" + id, "price": 19.99, "priceInfo": map[string]any{"linePrice": "$19.99"}})
			}
			write(w, "kettle", map[string]any{"searchResult": map[string]any{
				"itemStacks": []any{map[string]any{"items": items, "count": 24}}, "paginationV2": map[string]any{"maxPage": 3}}})
		case strings.HasPrefix(r.URL.Path, "/reviews/product/"):
			id := strings.TrimPrefix(r.URL.Path, "/reviews/product/")
			const total = 23
			var reviews, pager []any
			for i := (page-1)*10 + 1; i <= total && i <= page*10; i++ {
				reviews = append(reviews, map[string]any{"reviewId": fmt.Sprintf("%s-%d", id, i), "rating": 4, "reviewText": fmt.Sprintf("review %d", i), "userNickname": "u"})
			}
			for n := 1; n <= 3; n++ {
				pager = append(pager, map[string]any{"num": n, "url": fmt.Sprintf("page=%d", n)})
			}
			pagination := map[string]any{"pages": pager, "total": total, "next": nil}
			if page < 3 {
				pagination["next"] = map[string]any{"num": page + 1, "url": fmt.Sprintf("page=%d", page+1)}
			}
			write(w, "reviews", map[string]any{"data": map[string]any{"product": map[string]any{"usItemId": id},
				"reviews": map[string]any{"customerReviews": reviews, "pagination": pagination, "totalReviewCount": total}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// walk calls tool with args, then again with each next_cursor, until there
// is none (at most 10 calls), and returns the field of every item in order.
func walk(t *testing.T, call func(args map[string]any) (string, []map[string]any), args map[string]any, field string) (got []any, calls int) {
	t.Helper()
	for calls < 10 {
		calls++
		text, items := call(args)
		for _, it := range items {
			got = append(got, it[field])
		}
		var p struct {
			NextCursor string `json:"next_cursor"`
		}
		json.Unmarshal([]byte(text), &p)
		if p.NextCursor == "" {
			return got, calls
		}
		args["cursor"] = p.NextCursor
	}
	t.Fatalf("still a cursor after %d calls", calls)
	return got, calls
}

// TestEndToEndCursors walks a search and an item's reviews through the host
// in pages smaller than Walmart's, each call going on where the last stopped.
func TestEndToEndCursors(t *testing.T) {
	cs := hosttest.ConnectPlugin(t, "walmart", walmart.New, map[string]string{"WALMART_BASE_URL": pagedWalmart(t).URL}, nil)
	caller := func(tool string) func(map[string]any) (string, []map[string]any) {
		return func(args map[string]any) (string, []map[string]any) {
			res, page := scrapertest.CallTool(t, cs, tool, args)
			if res.IsError {
				t.Fatalf("%s %v: %s", tool, args, scrapertest.Text(res))
			}
			return scrapertest.Text(res), page.Items
		}
	}
	names, calls := walk(t, caller("scrape"), map[string]any{"search_terms": []string{"kettle"}, "max_items": 5}, "name")
	var want []string
	for p := 1; p <= 3; p++ {
		for i := 1; i <= 8; i++ {
			want = append(want, fmt.Sprintf("Kettle %d-%d", p, i))
		}
	}
	if fmt.Sprint(names) != fmt.Sprint(want) || calls != 5 {
		t.Errorf("search walked in %d calls: %v", calls, names)
	}
	ids, calls := walk(t, caller("reviews"), map[string]any{"item_ids": []string{"10450114"}, "max_reviews": 7, "sort_by": "submission-desc"}, "review_id")
	if len(ids) != 23 || ids[0] != "10450114-1" || ids[22] != "10450114-23" || calls != 4 {
		t.Errorf("reviews walked in %d calls: %v", calls, ids)
	}
	scrapertest.WantToolError(t, cs, "reviews", map[string]any{"item_ids": []string{"10450114"}, "cursor": "x"}, "cursor")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_terms": []string{"kettle", "pan"}, "cursor": "x"}, "cursor", "one search")
}

package walmart

import (
	"slices"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// FuzzArgs: the arguments of both tools are refused naming the argument,
// or accepted within the bounds.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"search_terms":["milk"],"max_items":100}`,
		`{"urls":["https://www.walmart.com/ip/Great-Value-Milk/10450114"],"item_ids":["10450114"],"max_reviews":500,"sort_by":"rating-asc"}`,
		`{"urls":["https://www.walmart.com/reviews/product/10450114"]}`, `{"sort_by":"random","item_ids":["1"]}`, `{"item_ids":["x"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if a, ok := scrapertest.DecodeArgs[ScrapeArgs](t, raw); ok {
			if a.maxItems < 1 || a.maxItems > maxMaxItems || len(a.URLs) > maxList || len(a.SearchTerms) > maxList || len(a.URLs)+len(a.SearchTerms) == 0 {
				t.Fatalf("scrape accepted %+v", a)
			}
		}
		if a, ok := scrapertest.DecodeArgs[ReviewsArgs](t, raw); ok {
			if a.maxReviews < 1 || a.maxReviews > maxMaxReviews || len(a.items) == 0 || len(a.items) > 2*maxList || !slices.Contains(sortOrders, a.SortBy) {
				t.Fatalf("reviews accepted %+v", a)
			}
			for _, id := range a.items {
				if !itemIDArg.MatchString(id) {
					t.Fatalf("item id %q", id)
				}
			}
		}
	})
}

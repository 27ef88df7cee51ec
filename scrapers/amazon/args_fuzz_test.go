package amazon

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// FuzzScrapeArgs: any arguments are refused naming the argument, or
// accepted within the bounds.
func FuzzScrapeArgs(f *testing.F) {
	for _, s := range []string{
		`{"search_terms":["laptop"],"max_items":100,"domain":"amazon.co.jp","include_details":true}`,
		`{"urls":["https://www.amazon.de/dp/B0BQJ68HHC","https://amazon.in/gp/product/B08N5W4NNB"]}`,
		`{"domain":"evil.example"}`, `{"max_items":0,"search_terms":["x"]}`, `{"urls":[""]}`, `{"":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, ok := scrapertest.DecodeArgs[ScrapeArgs](t, raw)
		if !ok {
			return
		}
		if a.maxItems < 1 || a.maxItems > maxMaxItems || len(a.URLs) > maxList || len(a.SearchTerms) > maxList || len(a.URLs)+len(a.SearchTerms) == 0 ||
			!domainArg.MatchString(a.Domain) || len(a.products) != len(a.URLs) {
			t.Fatalf("accepted out of bounds: %+v", a)
		}
	})
}

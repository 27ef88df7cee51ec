package googlemaps

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// FuzzArgs: the arguments of both tools are refused naming the argument,
// or accepted within the bounds.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"search_queries":["coffee in Athens"],"max_places":100,"language":"pt-BR","country_code":"gr"}`,
		`{"urls":["https://www.google.com/maps/place/Kipriakon/@34.6,33.0,17z"],"place_ids":["ChIJtestTestTest0123456789"],"max_reviews":500,"sort_by":"newest"}`,
		`{"urls":["https://maps.app.goo.gl/abc"]}`, `{"language":"../../x","search_queries":["x"]}`, `{"sort_by":"worst","place_ids":["ChIJx"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if a, ok := scrapertest.DecodeArgs[scrapeArgs](t, raw); ok {
			if a.maxPlaces < 1 || a.maxPlaces > maxMaxPlaces || len(a.SearchQueries)+len(a.URLs)+len(a.PlaceIDs) == 0 ||
				len(a.SearchQueries) > maxSources || len(a.URLs) > maxSources || len(a.PlaceIDs) > maxSources {
				t.Fatalf("scrape accepted %+v", a)
			}
		}
		if a, ok := scrapertest.DecodeArgs[reviewsArgs](t, raw); ok {
			if a.maxReviews < 1 || a.maxReviews > maxMaxReviews || len(a.URLs)+len(a.PlaceIDs) == 0 || a.SortBy == "" {
				t.Fatalf("reviews accepted %+v", a)
			}
		}
	})
}

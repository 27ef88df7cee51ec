package googlemaps

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func BenchmarkParsePlacePage(b *testing.B) {
	body := placePage(b, scrapertest.Fixture(b, "googlemaps/place-raw.json"))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parsePlace(body, "u"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePlaceAnswer(b *testing.B) {
	body := append([]byte(")]}'\n"), scrapertest.Fixture(b, "googlemaps/place-raw.json")...)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parsePlace(body, "u"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSearch(b *testing.B) {
	body := append([]byte(")]}'\n"), scrapertest.Fixture(b, "googlemaps/search-output.json")...)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if p, err := parseSearch(body); err != nil || len(p) != 20 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseReviewsPage(b *testing.B) {
	items := string(scrapertest.Fixture(b, "googlemaps/review-native-with-reply.json"))
	items = items[1 : len(items)-1] // the one item, to repeat as a full page
	body := ")]}'\n[null,\"next\",["
	for i := range reviewsPageSize {
		if i > 0 {
			body += ","
		}
		body += items
	}
	body += "]]"
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if pg, err := parseReviewsPage([]byte(body), "p", ""); err != nil || len(pg.Reviews) != reviewsPageSize {
			b.Fatal(err)
		}
	}
}

package indeed

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func BenchmarkParseJobPage(b *testing.B) {
	body := scrapertest.Fixture(b, "indeed/viewjob-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseJobPage(body, "au.indeed.com"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSearchPage(b *testing.B) {
	body := searchPage(scrapertest.Fixture(b, "indeed/mosaic-jobcards.json"))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if jobs, err := parseSearchPage(body, "www.indeed.com"); err != nil || len(jobs) != 3 {
			b.Fatal(err)
		}
	}
}

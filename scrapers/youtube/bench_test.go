package youtube

import (
	"encoding/json"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// Benchmarks of each extractor on the real pages (skipped when the shared
// fixtures are absent); the comment and subtitle extractors have no real
// page in the shared set and run on this package's own fixtures.

func BenchmarkEmbeddedJSONWatchPage(b *testing.B) {
	page := scrapertest.Fixture(b, "youtube/watch-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := embeddedJSON(page, "ytInitialData"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseWatchPage(b *testing.B) {
	page := scrapertest.Fixture(b, "youtube/watch-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := parseWatchPage(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSearchJSON(b *testing.B) {
	body := scrapertest.Fixture(b, "youtube/search-videos-test.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		sp, err := parseSearchJSON(body)
		if err != nil || len(sp.Videos) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDetectBlockWatchPage(b *testing.B) {
	page := scrapertest.Fixture(b, "youtube/watch-page.html")
	r := mkResponse(200, "https://www.youtube.com/watch?v=GJLlxj_dtq8", page)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if detectBlock(r) != nil {
			b.Fatal("the watch page was taken for a block")
		}
	}
}

func BenchmarkDetectBlockConsentPage(b *testing.B) {
	page := scrapertest.Fixture(b, "youtube/consent-page.html")
	r := mkResponse(200, "https://www.youtube.com/watch?v=Fx_N4GlwdEM", page)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if detectBlock(r) == nil {
			b.Fatal("consent page not detected")
		}
	}
}

func BenchmarkExtractComments(b *testing.B) {
	body := scrapertest.Testdata(b, "comments-entity.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if cp, err := parseCommentsJSON(body, "Go_pher1234"); err != nil || len(cp.Comments) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseTimedText(b *testing.B) {
	body := scrapertest.Testdata(b, "timedtext-srv3.xml")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if segs, err := parseTimedText(body); err != nil || len(segs) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseChannelPage(b *testing.B) {
	page := scrapertest.Testdata(b, "channel-videos.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, pg, err := parseChannelPage(page); err != nil || len(pg.Videos) == 0 {
			b.Fatal(err)
		}
	}
}

// A browse continuation of 30 videos, the size YouTube sends for a
// channel's Videos tab.
func BenchmarkParseBrowseContinuation(b *testing.B) {
	body := genBrowsePage(2, 30, "NEXT")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var data any
		if err := json.Unmarshal(body, &data); err != nil {
			b.Fatal(err)
		}
		if pg := parseBrowseContinuation(data); len(pg.Videos) != 30 {
			b.Fatalf("%d videos", len(pg.Videos))
		}
	}
}

package tiktok

import (
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func BenchmarkParseVideoPage(b *testing.B) {
	body := videoPage(b, scrapertest.Fixture(b, "tiktok/video-item-struct.json"))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parsePage(body, "u"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseItemList(b *testing.B) {
	item := string(scrapertest.Fixture(b, "tiktok/listing-item.json"))
	body := `{"cursor":"30","hasMore":true,"itemList":[`
	for i := range 30 { // one API page of the real item
		if i > 0 {
			body += ","
		}
		body += item
	}
	body += `]}`
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		l, err := parseItemList([]byte(body), "s")
		if err != nil || len(l.Videos) != 30 {
			b.Fatal(err)
		}
	}
}

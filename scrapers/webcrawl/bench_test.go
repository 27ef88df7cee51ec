package webcrawl

import (
	"net/url"
	"testing"
)

// BenchmarkExtract runs today's pipeline and the baseline (the pipeline
// before issue 12: trafilatura on a goquery document, a converter built per
// call) on each fixture page, side by side in one run:
//
//	go test ./scrapers/webcrawl -run XXX -bench Extract -benchmem
func BenchmarkExtract(b *testing.B) {
	for _, name := range realPages {
		body, _ := loadPage(b, name)
		u, _ := url.Parse("https://example.com/" + name)
		b.Run(name+"/baseline", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := extractBaseline(body, u, DefaultMaxLength); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/now", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := Extract(body, u, ExtractOptions{MaxLength: DefaultMaxLength}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

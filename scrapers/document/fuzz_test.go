package document

import (
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

// checkBounded: a conversion that succeeds gives valid UTF-8 within
// max_length, and one that fails says why.
func checkBounded(t *testing.T, d *Document, err error, o Options) {
	t.Helper()
	if err != nil {
		if err.Error() == "" {
			t.Fatal("an error without a reason")
		}
		return
	}
	if !utf8.ValidString(d.Markdown) {
		t.Fatalf("invalid UTF-8 in the Markdown: %q", d.Markdown)
	}
	if n := utf8.RuneCountInString(d.Markdown); n > o.MaxLength {
		t.Fatalf("%d characters, above max_length %d", n, o.MaxLength)
	}
	if d.Links == nil || len(d.Links) > maxPDFLinks+MaxFeedEntries {
		t.Fatalf("links: %d", len(d.Links))
	}
}

// FuzzConvertPDF: any bytes, converted with the caps on (5 pages, 2000
// characters, 10 s), end in a bounded document or a named error, never a
// panic or a hang; the engine keeps working. Minimising a PDF-sized input
// takes many runs: cap it (-fuzzminimizetime 3s) or the progress line
// stands still while it goes on.
func FuzzConvertPDF(f *testing.F) {
	small := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "Hello, fuzz.", "2023. # not a heading")}}, pdftest.Options{Title: "T"})
	f.Add(small)
	f.Add(small[:len(small)/2])
	f.Add(pdftest.PDF([]pdftest.Page{{Shapes: true}}, pdftest.Options{}))
	f.Add(pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "locked")}}, pdftest.Options{Encrypt: true, OwnerPassword: "o"}))
	f.Add(samplePaper())
	f.Add(xrefLoop(small))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"))
	o := Options{MaxPages: 5, MaxLength: 2000}.withDefaults()
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d, err := Convert(ctx, PDF, body, o)
		if ctx.Err() != nil {
			t.Fatalf("not done within 10 s")
		}
		checkBounded(t, d, err, o)
	})
}

// FuzzConvertText: JSON, CSV, feeds, Markdown and text of any bytes, with
// the caps on, end bounded or with a named error.
func FuzzConvertText(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, "a,b\n1,2\n\"x\ny\",3\n", "<rss><channel><title>t</title><item><title>i</title><link>https://a.example/</link></item></channel></rss>",
		`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>e</title></entry></feed>`, "# t\n\ntext", "[[[[[[", `{"a":"` + "```" + `"}`} {
		for k := byte(0); k < 5; k++ {
			f.Add(k, []byte(s))
		}
	}
	kinds := []Kind{JSON, CSV, Feed, Markdown, Text}
	o := Options{MaxRows: 20, MaxLength: 1000}.withDefaults()
	f.Fuzz(func(t *testing.T, k byte, body []byte) {
		d, err := Convert(context.Background(), kinds[int(k)%len(kinds)], body, o)
		checkBounded(t, d, err, o)
	})
}

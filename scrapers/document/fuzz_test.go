package document

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
	"unicode"
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
	f.Add(arxivPaper())
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

// FuzzLayout: lines of any text at any place and size (NaN and infinite
// ones too), rotated or cut at a hyphen, lay out without a panic, in
// valid UTF-8, keeping every line's letters (reading order, joined row
// pieces and broken words move them, never drop them).
func FuzzLayout(f *testing.F) {
	f.Add([]byte("\x00\x10\x60\xf0\x0aef-\x01\x10\x60\xe8\x0aficient text\x00\x90\xf0\xf0\x0a, Barlas Oguz\x04\x10\x20\x10\x14arXiv:1\xff\x00\x00\x00\x00x"))
	f.Add(bytes.Repeat([]byte("\x00\x10\x60\xf0\x09a line of running text -\x00\x80\xd0\xf0\x09second column text here\n"), 12))
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0}
	f.Fuzz(func(t *testing.T, data []byte) {
		var page pageLines
		page.number = 1
		for len(data) >= 5 && len(page.lines) < 400 {
			flags, l, r, top, size := data[0], float64(data[1])*3, float64(data[2])*3, float64(data[3])*3, float64(data[4]%40)
			data = data[5:]
			end := bytes.IndexByte(data, '\n')
			if end < 0 {
				end = len(data)
			}
			text := strings.ToValidUTF8(string(data[:end]), "?")
			data = data[min(end+1, len(data)):]
			ln := textLine{text: text, left: l, right: r, top: top, bottom: top - size, size: size, placed: flags&1 == 0,
				rotated: flags&4 != 0, softBreak: flags&8 != 0, bold: flags&16 != 0, weighed: flags&16 != 0}
			if flags&2 != 0 {
				ln.left = vals[int(flags>>5)%len(vals)]
			}
			page.lines = append(page.lines, ln)
		}
		lay := layout([]pageLines{page})
		if !utf8.ValidString(lay.markdown) || !utf8.ValidString(lay.title) {
			t.Fatalf("invalid UTF-8")
		}
		want, got := letters(page.lines), letters([]textLine{{text: lay.markdown}})
		for r, n := range want {
			if got[r] < n {
				t.Fatalf("the letter %q: %d in the lines, %d laid out", r, n, got[r])
			}
		}
	})
}

func letters(lines []textLine) map[rune]int {
	m := map[rune]int{}
	for _, l := range lines {
		for _, r := range l.text {
			if unicode.IsLetter(r) {
				m[r]++
			}
		}
	}
	return m
}

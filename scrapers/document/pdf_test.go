package document

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

func convertPDFTest(t *testing.T, pdf []byte, o Options) (*Document, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return Convert(ctx, PDF, pdf, o)
}

// samplePaper is two pages: a title in large bold type, an author line, a
// bold section heading, paragraphs, a bulleted and a numbered list, literal
// text that reads as Markdown, and a second page.
func samplePaper() []byte {
	p1 := []pdftest.Text{{X: 72, Y: 720, Size: 20, Bold: true, S: "A Study of Small Things"}}
	p1 = append(p1, pdftest.Lines(72, 690, 11, "Ada Lovelace and Charles Babbage")...)
	p1 = append(p1, pdftest.Text{X: 72, Y: 660, Size: 11, Bold: true, S: "1. Introduction"})
	p1 = append(p1, pdftest.Lines(72, 640, 11,
		"Small things matter more than large ones, as every careful",
		"reader of this study will find by the end of the year",
		"2023. The <b class=x> tag and *stars* are literal text here.",
	)...)
	p1 = append(p1, pdftest.Lines(72, 570, 11, "• the first point", "• the second point")...)
	p1 = append(p1, pdftest.Lines(72, 520, 11, "1. Step one", "2. Step two")...)
	p2 := pdftest.Lines(72, 720, 11, "The second page goes on with the argument.", "It ends here.")
	return pdftest.PDF([]pdftest.Page{{Texts: p1}, {Texts: p2}}, pdftest.Options{Title: "A Study of Small Things", Author: "Ada Lovelace", Lang: "en-GB"})
}

func TestPDFToMarkdown(t *testing.T) {
	d, err := convertPDFTest(t, samplePaper(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown
	for _, want := range []string{
		"# A Study of Small Things\n",
		"## 1. Introduction\n", // bold at the body's size: a section heading
		"Small things matter more than large ones, as every careful\nreader of this study",
		"\n2023\\. The \\<b class=x> tag and \\*stars\\* are literal text here.",
		"- the first point\n\n- the second point",
		"1\\. Step one\n\n2\\. Step two",
		"<!-- page 2 -->\n\nThe second page goes on with the argument.\nIt ends here.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if d.Title != "A Study of Small Things" || d.Author != "Ada Lovelace" || d.Language != "en-GB" || d.Pages != 2 {
		t.Errorf("title %q author %q language %q pages %d", d.Title, d.Author, d.Language, d.Pages)
	}
	if len(d.Truncated) != 0 {
		t.Errorf("nothing was cut, yet truncated says %q", d.Truncated)
	}
	// What CommonMark reads back is the PDF's text, word for word.
	if f1, _, _ := wordF1(renderedText(md), "A Study of Small Things Ada Lovelace and Charles Babbage 1. Introduction "+
		"Small things matter more than large ones, as every careful reader of this study will find by the end of the year "+
		"2023. The <b class=x> tag and *stars* are literal text here. • the first point • the second point 1. Step one 2. Step two "+
		"The second page goes on with the argument. It ends here."); f1 != 1 {
		t.Errorf("CommonMark reads back other words (F1 %.3f): %q", f1, renderedText(md))
	}
	if !strings.Contains(renderedText(md), "2023. The <b class=x> tag and *stars*") {
		t.Errorf("the literal text does not read back as written: %q", renderedText(md))
	}
}

func TestPDFTableOfNumbers(t *testing.T) {
	row := func(y float64, cells ...string) []pdftest.Text {
		var out []pdftest.Text
		for i, c := range cells {
			out = append(out, pdftest.Text{X: 72 + float64(i)*110, Y: y, Size: 10, S: c})
		}
		return out
	}
	var texts []pdftest.Text
	texts = append(texts, pdftest.Lines(72, 740, 10, "Sales by region, in thousands.")...)
	texts = append(texts, row(710, "Region", "2024", "2025", "Change")...)
	texts = append(texts, row(696, "North East", "1,204", "1,377", "+14.4%")...)
	texts = append(texts, row(682, "South", "880", "845", "-4.0%")...)
	texts = append(texts, row(668, "West | Pacific", "2,010", "2,390", "+18.9%")...)
	texts = append(texts, pdftest.Lines(72, 640, 10, "Totals are rounded.")...)
	d, err := convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Texts: texts}}, pdftest.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Sales by region, in thousands.\n\n| Region | 2024 | 2025 | Change |\n| --- | --- | --- | --- |\n| North East | 1,204 | 1,377 | +14.4% |\n" +
		"| South | 880 | 845 | -4.0% |\n| West \\| Pacific | 2,010 | 2,390 | +18.9% |\n\nTotals are rounded.\n"
	if d.Markdown != want {
		t.Errorf("a table of numbers:\n%s\nwant\n%s", d.Markdown, want)
	}
}

func TestPDFJunkInfoTitleGivesTheFirstHeading(t *testing.T) {
	pdf := pdftest.PDF([]pdftest.Page{{Texts: append([]pdftest.Text{{X: 72, Y: 720, Size: 18, S: "Quarterly Report"}},
		pdftest.Lines(72, 690, 10, "Revenue rose in every region this quarter.")...)}}, pdftest.Options{Title: "Binder1.pdf"})
	d, err := convertPDFTest(t, pdf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Quarterly Report" {
		t.Errorf("title %q, want the first heading rather than a file name", d.Title)
	}
}

func TestPDFTwoColumnsReadColumnByColumn(t *testing.T) {
	left := pdftest.Lines(72, 700, 10, "Left column first line,", "left column second line,", "left column last line.")
	right := pdftest.Lines(320, 700, 10, "Right column first line,", "right column second line,", "right column last line.")
	d, err := convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Texts: append(left, right...)}}, pdftest.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Left column first line,\nleft column second line,\nleft column last line.\n\nRight column first line,\nright column second line,\nright column last line."
	if !strings.Contains(d.Markdown, want) {
		t.Errorf("the columns are not read one after the other:\n%s", d.Markdown)
	}
}

func TestPDFPasswords(t *testing.T) {
	pages := []pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "Rates for home loans in the second quarter.")}}
	_, err := convertPDFTest(t, pdftest.PDF(pages, pdftest.Options{Encrypt: true, UserPassword: "open", OwnerPassword: "perm"}), Options{})
	if !errors.Is(err, ErrPassword) || !strings.Contains(err.Error(), "needs a password") {
		t.Errorf("a PDF that needs a user password: %v", err)
	}
	d, err := convertPDFTest(t, pdftest.PDF(pages, pdftest.Options{Encrypt: true, OwnerPassword: "perm", Title: "Home Loan Rates"}), Options{})
	if err != nil {
		t.Fatalf("a PDF with only an owner password must open: %v", err)
	}
	if !strings.Contains(d.Markdown, "Rates for home loans in the second quarter.") || d.Title != "Home Loan Rates" {
		t.Errorf("an owner-password PDF was not converted: %q %q", d.Title, d.Markdown)
	}
}

func TestPDFWithoutTextLayer(t *testing.T) {
	_, err := convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Shapes: true}, {Shapes: true}}, pdftest.Options{}), Options{})
	var de *Error
	if !errors.Is(err, ErrNoText) || !errors.As(err, &de) || !strings.Contains(err.Error(), "no OCR") || !strings.Contains(err.Error(), "2 pages") {
		t.Errorf("a scan: %v", err)
	}
	// A scanned page among text pages is a note, not a failure.
	d, err := convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "Text on the first page.")}, {Shapes: true}}, pdftest.Options{}), Options{})
	if err != nil || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "1 of the 2 pages read have no text layer") {
		t.Errorf("a scanned page among text pages: %v %q", err, d.Notes)
	}
}

func manyPages(n int) []byte {
	pages := make([]pdftest.Page, n)
	for i := range pages {
		lines := make([]string, 40)
		for j := range lines {
			lines[j] = fmt.Sprintf("Page %d line %d says something worth reading about the subject.", i+1, j+1)
		}
		pages[i] = pdftest.Page{Texts: pdftest.Lines(72, 740, 10, lines...)}
	}
	return pdftest.PDF(pages, pdftest.Options{})
}

func TestPDFBounds(t *testing.T) {
	pdf := manyPages(6)
	d, err := convertPDFTest(t, pdf, Options{MaxPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages != 6 || !hasPrefix(d.Truncated, "pages: only the first 2 of 6 pages") || strings.Contains(d.Markdown, "Page 3 line") || !strings.Contains(d.Markdown, "Page 2 line 40") {
		t.Errorf("max pages 2: pages %d truncated %q", d.Pages, d.Truncated)
	}
	d, err = convertPDFTest(t, pdf, Options{MaxLength: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(d.Markdown)); n > 3000 || n < 2000 || !hasPrefix(d.Truncated, "max_length: the Markdown was cut at 3000 characters, within page") {
		t.Errorf("max_length 3000: %d characters, truncated %q", n, d.Truncated)
	}
}

// A PDF that takes longer than its time gives the pages read by then, or
// says it ran out of time; the engine goes on converting afterwards.
func TestPDFTimeout(t *testing.T) {
	pdf := manyPages(300)
	d, err := convertPDFTest(t, pdf, Options{MaxLength: 1_000_000, Timeout: 300 * time.Millisecond})
	switch {
	case errors.Is(err, ErrTimeout):
		t.Logf("no page in time: %v", err)
	case err != nil:
		t.Fatal(err)
	case !hasPrefix(d.Truncated, "timeout: the time to convert (300ms) ran out at page") || strings.Contains(d.Markdown, "Page 300 line"):
		t.Errorf("out of time: truncated %q", d.Truncated)
	}
	if d, err := convertPDFTest(t, samplePaper(), Options{}); err != nil || !strings.Contains(d.Markdown, "It ends here.") {
		t.Errorf("after a timeout: %v", err)
	}
}

func hasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// A PDF cut short (an interrupted download) gives the pages that could be
// read and says it is damaged; a cut at the download cap says that too.
func TestPDFCutShort(t *testing.T) {
	pdf := manyPages(6)
	cut := pdf[:len(pdf)*2/3]
	d, err := convertPDFTest(t, cut, Options{})
	if err != nil {
		t.Fatalf("a cut PDF: %v", err)
	}
	if !hasPrefix(d.Truncated, "damaged: the file ends early") || !strings.Contains(d.Markdown, "Page 1 line 1 says") {
		t.Errorf("a cut PDF: truncated %q, %d characters", d.Truncated, len(d.Markdown))
	}
	d, err = convertPDFTest(t, cut, Options{Cut: true, CutReason: "document_bytes: the file is larger than 1000 bytes"})
	if err != nil || len(d.Truncated) == 0 || d.Truncated[0] != "document_bytes: the file is larger than 1000 bytes" {
		t.Errorf("a PDF cut at the download cap: %v %v", err, d)
	}
	_, err = convertPDFTest(t, []byte("<html><body>not a pdf</body></html>"), Options{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "does not start with %PDF-") {
		t.Errorf("HTML sent as a PDF: %v", err)
	}
}

// Hostile PDFs end within their bounds, with an answer or a clear error.
func TestPDFHostile(t *testing.T) {
	base := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "An ordinary page.")}}, pdftest.Options{})
	cases := map[string][]byte{
		"deep nesting":         appendObject(base, "99 0 obj\n"+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+"\nendobj\n", "/Nest 99 0 R"),
		"decompression bomb":   bomb(base, 300<<20),
		"cross-reference loop": xrefLoop(base),
		"garbage after header": append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("<<[(\\"), 100000)...),
	}
	for name, pdf := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			d, err := Convert(ctx, PDF, pdf, Options{})
			if ctx.Err() != nil {
				t.Fatalf("not done within 30 s (%v)", time.Since(t0))
			}
			if err == nil && d.Markdown == "" {
				t.Fatalf("an empty success")
			}
			t.Logf("%v in %v", errOr(err, d), time.Since(t0).Round(time.Millisecond))
		})
	}
	// And the engine still converts afterwards.
	if _, err := convertPDFTest(t, base, Options{}); err != nil {
		t.Fatalf("after the hostile PDFs: %v", err)
	}
}

func errOr(err error, d *Document) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("converted: %d characters, truncated %q", len(d.Markdown), d.Truncated)
}

// appendObject adds an object as an incremental update and refers to it
// from the catalog.
func appendObject(pdf []byte, obj, entry string) []byte {
	var b bytes.Buffer
	b.Write(pdf)
	off := b.Len()
	b.WriteString(obj)
	cat := b.Len()
	fmt.Fprintf(&b, "1 0 obj\n<< /Type /Catalog /Pages 2 0 R %s >>\nendobj\n", entry)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n1 1\n%010d 00000 n \n99 1\n%010d 00000 n \ntrailer\n<< /Size 100 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", cat, off, lastStartxref(pdf), xref)
	return b.Bytes()
}

func lastStartxref(pdf []byte) int {
	i := bytes.LastIndex(pdf, []byte("startxref\n"))
	n := 0
	for _, c := range pdf[i+len("startxref\n"):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// bomb replaces the first page's content with a Flate stream that inflates
// to n bytes of spaces.
func bomb(base []byte, n int) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < n>>20; i++ {
		zw.Write(chunk)
	}
	zw.Close()
	var b bytes.Buffer
	b.Write(base)
	off := b.Len()
	fmt.Fprintf(&b, "8 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", z.Len())
	b.Write(z.Bytes())
	b.WriteString("\nendstream\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n8 1\n%010d 00000 n \ntrailer\n<< /Size 9 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", off, lastStartxref(base), xref)
	return b.Bytes()
}

// xrefLoop adds an update whose trailer's /Prev points at itself.
func xrefLoop(base []byte) []byte {
	var b bytes.Buffer
	b.Write(base)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 9 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", xref, xref)
	return b.Bytes()
}

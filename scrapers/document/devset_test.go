package document

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// pdfFixtures is the development set's folder ($PDF_FIXTURES_DIR, else
// shared/fixtures/pdfs); the test skips, saying so, when it is absent.
func pdfFixtures(tb testing.TB) (dir string, names []string) {
	tb.Helper()
	dir = os.Getenv("PDF_FIXTURES_DIR")
	if dir == "" {
		base, err := scrapertest.FixturesDir()
		if err != nil {
			tb.Skipf("no fixtures folder: %v", err)
		}
		dir = filepath.Join(base, "pdfs")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if len(files) == 0 {
		tb.Skipf("the PDF development set is absent (%s): set PDF_FIXTURES_DIR or lay out shared/fixtures/pdfs", dir)
	}
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".pdf"))
	}
	sort.Strings(names)
	return dir, names
}

// special are the development set's files that must fail with a named
// reason, or that must open although encrypted.
var special = map[string]error{
	"scan-no-text-zh-penalty": ErrNoText,
	"encrypted-user-password": ErrPassword,
}

func TestDevelopmentSetQuality(t *testing.T) {
	dir, names := pdfFixtures(t)
	var sum float64
	var n int
	for _, name := range names {
		body, err := os.ReadFile(filepath.Join(dir, name+".pdf"))
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		t0 := time.Now()
		d, err := Convert(ctx, PDF, body, Options{MaxLength: 1_000_000})
		took := time.Since(t0)
		cancel()
		if want, ok := special[name]; ok {
			if !errors.Is(err, want) {
				t.Errorf("%s: got %v, %v; want the error %q", name, d != nil, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "truncated-tracemonkey" {
			if len(d.Truncated) == 0 || !strings.Contains(strings.Join(d.Truncated, " "), "damaged") {
				t.Errorf("%s: a cut file must be marked truncated as damaged: %q", name, d.Truncated)
			}
			t.Logf("%-30s (cut file) %d pages, %d chars, truncated %q", name, d.Pages, len(d.Markdown), d.Truncated)
			continue
		}
		f1, p, r := wordF1(renderedText(d.Markdown), string(ref))
		sum += f1
		n++
		t.Logf("%-30s F1 %.3f (P %.3f R %.3f) %6.0f ms  pages %d title %q author %q lang %q", name, f1, p, r, float64(took.Microseconds())/1000, d.Pages, d.Title, d.Author, d.Language)
		if f1 < 0.85 {
			t.Errorf("%s: word F1 %.3f against pdftotext, below 0.85", name, f1)
		}
		if info, err := os.ReadFile(filepath.Join(dir, name+".pdfinfo.txt")); err == nil {
			if pages := infoField(string(info), "Pages"); pages != "" && pages != itoaTest(d.Pages) {
				t.Errorf("%s: %d pages, pdfinfo says %s", name, d.Pages, pages)
			}
		}
		checkFacts(t, name, d, string(ref), filepath.Join(dir, name+".pdfinfo.txt"))
		if os.Getenv("PDF_DUMP_DIR") != "" {
			os.WriteFile(filepath.Join(os.Getenv("PDF_DUMP_DIR"), name+".md"), []byte(d.Markdown), 0o644)
		}
	}
	mean := sum / float64(n)
	t.Logf("mean word F1 %.4f over %d documents with a text layer", mean, n)
	if mean < 0.95 {
		t.Errorf("mean word F1 %.4f against pdftotext, below the goal 0.95", mean)
	}
}

// checkFacts: the info Title where it is a real title is the item's title,
// and a sentence of the middle page and of the last page (from the
// reference, compared without non-word characters, lower-cased) are in the
// text as CommonMark reads it.
func checkFacts(t *testing.T, name string, d *Document, ref, infoPath string) {
	t.Helper()
	info, _ := os.ReadFile(infoPath)
	if title := infoField(string(info), "Title"); usableTitle(title) != "" && d.Title != title {
		t.Errorf("%s: title %q, the info Title is %q", name, d.Title, title)
	}
	text := squash(renderedText(d.Markdown))
	pages := strings.Split(strings.TrimRight(ref, "\f\n"), "\f")
	for _, p := range []int{len(pages) / 2, len(pages) - 1} {
		sentence := longestLine(pages[p])
		if sentence == "" {
			continue
		}
		if !strings.Contains(text, squash(sentence)) && !knownMiss[name] {
			t.Errorf("%s: page %d's line %q is not in the text", name, p+1, sentence)
		}
	}
}

// knownMiss are documents whose sentences PDFium's text does not hold word
// for word: ru-datasheet-ocr's OCR layer draws one-letter words ("и", "в")
// where PDFium takes them for duplicates and drops them (its F1 is still
// checked above).
var knownMiss = map[string]bool{"ru-datasheet-ocr": true}

// squash keeps letters and digits, lower-cased.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

func longestLine(page string) string {
	best := ""
	for _, l := range strings.Split(page, "\n") {
		if len(strings.Fields(l)) >= 4 && len(l) > len(best) {
			best = l
		}
	}
	return best
}

func infoField(info, field string) string {
	for _, l := range strings.Split(info, "\n") {
		if strings.HasPrefix(l, field+":") {
			return strings.TrimSpace(strings.TrimPrefix(l, field+":"))
		}
	}
	return ""
}

func itoaTest(n int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string {
		s := []byte{}
		if n == 0 {
			return "0"
		}
		for n > 0 {
			s = append([]byte{byte('0' + n%10)}, s...)
			n /= 10
		}
		return string(s)
	}())
}

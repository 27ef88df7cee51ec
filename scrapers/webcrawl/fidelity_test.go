package webcrawl

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/markusmobius/go-trafilatura"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl/trafdev"
	"github.com/surfsense/pluginhost/scrapers/webcrawl/wcxb"
)

// The fidelity gate: web-crawl's main content on the WCXB development
// split (../shared/fixtures/wcxb-dev), scored as the benchmark scores it.
// These are the floors this extractor reached (issue 20; all and article
// raised with issue 30), each a little
// under what it scored, and each at or above go-trafilatura's score on the
// same pages (BenchmarkFidelitySideBySide); a change that falls below any
// of them, or leaves any page with text empty, fails.
var fidelityFloor = map[string]float64{
	wcxb.All:        0.876,
	"article":       0.953,
	"forum":         0.827,
	"product":       0.636,
	"collection":    0.720,
	"listing":       0.721,
	"documentation": 0.933,
	"service":       0.850,
}

// fidelityMaxLength is large enough that no page of the split is cut:
// fidelity measures extraction, not the answer's cap.
const fidelityMaxLength = 1 << 22

func wcxbDir(tb testing.TB) string {
	tb.Helper()
	dir, err := scrapertest.FixturesDir()
	if err != nil {
		tb.Skipf("fixtures folder unknown (%v): the fidelity gate is skipped", err)
	}
	dir = filepath.Join(dir, "wcxb-dev")
	if _, err := os.Stat(filepath.Join(dir, "dev", "ground-truth")); err != nil {
		tb.Skipf("%s is absent: the fidelity gate on the WCXB development split is skipped", dir)
	}
	return dir
}

type fidelityRun struct {
	table  *wcxb.Table
	times  []time.Duration
	preds  map[string]string
	silent []string // pages with text whose answer is empty without a word why
	shells []string // pages whose HTML holds no text: empty, and the item says so
}

// extractor is one extractor under test: a page's text, and whether an
// empty text comes with a note saying why.
type extractor func(body []byte, u *url.URL) (text string, said bool, err error)

// extracted is what extractAll found for one page.
type extracted struct {
	text string
	said bool // the extractor said the page holds no text
	err  error
	took time.Duration
}

// extractAll runs extract on n pages, on GOMAXPROCS workers; load gives page
// i's bytes and address (an address that does not parse is example.com's).
func extractAll(n int, load func(i int) ([]byte, string, error), extract extractor) []extracted {
	out := make([]extracted, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				body, raw, err := load(i)
				if err != nil {
					out[i].err = err
					continue
				}
				u, err := url.Parse(raw)
				if err != nil || u.Host == "" {
					u, _ = url.Parse("https://example.com/")
				}
				start := time.Now()
				out[i].text, out[i].said, out[i].err = extract(body, u)
				out[i].took = time.Since(start)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// runFidelity extracts every page with extract, on GOMAXPROCS workers, and
// scores the text.
func runFidelity(tb testing.TB, dir string, pages []wcxb.Page, extract extractor) fidelityRun {
	run := fidelityRun{table: wcxb.NewTable(), times: make([]time.Duration, len(pages)), preds: make(map[string]string, len(pages))}
	got := extractAll(len(pages), func(i int) ([]byte, string, error) {
		body, err := wcxb.HTML(dir, pages[i].ID)
		return body, pages[i].URL, err
	}, extract)
	for i, p := range pages {
		e := got[i]
		if e.err != nil {
			tb.Errorf("page %s: %v", p.ID, e.err)
		}
		run.times[i] = e.took
		run.table.Add(p, e.text)
		run.preds[p.ID] = e.text
		if len(wcxb.Tokens(e.text)) == 0 {
			if e.said {
				run.shells = append(run.shells, p.ID)
			} else {
				run.silent = append(run.silent, p.ID)
			}
		}
	}
	return run
}

// ourText is web-crawl's text of a page served as UTF-8 HTML.
func ourText(body []byte, u *url.URL) (string, bool, error) {
	return ourTextAs("text/html; charset=utf-8")(body, u)
}

// ourTextAs is web-crawl as an extractor of pages served with contentType.
func ourTextAs(contentType string) extractor {
	return func(body []byte, u *url.URL) (string, bool, error) {
		p, err := Extract(body, u, ExtractOptions{MaxLength: fidelityMaxLength, ContentType: contentType})
		if err != nil {
			return "", false, err
		}
		return wcxb.MarkdownText(p.Markdown), slices.Contains(p.Notes, noteNoText), nil
	}
}

func trafilaturaText(body []byte, u *url.URL) (string, bool, error) {
	res, err := trafilatura.Extract(strings.NewReader(string(body)), trafilatura.Options{OriginalURL: u, EnableFallback: true})
	if err != nil || res == nil {
		return "", false, nil // go-trafilatura's "no content" is an empty answer
	}
	return res.ContentText, false, nil
}

func p50(ts []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func fidelityRows(tb testing.TB, name string, r fidelityRun) {
	tb.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-13s %-14s %5s %6s %6s %6s\n", name, "type", "pages", "F1", "P", "R")
	for _, k := range append([]string{wcxb.All}, wcxb.Types...) {
		m := r.table.Mean(k)
		fmt.Fprintf(&b, "%-13s %-14s %5d %6.4f %6.4f %6.4f\n", name, k, r.table.N[k], m.F1, m.P, m.R)
	}
	fmt.Fprintf(&b, "%-13s empty answers: %d without a word %v, %d said to be pages without text %v; p50 time per page: %v\n",
		name, len(r.silent), r.silent, len(r.shells), r.shells, p50(r.times))
	printRows(tb, "\n"+b.String())
}

// printRows writes a table of figures: to the test's log, or to the
// output for a benchmark (whose log is cut short).
func printRows(tb testing.TB, s string) {
	tb.Helper()
	if _, bench := tb.(*testing.B); bench {
		fmt.Print(strings.TrimPrefix(s, "\n"))
		return
	}
	tb.Log(s)
}

// TestFidelityGate holds web-crawl's extraction to the floors above on the
// whole development split. WCXB_PREDICTIONS=<file> also writes the
// predictions as evaluate.py reads them.
func TestFidelityGate(t *testing.T) {
	dir := wcxbDir(t)
	pages, err := wcxb.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := runFidelity(t, dir, pages, ourText)
	// An empty answer is allowed only where the page's HTML holds no text
	// at all (an app shell its scripts fill), and the item says so.
	fidelityRows(t, "web-crawl", r)
	if f := os.Getenv("WCXB_PREDICTIONS"); f != "" {
		b, _ := json.Marshal(r.preds)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, floor := range fidelityFloor {
		if got := r.table.Mean(k).F1; got < floor {
			t.Errorf("F1 on %s pages is %.4f, below the floor %.3f", k, got, floor)
		}
	}
	if len(r.silent) > 0 {
		t.Errorf("%d pages came back empty without a word: %v", len(r.silent), r.silent)
	}
	// A page said to hold no text must hold none that a reader sees.
	for _, id := range r.shells {
		body, _ := wcxb.HTML(dir, id)
		if sc := scanPage(body, &url.URL{Scheme: "https", Host: "example.com"}, Limits{}, true); sc.inkBytes > 200 || len(sc.noscript) > 200 {
			t.Errorf("page %s was said to hold no text, but its HTML holds %d bytes of it", id, sc.inkBytes)
		}
	}
}

// BenchmarkFidelitySideBySide runs web-crawl's extractor and go-trafilatura
// (with its fallback) over the same pages in one run and prints both tables
// with the p50 time per page, for wcxb-dev and, when it is there, traf-dev;
// the figures are reported as metrics.
func BenchmarkFidelitySideBySide(b *testing.B) {
	dir := wcxbDir(b)
	pages, err := wcxb.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	// traf-dev (multilingual) is read too when it is there.
	var tdir string
	var tpages []trafdev.Page
	if d, err := scrapertest.FixturesDir(); err == nil {
		if ps, err := trafdev.Load(filepath.Join(d, "traf-dev")); err == nil {
			tdir, tpages = filepath.Join(d, "traf-dev"), ps
		} else {
			fmt.Printf("traf-dev not read (%v): its rows are left out\n", err)
		}
	}
	for range b.N {
		ours := runFidelity(b, dir, pages, ourText)
		traf := runFidelity(b, dir, pages, trafilaturaText)
		fidelityRows(b, "web-crawl", ours)
		fidelityRows(b, "trafilatura", traf)
		if tpages != nil {
			tOurs := runTraf(b, tdir, tpages, ourTrafText)
			tTraf := runTraf(b, tdir, tpages, trafilaturaText)
			trafRows(b, "web-crawl", tOurs)
			trafRows(b, "trafilatura", tTraf)
			b.ReportMetric(tOurs.total.F1(), "trafdev-F1-ours")
			b.ReportMetric(tTraf.total.F1(), "trafdev-F1-trafilatura")
		}
		b.ReportMetric(ours.table.Mean(wcxb.All).F1, "F1-ours")
		b.ReportMetric(traf.table.Mean(wcxb.All).F1, "F1-trafilatura")
		b.ReportMetric(float64(p50(ours.times).Microseconds())/1000, "p50-ms-ours")
		b.ReportMetric(float64(p50(traf.times).Microseconds())/1000, "p50-ms-trafilatura")
	}
}

package document

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// BenchmarkPDF converts each document of the development set that has a
// text layer and runs poppler's pdftotext on it, alternating within the same
// loop so that the machine's drift falls on both alike, and reports per
// document: ms/doc (this converter, whole document: max_length 1,000,000),
// pdftotext-ms/doc (the process, as the reference was made), their ratio, and
// the word F1 of the Markdown (as CommonMark reads it) against the
// reference text. The "mean" sub-benchmark reports the means.
//
//	go test ./scrapers/document -run '^$' -bench PDF$ -benchtime 3x
func BenchmarkPDF(b *testing.B) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext is not installed (Debian: apt-get install poppler-utils): the side-by-side benchmark is skipped")
	}
	dir, names := pdfFixtures(b)
	if _, err := WarmUp(); err != nil {
		b.Fatal(err)
	}
	var sumF1, sumRatio, sumOurs, sumTheirs float64
	var n int
	for _, name := range names {
		if _, ok := special[name]; ok || name == "truncated-tracemonkey" {
			continue
		}
		path := filepath.Join(dir, name+".pdf")
		body, _ := os.ReadFile(path)
		ref, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		var f1, ours, theirs float64
		b.Run(name, func(b *testing.B) {
			var our, their time.Duration
			var md string
			for b.Loop() {
				t0 := time.Now()
				d, err := Convert(context.Background(), PDF, body, Options{MaxLength: 1_000_000})
				our += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				md = d.Markdown
				t0 = time.Now()
				if out, err := exec.Command(pdftotext, path, "-").Output(); err != nil || len(out) == 0 {
					b.Fatalf("pdftotext: %v", err)
				}
				their += time.Since(t0)
			}
			f1, _, _ = wordF1(renderedText(md), string(ref))
			ours = float64(our.Microseconds()) / 1000 / float64(b.N)
			theirs = float64(their.Microseconds()) / 1000 / float64(b.N)
			b.ReportMetric(ours, "ms/doc")
			b.ReportMetric(theirs, "pdftotext-ms/doc")
			b.ReportMetric(ours/theirs, "ratio")
			b.ReportMetric(f1, "F1")
		})
		if ours > 0 {
			sumF1, sumRatio, sumOurs, sumTheirs, n = sumF1+f1, sumRatio+ours/theirs, sumOurs+ours, sumTheirs+theirs, n+1
		}
	}
	b.Run("mean", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(sumF1/float64(n), "F1")
		b.ReportMetric(sumOurs/float64(n), "ms/doc")
		b.ReportMetric(sumTheirs/float64(n), "pdftotext-ms/doc")
		b.ReportMetric(sumRatio/float64(n), "ratio")
	})
}

// BenchmarkPDFMemory converts the development set's largest document (352
// pages, whole: max_length 1,000,000) once and ten at once, and reports the
// process's peak RSS (VmHWM, reset before each run) and peak live heap; the
// engine is loaded first (from its compilation cache when warm).
//
//	go test ./scrapers/document -run '^$' -bench PDFMemory -benchtime 1x
func BenchmarkPDFMemory(b *testing.B) {
	dir, _ := pdfFixtures(b)
	body, err := os.ReadFile(filepath.Join(dir, "huge-freeculture.pdf"))
	if err != nil {
		b.Skip(err)
	}
	// The engine's load: from the compilation cache when it is warm, else
	// compiled (run with XDG_CACHE_HOME set to an empty folder to see that).
	var took time.Duration
	rss, heap := scrapertest.PeakDuring(func() {
		if took, err = WarmUp(); err != nil {
			b.Fatal(err)
		}
	})
	b.Logf("engine ready in %v: peak RSS %.0f MB, peak heap %.0f MB", took, rss, heap)
	for _, at := range []int{1, 10} {
		b.Run(strconv.Itoa(at)+"-at-once", func(b *testing.B) {
			var rss, heap float64
			for b.Loop() {
				runtime.GC()
				r, h := scrapertest.PeakDuring(func() {
					var wg sync.WaitGroup
					for range at {
						wg.Go(func() {
							if _, err := Convert(context.Background(), PDF, body, Options{MaxLength: 1_000_000}); err != nil {
								b.Error(err)
							}
						})
					}
					wg.Wait()
				})
				rss, heap = max(rss, r), max(heap, h)
			}
			b.ReportMetric(rss, "peak-RSS-MB")
			b.ReportMetric(heap, "peak-heap-MB")
		})
	}
}

// BenchmarkLayout lays out pages without the engine: a page of three
// columns of running text (600 lines), and a hostile one of 20,000 short
// lines strewn over a page 100,000 points wide (many candidate gutters);
// the work per page stays linear in its lines but for sorting.
//
//	go test ./scrapers/document -run '^$' -bench Layout
func BenchmarkLayout(b *testing.B) {
	columns := pageLines{number: 1}
	for c := 0; c < 3; c++ {
		for i := 0; i < 200; i++ {
			top := 760 - float64(i%60)*12
			columns.lines = append(columns.lines, textLine{text: "a line of running text in a column of the page, ef-", left: 40 + float64(c)*180, right: 200 + float64(c)*180,
				top: top, bottom: top - 10, size: 10, placed: true})
		}
	}
	strewn := pageLines{number: 1}
	for i := 0; i < 20000; i++ {
		x := float64((i * 7919) % 100000)
		top := float64((i * 104729) % 5000)
		strewn.lines = append(strewn.lines, textLine{text: "word, Name Name", left: x, right: x + 30, top: top, bottom: top - 8, size: 8, placed: true})
	}
	for name, p := range map[string]pageLines{"three-columns": columns, "strewn-20000": strewn} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				layout([]pageLines{p})
			}
		})
	}
}

package webcrawl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// documentSite is a stand-in serving files as servers do: a PDF with its
// type, the same PDF as application/octet-stream from a download URL, a scan
// and a locked PDF, a CSV and an RSS feed whose entries link to the PDF.
func documentSite(t *testing.T) *httptest.Server {
	paper := pdftest.PDF([]pdftest.Page{
		{Texts: append([]pdftest.Text{{X: 72, Y: 720, Size: 20, Bold: true, S: "Reading Small Papers"}},
			pdftest.Lines(72, 690, 11, "Papers are read one column at a time.", "2023. was a good year for reading.")...)},
		{Texts: pdftest.Lines(72, 720, 11, "The second page of the paper.")},
	}, pdftest.Options{Title: "Reading Small Papers", Author: "A. Reader", Subject: "How to read papers", Lang: "en"})
	scan := pdftest.PDF([]pdftest.Page{{Shapes: true}}, pdftest.Options{})
	locked := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 11, "Secret.")}}, pdftest.Options{Encrypt: true, UserPassword: "u", OwnerPassword: "o"})
	mux := http.NewServeMux()
	serve := func(path, ctype string, body []byte) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Write(body)
		})
	}
	serve("/paper.pdf", "application/pdf", paper)
	serve("/download", "application/octet-stream", paper)
	serve("/scan.pdf", "application/pdf", scan)
	serve("/locked.pdf", "application/pdf", locked)
	serve("/report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", []byte("PK\x03\x04 not read"))
	serve("/data.csv", "text/csv; charset=utf-8", []byte("city,people\nLyon,522000\n\"Saint-Étienne, Loire\",171000\nA|B,1\n"))
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	serve("/feed.xml", "application/rss+xml", []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Small Papers</title>`+
		`<link>`+site.URL+`/</link><description>New papers</description>`+
		`<item><title>Reading Small Papers</title><link>`+site.URL+`/paper.pdf</link><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate>`+
		`<description>&lt;p&gt;How to read &lt;b&gt;small&lt;/b&gt; papers.&lt;/p&gt;</description></item></channel></rss>`))
	return site
}

// TestDocumentsThroughTheHost: web-crawl over the host and the Go SDK client
// converts a PDF (by its type and from an octet-stream download), a CSV and
// a feed, follows the feed's entry to its PDF, and names why a scan and a
// locked PDF give no text.
func TestDocumentsThroughTheHost(t *testing.T) {
	site := documentSite(t)
	cs := hosttest.ConnectPlugin(t, webcrawl.ID, webcrawl.New, nil, nil)
	res, page := scrapertest.CallTool(t, cs, "crawl", map[string]any{
		"start_urls":      []string{site.URL + "/feed.xml", site.URL + "/data.csv", site.URL + "/download", site.URL + "/scan.pdf", site.URL + "/locked.pdf", site.URL + "/report.docx"},
		"max_crawl_depth": 1,
	})
	if res.IsError {
		t.Fatalf("crawl: %s", scrapertest.Text(res))
	}
	got := map[string]map[string]any{}
	for _, it := range page.Items {
		got[fmt.Sprint(it["url"])] = it
	}
	pdf := got[site.URL+"/paper.pdf"] // followed from the feed
	if pdf == nil || pdf["error"] != nil {
		t.Fatalf("the feed's PDF was not crawled: %v (items %v)", pdf, page.Items)
	}
	md := fmt.Sprint(pdf["markdown"])
	for _, want := range []string{"# Reading Small Papers", "2023\\. was a good year", "<!-- page 2 -->", "The second page of the paper."} {
		if !strings.Contains(md, want) {
			t.Errorf("the PDF's Markdown lacks %q: %s", want, md)
		}
	}
	doc, _ := pdf["document"].(map[string]any)
	if pdf["title"] != "Reading Small Papers" || pdf["byline"] != "A. Reader" || pdf["description"] != "How to read papers" || pdf["language"] != "en" || doc["kind"] != "pdf" || doc["pages"] != float64(2) || pdf["depth"] != float64(1) {
		t.Errorf("the PDF's item: title %v byline %v description %v language %v document %v depth %v", pdf["title"], pdf["byline"], pdf["description"], pdf["language"], doc, pdf["depth"])
	}
	if dl := got[site.URL+"/download"]; dl == nil || !strings.Contains(fmt.Sprint(dl["markdown"]), "# Reading Small Papers") {
		t.Errorf("a PDF served as application/octet-stream was not converted: %v", dl)
	}
	csv := got[site.URL+"/data.csv"]
	if csv == nil || !strings.Contains(fmt.Sprint(csv["markdown"]), "| city | people |\n| --- | --- |\n| Lyon | 522000 |\n| Saint-Étienne, Loire | 171000 |\n| A\\|B | 1 |") {
		t.Errorf("the CSV: %v", csv)
	}
	feed := got[site.URL+"/feed.xml"]
	if feed == nil || !strings.Contains(fmt.Sprint(feed["markdown"]), "- [Reading Small Papers]("+site.URL+"/paper.pdf) — 2026-12-01\n  How to read small papers.") || feed["title"] != "Small Papers" {
		t.Errorf("the feed: %v", feed)
	}
	if s := got[site.URL+"/scan.pdf"]; s == nil || !strings.Contains(fmt.Sprint(s["error"]), "PDF: the PDF has no text layer") {
		t.Errorf("a scanned PDF must say it has no text layer: %v", s)
	}
	if l := got[site.URL+"/locked.pdf"]; l == nil || !strings.Contains(fmt.Sprint(l["error"]), "needs a password") {
		t.Errorf("a locked PDF must say it needs a password: %v", l)
	}
	if d := got[site.URL+"/report.docx"]; d == nil || !strings.Contains(fmt.Sprint(d["error"]), "office documents (Word, Excel, PowerPoint, OpenDocument, EPUB) are not converted") {
		t.Errorf("a DOCX must say it is not converted: %v", d)
	}
	if !page.Partial {
		t.Errorf("two sources failed, yet the result is not partial")
	}
}

// TestLargePDFThroughTheHost: a PDF larger than max_length is cut there and
// says so; a larger max_length pages through get_result as pages do.
func TestLargePDFThroughTheHost(t *testing.T) {
	pages := make([]pdftest.Page, 40)
	for i := range pages {
		lines := make([]string, 45)
		for j := range lines {
			lines[j] = fmt.Sprintf("Page %d, line %d: a sentence long enough to fill the line with words.", i+1, j+1)
		}
		pages[i] = pdftest.Page{Texts: pdftest.Lines(72, 750, 10, lines...)}
	}
	big := pdftest.PDF(pages, pdftest.Options{})
	mux := http.NewServeMux()
	mux.HandleFunc("/big.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(big)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	cs := hosttest.ConnectPlugin(t, webcrawl.ID, webcrawl.New, map[string]string{"WEB_CRAWL_MAX_PDF_PAGES": "30"}, nil)

	res, page := scrapertest.CallTool(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/big.pdf"}, "max_length": 5000})
	if res.IsError || len(page.Items) != 1 {
		t.Fatalf("crawl: %s", scrapertest.Text(res))
	}
	it := page.Items[0]
	if n := len([]rune(fmt.Sprint(it["markdown"]))); n > 5000 || !strings.Contains(fmt.Sprint(it["truncated"]), "max_length: the Markdown was cut at 5000 characters, within page") {
		t.Errorf("max_length 5000: %d characters, truncated %v", n, it["truncated"])
	}

	res, page = scrapertest.CallTool(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/big.pdf"}, "max_length": 1_000_000})
	if res.IsError || len(page.Items) != 1 {
		t.Fatalf("crawl: %s", scrapertest.Text(res))
	}
	it = page.Items[0]
	if !strings.Contains(fmt.Sprint(it["truncated"]), "pages: only the first 30 of 40 pages were converted") {
		t.Errorf("WEB_CRAWL_MAX_PDF_PAGES 30: truncated %v", it["truncated"])
	}
	// The item is larger than RESULT_MAX_BYTES: as for a large page, the
	// host cuts its Markdown to fit and names the cut.
	var env struct {
		ResultID string `json:"result_id"`
		CutItems []struct {
			Fields []string `json:"fields"`
		} `json:"cut_items"`
	}
	json.Unmarshal([]byte(scrapertest.Text(res)), &env)
	if env.ResultID == "" || len(env.CutItems) != 1 || fmt.Sprint(env.CutItems[0].Fields) != "[markdown]" || strings.Contains(fmt.Sprint(it["markdown"]), "Page 30, line 45:") {
		t.Fatalf("a 30-page item larger than RESULT_MAX_BYTES: %.300s", scrapertest.Text(res))
	}
}

// BenchmarkPDFMemory converts the development set's largest PDF (352 pages,
// 2.6 MB, all of it: max_length 1,000,000) through a real host, once and
// then ten at once from ten licenses, and reports the process's peak RSS
// (host, stand-in and clients together; VmHWM reset before each run). The
// engine's first load comes first ("first": from the compilation cache when
// warm, else compiled).
//
//	go test ./scrapers/webcrawl -run XXX -bench PDFMemory -benchtime 1x
func BenchmarkPDFMemory(b *testing.B) {
	dir, err := scrapertest.FixturesDir()
	if err != nil {
		b.Skip(err)
	}
	pdf, err := os.ReadFile(filepath.Join(dir, "pdfs", "huge-freeculture.pdf"))
	if err != nil {
		b.Skipf("the PDF development set is absent (%v)", err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	}))
	defer site.Close()
	h := hosttest.Start(b, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	var n atomic.Int64
	crawl := func(cs *mcp.ClientSession) {
		u := site.URL + "/free-culture.pdf?n=" + strconv.FormatInt(n.Add(1), 10) // distinct calls: no cache answers
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{u}, "max_length": 1_000_000}})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError || !strings.Contains(scrapertest.Text(res), `"pages":352`) {
			b.Fatalf("not converted: %.300s", scrapertest.Text(res))
		}
	}
	for _, tc := range []struct {
		name     string
		sessions int
	}{{"first", 1}, {"one", 1}, {"ten-at-once", 10}} {
		b.Run(tc.name, func(b *testing.B) {
			sessions := make([]*mcp.ClientSession, tc.sessions)
			for i := range sessions {
				sessions[i] = h.Connect(b, "web-crawl", fmt.Sprintf("license-%d", i), nil)
			}
			var peakRSS, peakHeap float64
			for b.Loop() {
				runtime.GC()
				rss, heap := scrapertest.PeakDuring(func() {
					var wg sync.WaitGroup
					for _, cs := range sessions {
						wg.Go(func() { crawl(cs) })
					}
					wg.Wait()
				})
				peakRSS, peakHeap = max(peakRSS, rss), max(peakHeap, heap)
			}
			b.ReportMetric(peakRSS, "peak-RSS-MB")
			b.ReportMetric(peakHeap, "peak-heap-MB")
		})
	}
}

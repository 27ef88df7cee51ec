package webcrawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// BenchmarkCrawlMemory crawls a 3.4 MB page of 100,000 links through a real
// host (MCP over HTTP, the SDK client), twice in a row and then 50 at once
// (from 50 licenses, so that no per-license limit queues them), the last
// with the page budget the deploy files set (PAGES_MEMORY=256MiB), and reports
// the process's peak RSS (VmHWM, reset before each run) and the peak live
// heap sampled every millisecond. The whole process is measured: host,
// stand-in site and clients together.
//
//	go test ./scrapers/webcrawl -run XXX -bench CrawlMemory -benchtime 1x
func BenchmarkCrawlMemory(b *testing.B) {
	page := linksPage(100_000)
	// 50 origins, so that the per-host bound does not queue the pages and
	// the bound on pages in flight in all is what holds memory.
	origins := make([]string, 50)
	for i := range origins {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		}))
		defer srv.Close()
		origins[i] = srv.URL
	}
	var n atomic.Int64
	crawl := func(cs *mcp.ClientSession, origin string) {
		u := origin + "/links?n=" + strconv.FormatInt(n.Add(1), 10) // distinct calls: no cache answers
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{u}}})
		if err != nil {
			b.Fatal(err)
		}
		if res.IsError {
			b.Fatalf("tool error: %v", res.Content)
		}
	}
	for _, tc := range []struct {
		name        string
		sessions    int
		rounds      int
		pagesMemory int64 // PAGES_MEMORY; 0 is its default, a quarter of the machine's memory here
	}{{"twice", 1, 2, 0}, {"50-at-once", 50, 1, 0}, {"50-at-once-PAGES_MEMORY=256MiB", 50, 1, 256 << 20}} {
		b.Run(tc.name, func(b *testing.B) {
			h := hosttest.Start(b, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: func(c *host.Config) { c.PagesMemory = tc.pagesMemory }})
			sessions := make([]*mcp.ClientSession, tc.sessions)
			for i := range sessions {
				sessions[i] = h.Connect(b, "web-crawl", fmt.Sprintf("license-%d", i), nil)
			}
			var peakRSS, peakHeap float64
			for b.Loop() {
				runtime.GC()
				rss, heap := scrapertest.PeakDuring(func() {
					for range tc.rounds {
						var wg sync.WaitGroup
						for i, cs := range sessions {
							wg.Go(func() { crawl(cs, origins[i]) })
						}
						wg.Wait()
					}
				})
				peakRSS, peakHeap = max(peakRSS, rss), max(peakHeap, heap)
			}
			b.ReportMetric(peakRSS, "peak-RSS-MB")
			b.ReportMetric(peakHeap, "peak-heap-MB")
		})
	}
}

func linksPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><title>Links</title></head><body><main><p>A page that is nothing but links, a great many of them, one after another.</p>`)
	for i := range n {
		fmt.Fprintf(&b, `<a href="/p/%d">link %d</a> `, i, i)
	}
	b.WriteString(`</main></body></html>`)
	return []byte(b.String())
}

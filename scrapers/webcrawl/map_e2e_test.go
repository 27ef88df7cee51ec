package webcrawl_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// TestMapThroughTheHost: map over the host and the Go SDK client, on a
// stand-in of 1,500 URLs (robots.txt naming a gzipped index of two
// sitemaps, a Disallow, a feed and the home page's links): the first page
// of URLs fits RESULT_MAX_BYTES, get_result pages through the rest, every
// result conforms to map's output schema, and limit's answer says more
// exist.
func TestMapThroughTheHost(t *testing.T) {
	mux := http.NewServeMux()
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	urlset := func(from, to int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "<url><loc>%s/docs/page-%d</loc><lastmod>2026-10-%02d</lastmod></url>", site.URL, i, 1+i%28)
		}
		b.WriteString(`<url><loc>` + site.URL + `/private/draft</loc></url></urlset>`)
		return b.String()
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nSitemap: %s/sitemap_index.xml.gz\n", site.URL)
	})
	mux.HandleFunc("/sitemap_index.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		zw := gzip.NewWriter(w)
		fmt.Fprintf(zw, `<sitemapindex><sitemap><loc>%[1]s/sitemap-1.xml</loc></sitemap><sitemap><loc>%[1]s/sitemap-2.xml</loc></sitemap></sitemapindex>`, site.URL)
		zw.Close()
	})
	mux.HandleFunc("/sitemap-1.xml", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, urlset(0, 750)) })
	mux.HandleFunc("/sitemap-2.xml", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, urlset(750, 1500)) })
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<rss version="2.0"><channel><item><title>Release notes 2.0</title><link>%s/news/release-2</link></item></channel></rss>`, site.URL)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><a href="/docs/page-7">Installing</a> <a href="/pricing">Pricing</a></body></html>`)
	})

	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: func(c *host.Config) { c.ResultMaxBytes = 32 << 10 }})
	cs := h.Connect(t, webcrawl.ID, hosttest.License, nil)
	if titles := scrapertest.ToolTitles(t, cs); titles["map"] == "" {
		t.Fatalf("no map tool: %v", titles)
	}

	began := time.Now()
	res, page := scrapertest.CallTool(t, cs, "map", map[string]any{"url": site.URL + "/", "limit": 10000})
	took := time.Since(began)
	if res.IsError {
		t.Fatalf("map: %s", scrapertest.Text(res))
	}
	var first struct {
		TotalItems int            `json:"total_items"`
		ResultID   string         `json:"result_id"`
		NextOffset *int           `json:"next_offset"`
		Map        map[string]any `json:"map"`
	}
	decode(t, scrapertest.Text(res), &first)
	// robots.txt, the home page, the index, its 2 sitemaps, /sitemap.xml
	// (404) and the feed. 1,500 docs pages, the feed's post, the home page
	// and pricing; page-7
	// once, titled by the home page's link.
	if first.TotalItems != 1503 || first.ResultID == "" || first.NextOffset == nil || len(page.Items) >= 1503 {
		t.Fatalf("first page: total %d, id %q, next %v, %d items", first.TotalItems, first.ResultID, first.NextOffset, len(page.Items))
	}
	if first.Map["more_urls"] != false || first.Map["requests"] != float64(7) {
		t.Errorf("summary: %v", first.Map)
	}
	seen := map[string]map[string]any{}
	for _, it := range page.Items {
		seen[it["url"].(string)] = it
	}
	for off := *first.NextOffset; ; {
		res, next := scrapertest.CallTool(t, cs, "get_result", map[string]any{"result_id": first.ResultID, "offset": off})
		if res.IsError {
			t.Fatalf("get_result at %d: %s", off, scrapertest.Text(res))
		}
		for _, it := range next.Items {
			seen[it["url"].(string)] = it
		}
		var env struct {
			NextOffset *int `json:"next_offset"`
		}
		decode(t, scrapertest.Text(res), &env)
		if env.NextOffset == nil {
			break
		}
		off = *env.NextOffset
	}
	if len(seen) != 1503 {
		t.Fatalf("%d distinct URLs over the pages, want 1503", len(seen))
	}
	t.Logf("map of 1,503 URLs through the host: %s, %v requests, %d URLs on the first page", took.Round(time.Millisecond), first.Map["requests"], len(page.Items))
	if it := seen[site.URL+"/docs/page-7"]; it["title"] != "Installing" || it["lastmod"] != "2026-10-08" || it["source"] != "sitemap" {
		t.Errorf("page-7: %v", it)
	}
	if it := seen[site.URL+"/news/release-2"]; it["title"] != "Release notes 2.0" || it["source"] != "feed" {
		t.Errorf("the feed's post: %v", it)
	}
	if _, ok := seen[site.URL+"/private/draft"]; ok {
		t.Error("a URL robots.txt disallows is listed")
	}

	// limit and search, in one page.
	res, page = scrapertest.CallTool(t, cs, "map", map[string]any{"url": site.URL, "limit": 5, "search": "docs page-1"})
	var small struct {
		Map struct {
			MoreURLs bool     `json:"more_urls"`
			Notes    []string `json:"notes"`
		} `json:"map"`
	}
	decode(t, scrapertest.Text(res), &small)
	if res.IsError || len(page.Items) != 5 || !small.Map.MoreURLs || len(small.Map.Notes) == 0 || !strings.Contains(small.Map.Notes[0], "more than 5 URLs matching search") {
		t.Fatalf("limit 5 with search: %s", scrapertest.Text(res))
	}
	for _, it := range page.Items {
		if !strings.Contains(it["url"].(string), "/docs/page-1") {
			t.Errorf("search docs page-1 kept %v", it["url"])
		}
	}
	scrapertest.WantToolError(t, cs, "map", map[string]any{"url": "mailto:someone@example.com"}, "url", "not a web address")
	scrapertest.WantToolError(t, cs, "map", map[string]any{"url": site.URL, "limit": 20000}, "limit")
}

func decode(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("%v: %.300s", err, text)
	}
}

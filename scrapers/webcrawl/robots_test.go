package webcrawl

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// robotsSite serves robots.txt and pages that link to each other, and
// counts every path asked.
func robotsSite(t *testing.T, robots string) (*httptest.Server, func(string) int) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, robots)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p>
<p><a href="/open/next">next</a> <a href="/private/secret">secret</a></p></article></body></html>`,
			r.URL.Path, r.URL.Path, strings.Repeat("The page's own words, for reading. ", 12))
	}))
	t.Cleanup(srv.Close)
	return srv, func(p string) int { mu.Lock(); defer mu.Unlock(); return seen[p] }
}

func robotsSettings() Settings {
	s := testSettings()
	s.RobotsIgnore = false
	return s
}

// robots.txt refuses start URLs and followed links alike, each said in an
// item and never fetched.
func TestCrawlObeysRobotsTxt(t *testing.T) {
	srv, seen := robotsSite(t, "User-agent: *\nDisallow: /private/\n")
	items, _, _ := run(t, robotsSettings(), map[string]any{
		"start_urls": []string{srv.URL + "/open/", srv.URL + "/private/start"}, "max_crawl_depth": 1, "max_crawl_pages": 10})
	host := strings.TrimPrefix(srv.URL, "http://")
	failed := byURL(scrapertest.Failed(items))
	for _, u := range []string{srv.URL + "/private/start", srv.URL + "/private/secret"} {
		f, ok := failed[u]
		if !ok || !strings.Contains(fmt.Sprint(f["error"]), "robots.txt of "+host+" disallows "+strings.TrimPrefix(u, srv.URL)) {
			t.Fatalf("%s: %v, want an item naming robots.txt's refusal (items %v)", u, f, items)
		}
	}
	if seen("/private/start") != 0 || seen("/private/secret") != 0 {
		t.Fatal("a disallowed URL was fetched")
	}
	if ok := byURL(scrapertest.Succeeded(items)); ok[srv.URL+"/open/"] == nil || ok[srv.URL+"/open/next"] == nil {
		t.Fatalf("allowed pages missing: %v", items)
	}
	if n := seen("/robots.txt"); n != 1 {
		t.Fatalf("robots.txt fetched %d times in one crawl", n)
	}
}

// The group for SurfSense wins over *; ROBOTS_TXT=ignore sets it aside.
func TestCrawlRobotsTxtGroupAndIgnore(t *testing.T) {
	srv, seen := robotsSite(t, "User-agent: *\nAllow: /\n\nUser-agent: SurfSense\nDisallow: /open/\n")
	items, _, _ := run(t, robotsSettings(), map[string]any{"start_urls": []string{srv.URL + "/open/"}})
	if len(scrapertest.Failed(items)) != 1 || seen("/open/") != 0 {
		t.Fatalf("SurfSense's group was not obeyed: %v", items)
	}
	s := robotsSettings()
	s.RobotsIgnore = true
	items, _, _ = run(t, s, map[string]any{"start_urls": []string{srv.URL + "/open/"}})
	if len(scrapertest.Succeeded(items)) != 1 || seen("/open/") != 1 {
		t.Fatalf("ROBOTS_TXT=ignore still refused: %v", items)
	}
	if _, err := New(scrapers.Env{Getenv: func(k string) string {
		if k == "ROBOTS_TXT" {
			return "sometimes"
		}
		return ""
	}}); err == nil || !strings.Contains(err.Error(), "ROBOTS_TXT") {
		t.Fatalf("a bad ROBOTS_TXT gave %v, want an error naming it", err)
	}
}

// Content-Signal ai-input=no: not read for an agent, and said.
func TestCrawlObeysContentSignal(t *testing.T) {
	srv, seen := robotsSite(t, "User-agent: *\nContent-Signal: search=yes, ai-input=no\nAllow: /\n")
	items, _, _ := run(t, robotsSettings(), map[string]any{"start_urls": []string{srv.URL + "/open/"}})
	f := scrapertest.Failed(items)
	if len(f) != 1 || !strings.Contains(fmt.Sprint(f[0]["error"]), "ai-input=no") || seen("/open/") != 0 {
		t.Fatalf("Content-Signal ai-input=no: %v", items)
	}
}

// Crawl-delay spaces a host's pages; one over the bound is kept at the
// bound and the item says so.
func TestCrawlHonoursCrawlDelay(t *testing.T) {
	srv, _ := robotsSite(t, "User-agent: *\nCrawl-delay: 0.5\n")
	start := time.Now()
	items, _, _ := run(t, robotsSettings(), map[string]any{"start_urls": []string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/c"}})
	if len(scrapertest.Succeeded(items)) != 3 {
		t.Fatalf("items %v", items)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("three pages in %v; Crawl-delay 0.5 s asks at least 1 s", d)
	}
	long, _ := robotsSite(t, "User-agent: *\nCrawl-delay: 60\n")
	items, _, _ = run(t, robotsSettings(), map[string]any{"start_urls": []string{long.URL + "/a"}})
	ok := scrapertest.Succeeded(items)
	if len(ok) != 1 || !strings.Contains(fmt.Sprint(ok[0]["crawl_notes"]), "Crawl-delay of 1m0s") {
		t.Fatalf("a Crawl-delay over the bound was not said: %v", items)
	}
}

// A host's 429 with Retry-After holds it off for every call: the next call
// answers at once with the wait, without asking the host.
func TestCrawlHoldsAHostAfterRetryAfter(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked++
		mu.Unlock()
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	p := NewWithSettings(testSettings())
	out, _ := scrapertest.RunTool(t, p, "crawl", `{"start_urls":["`+srv.URL+`/a"]}`, 10*time.Second)
	first := scrapertest.Failed(scrapertest.Items(t, out))
	if len(first) != 1 || !strings.Contains(fmt.Sprint(first[0]["error"]), "HTTP 429 and asked for a pause of 30s") {
		t.Fatalf("first call: %v", first)
	}
	start := time.Now()
	out, _ = scrapertest.RunTool(t, p, "crawl", `{"start_urls":["`+srv.URL+`/b"]}`, 10*time.Second)
	second := scrapertest.Failed(scrapertest.Items(t, out))
	if len(second) != 1 || !strings.Contains(fmt.Sprint(second[0]["error"]), "held off for") || time.Since(start) > time.Second {
		t.Fatalf("second call after %v: %v, want the hold said at once", time.Since(start), second)
	}
	if asked != 1 {
		t.Fatalf("the held host was asked %d times", asked)
	}
}

// A redirect is asked of robots.txt of the host it leads to: a page that
// redirects into another site's disallowed path fails, saying so, and that
// path is never fetched; an allowed redirect is followed.
func TestCrawlRedirectObeysRobotsTxt(t *testing.T) {
	target, seen := robotsSite(t, "User-agent: *\nDisallow: /private/\n")
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.WriteHeader(http.StatusNotFound) // allows everything
		case "/to-private":
			http.Redirect(w, r, target.URL+"/private/x", http.StatusFound)
		case "/to-open":
			http.Redirect(w, r, target.URL+"/open/y", http.StatusMovedPermanently)
		case "/to-self-private":
			http.Redirect(w, r, "/private/z", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(origin.Close)
	items, _, _ := run(t, robotsSettings(), map[string]any{
		"start_urls": []string{origin.URL + "/to-private", origin.URL + "/to-open"}})
	host := strings.TrimPrefix(target.URL, "http://")
	failed := byURL(scrapertest.Failed(items))
	f, ok := failed[origin.URL+"/to-private"]
	if !ok || !strings.Contains(fmt.Sprint(f["error"]), "redirects to "+target.URL+"/private/x") ||
		!strings.Contains(fmt.Sprint(f["error"]), "robots.txt of "+host+" disallows /private/x") {
		t.Fatalf("a redirect into a disallowed path: %v, want an item naming the redirect and robots.txt's rule (items %v)", f, items)
	}
	if seen("/private/x") != 0 {
		t.Fatal("the disallowed target of a redirect was fetched")
	}
	if okItems := byURL(scrapertest.Succeeded(items)); okItems[origin.URL+"/to-open"] == nil || seen("/open/y") != 1 {
		t.Fatalf("an allowed redirect was not followed: %v", items)
	}
	if n := seen("/robots.txt"); n != 1 {
		t.Fatalf("the target's robots.txt was fetched %d times, want once", n)
	}
}

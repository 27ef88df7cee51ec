package webcrawl

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// site is a small stand-in web site.
type site struct {
	*httptest.Server
	hits  sync.Map // path → *atomic.Int64
	total atomic.Int64
}

func (s *site) count(path string) int64 {
	v, ok := s.hits.Load(path)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

func newSite(t *testing.T) *site {
	s := &site{}
	mux := http.NewServeMux()
	page := func(title, body string) string {
		return `<!doctype html><html lang="en"><head><title>` + title + `</title><meta name="description" content="About ` + title + `"></head><body><article><h1>` + title + `</h1><p>` + body + `</p></article></body></html>`
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, page("Home", `Welcome to the test site, which has several pages worth reading carefully. <a href="/a">A</a> <a href="/b">B</a> <a href="/skip/me">skip</a> <a href="/missing">missing</a> <a href="https://elsewhere.example/x">other site</a> <a href="mailto:x@y">mail</a>`))
	})
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Page A", `The first page has a long paragraph of text so the extractor keeps it as main content. <a href="/a/deep">deeper</a>`))
	})
	mux.HandleFunc("/a/deep", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Deep", `Deep content paragraph with enough words to be kept as the main content of this page.`))
	})
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Page B", `The second page also carries a paragraph long enough to be extracted as content.`))
	})
	mux.HandleFunc("/skip/me", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Skipped", "should be excluded"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>")
		chunk := []byte(strings.Repeat("endless text ", 1000))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Caf\xe9 \xff\xfe</title></head><body><p>Invalid \xc3\x28 UTF-8 bytes in a paragraph that is long enough to be kept.</p></body></html>"))
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.total.Add(1)
		v, _ := s.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func testSettings() Settings {
	s := DefaultSettings()
	s.AllowPrivate = true
	s.PerHostDelay = 0
	s.PageTimeout = 3 * time.Second
	// Stand-ins here answer every path with a page; robots.txt has tests
	// of its own (robots_test.go).
	s.RobotsIgnore = true
	return s
}

func run(t *testing.T, s Settings, args map[string]any) ([]map[string]any, error, scrapers.Outcome) {
	t.Helper()
	raw, _ := json.Marshal(args)
	out, err := scrapertest.RunTool(t, NewWithSettings(s), "crawl", string(raw), 20*time.Second)
	return scrapertest.Items(t, out), err, out
}

func byURL(items []map[string]any) map[string]map[string]any {
	m := map[string]map[string]any{}
	for _, it := range items {
		m[it["url"].(string)] = it
	}
	return m
}

func TestCrawlDepthZeroIsStartPagesOnly(t *testing.T) {
	s := newSite(t)
	items, err, _ := run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("depth 0 gave %d pages, want 1", len(items))
	}
	p := items[0]
	if p["title"] != "Home" || p["description"] != "About Home" || p["language"] != "en" {
		t.Errorf("metadata: %v %v %v", p["title"], p["description"], p["language"])
	}
	if md := p["markdown"].(string); !strings.Contains(md, "Welcome to the test site") {
		t.Errorf("markdown lacks the content: %q", md)
	}
	links := p["links"].([]any)
	if len(links) != 5 || links[0] != s.URL+"/a" {
		t.Errorf("links: %v", links)
	}
	if s.count("/a") != 0 {
		t.Error("depth 0 followed a link")
	}
}

func TestCrawlDepthPatternsAndFailures(t *testing.T) {
	s := newSite(t)
	items, err, out := run(t, testSettings(), map[string]any{
		"start_urls": []string{s.URL + "/"}, "max_crawl_depth": 1,
		"exclude_url_patterns": []string{"/skip/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := byURL(items)
	for _, path := range []string{"/", "/a", "/b"} {
		if p := got[s.URL+path]; p == nil || p["error"] != nil {
			t.Errorf("%s missing or failed: %v", path, p)
		}
	}
	if got[s.URL+"/a"]["depth"] != 1.0 {
		t.Errorf("depth of /a: %v", got[s.URL+"/a"]["depth"])
	}
	if s.count("/skip/me") != 0 || got[s.URL+"/skip/me"] != nil {
		t.Error("an excluded link was followed")
	}
	if s.count("/a/deep") != 0 {
		t.Error("went deeper than max_crawl_depth")
	}
	miss := got[s.URL+"/missing"]
	if miss == nil || !strings.Contains(fmt.Sprint(miss["error"]), "404") {
		t.Errorf("a 404 page is not reported per page: %v", miss)
	}
	if !out.Partial || len(out.Failed) != 1 {
		t.Errorf("one failed page should mark the result partial: %+v", out)
	}
	if got["https://elsewhere.example/x"] != nil {
		t.Error("followed a link to another site without include patterns")
	}
}

func TestCrawlIncludePatternsAndPageLimit(t *testing.T) {
	s := newSite(t)
	items, err, _ := run(t, testSettings(), map[string]any{
		"start_urls": []string{s.URL + "/"}, "max_crawl_depth": 3, "include_url_patterns": []string{`/a(/|$)`},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := byURL(items)
	if got[s.URL+"/a"] == nil || got[s.URL+"/a/deep"] == nil || got[s.URL+"/b"] != nil {
		t.Errorf("include patterns not applied: %v", keys(got))
	}
	items, _, _ = run(t, testSettings(), map[string]any{"start_urls": []string{s.URL + "/"}, "max_crawl_depth": 5, "max_crawl_pages": 2})
	if len(items) != 2 {
		t.Errorf("max_crawl_pages 2 gave %d pages: %v", len(items), keys(byURL(items)))
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCrawlMaxLengthEndlessAndOddPages(t *testing.T) {
	s := newSite(t)
	st := testSettings()
	st.MaxPageBytes = 256 << 10
	items, err, _ := run(t, st, map[string]any{
		"start_urls": []string{s.URL + "/endless", s.URL + "/binary", s.URL + "/latin1", s.URL + "/a"}, "max_length": 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := byURL(items)
	end := got[s.URL+"/endless"]
	if end == nil || !hasReason(end["truncated"], "page_bytes") || len([]rune(end["markdown"].(string))) > 100 {
		t.Errorf("a page that never ends was not cut: %v", end)
	}
	if bin := got[s.URL+"/binary"]; bin == nil || !strings.Contains(fmt.Sprint(bin["error"]), "PDF: the file is damaged") {
		t.Errorf("a PDF of a header alone was not reported as a damaged PDF: %v", bin)
	}
	lat := got[s.URL+"/latin1"]
	if lat == nil || lat["error"] != nil {
		t.Fatalf("invalid UTF-8 page failed: %v", lat)
	}
	raw, _ := json.Marshal(lat)
	if !json.Valid(raw) || strings.Contains(string(raw), "\xff") {
		t.Error("invalid UTF-8 leaked into the item")
	}
	if a := got[s.URL+"/a"]; a == nil || !hasReason(a["truncated"], "max_length") {
		t.Errorf("max_length 100 did not truncate /a: %v", a)
	}
}

func TestCrawlBadArguments(t *testing.T) {
	s := newSite(t)
	cases := []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{}, "start_urls"},
		{map[string]any{"start_urls": []string{}}, "start_urls"},
		{map[string]any{"start_urls": make([]string, 21)}, "start_urls"},
		{map[string]any{"start_urls": []string{"file:///etc/passwd"}}, "start_urls"},
		{map[string]any{"start_urls": []string{"gopher://x/"}}, "start_urls"},
		{map[string]any{"start_urls": []string{"https://user:pw@example.com/"}}, "start_urls"},
		{map[string]any{"start_urls": []string{"example.com"}}, "start_urls"},
		{map[string]any{"start_urls": "https://example.com"}, "start_urls"},
		{map[string]any{"start_urls": []string{s.URL}, "max_crawl_depth": 6}, "max_crawl_depth"},
		{map[string]any{"start_urls": []string{s.URL}, "max_crawl_depth": "2"}, "max_crawl_depth"},
		{map[string]any{"start_urls": []string{s.URL}, "max_crawl_pages": 0}, "max_crawl_pages"},
		{map[string]any{"start_urls": []string{s.URL}, "max_crawl_pages": 201}, "max_crawl_pages"},
		{map[string]any{"start_urls": []string{s.URL}, "max_length": 5}, "max_length"},
		{map[string]any{"start_urls": []string{s.URL}, "include_url_patterns": []string{"(unclosed"}}, "include_url_patterns"},
		{map[string]any{"start_urls": []string{s.URL}, "exclude_url_patterns": make([]string, 26)}, "exclude_url_patterns"},
		{map[string]any{"start_urls": []string{s.URL}, "surprise": true}, "surprise"},
	}
	for _, c := range cases {
		_, err, _ := run(t, testSettings(), c.args)
		ae, ok := err.(*scrapers.ArgError)
		if !ok || ae.Arg != c.arg {
			t.Errorf("%v: got %v, want an argument error naming %s", c.args, err, c.arg)
		}
	}
}

func TestCrawlRefusesPrivateAddresses(t *testing.T) {
	st := DefaultSettings() // the guard is on
	for _, u := range []string{
		"http://127.0.0.1/", "http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/", "http://127.1/",
		"http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
		"http://100.64.0.1/", "http://[fd00::1]/", "http://localhost/", "http://192.168.1.1/",
	} {
		_, err, _ := run(t, st, map[string]any{"start_urls": []string{u}})
		if ae, ok := err.(*scrapers.ArgError); !ok || !strings.Contains(ae.Rule, "refused") {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
}

// TestCrawlRefusesRedirectToLoopback serves a "public" site (reached through a
// test dialer, as if DNS pointed at it) that redirects to loopback: the guard
// must refuse the redirect, and a name resolving to loopback at dial time too.
func TestCrawlRefusesRedirectToLoopback(t *testing.T) {
	secret := atomic.Int64{}
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-ip":
			http.Redirect(w, r, "http://127.0.0.1:"+port(r)+"/secret", http.StatusFound)
		case "/to-name":
			http.Redirect(w, r, "http://internal.test/secret", http.StatusFound)
		case "/secret":
			secret.Add(1)
			fmt.Fprint(w, "secret")
		}
	}))
	defer inner.Close()
	innerAddr := inner.Listener.Addr().String()
	guard := netguard.Dialer(false)
	st := DefaultSettings()
	st.Transport = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		switch host {
		case "public.test": // a public site: dial the stand-in without the guard
			return (&net.Dialer{}).DialContext(ctx, network, innerAddr)
		case "internal.test": // DNS answers loopback: the guard sees the real address
			return guard.DialContext(ctx, network, innerAddr)
		}
		return guard.DialContext(ctx, network, addr)
	}}
	items, err, _ := run(t, st, map[string]any{"start_urls": []string{"http://public.test/to-ip", "http://public.test/to-name"}})
	if err != nil {
		t.Fatal(err)
	}
	if secret.Load() != 0 {
		t.Fatal("the crawler reached a loopback address through a redirect")
	}
	for _, it := range items {
		if e := fmt.Sprint(it["error"]); !strings.Contains(e, "loopback") {
			t.Errorf("%s: error %q does not say loopback was refused", it["url"], e)
		}
	}
	if len(items) != 2 {
		t.Errorf("want 2 failed pages, got %v", items)
	}
}

func port(r *http.Request) string {
	_, p, _ := net.SplitHostPort(r.Context().Value(http.LocalAddrContextKey).(net.Addr).String())
	return p
}

func TestCrawlCancelStopsRequests(t *testing.T) {
	s := newSite(t)
	p := NewWithSettings(testSettings())
	raw, _ := json.Marshal(map[string]any{"start_urls": []string{s.URL + "/slow", s.URL + "/"}, "max_crawl_depth": 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Tools[0].Run(ctx, scrapers.NewCall(nil), raw) }()
	deadline := time.Now().Add(5 * time.Second)
	for s.count("/slow") == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled crawl returned no error")
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the crawl did not stop within 3 s of its cancel")
	}
	// A request the crawler sent just before the cancel may still be on its
	// way; after a moment nothing new may arrive.
	time.Sleep(100 * time.Millisecond)
	after := s.total.Load()
	time.Sleep(300 * time.Millisecond)
	if s.total.Load() != after {
		t.Fatalf("requests went on after the cancel: %d then %d", after, s.total.Load())
	}
}

// hasReason says whether an item's truncated list names reason code.
func hasReason(v any, code string) bool {
	list, _ := v.([]any)
	for _, r := range list {
		if s, _ := r.(string); strings.HasPrefix(s, code+":") {
			return true
		}
	}
	return false
}

package webcrawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// mapSite is a stand-in site of real sitemap shapes, served for every
// host name under example.test (the crawler's transport dials them all to
// it): robots.txt with Sitemap lines and a Disallow, a sitemap index
// naming a plain and a gzipped sitemap and a nested index, a news sitemap,
// /sitemap.xml, an RSS and an Atom feed the home page links, and the home
// page's links.
type mapSite struct {
	srv      *httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	hits     map[string]int // host+path → requests
	mux      *http.ServeMux
	robots   string
}

func (s *mapSite) hit(host, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[host+path]
}

func gz(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

func urlset(urls ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2026-11-01</lastmod></url>\n", u)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func index(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>\n", l)
	}
	b.WriteString("</sitemapindex>")
	return b.String()
}

// newMapSite serves a site of pages URLs (/page/0 …) in its sitemaps.
func newMapSite(tb testing.TB, pages int) *mapSite {
	s := &mapSite{hits: map[string]int{}, mux: http.NewServeMux()}
	s.robots = "User-agent: *\nDisallow: /private/\n\nSitemap: http://example.test/sitemap_index.xml\nSitemap: http://example.test/news-sitemap.xml\n"
	var first, second []string
	for i := range pages {
		u := fmt.Sprintf("http://example.test/page/%d", i)
		if i < pages/2 {
			first = append(first, u)
		} else {
			second = append(second, u)
		}
	}
	xml := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, body)
		}
	}
	s.mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "blog.") {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		fmt.Fprint(w, s.robots)
	})
	s.mux.HandleFunc("/sitemap_index.xml", xml(index("http://example.test/sitemap-pages-1.xml", "/sitemap-pages-2.xml.gz", "http://example.test/sitemap-more.xml")))
	s.mux.HandleFunc("/sitemap-pages-1.xml", xml(urlset(first...)))
	pagesGz := gz([]byte(urlset(second...)))
	s.mux.HandleFunc("/sitemap-pages-2.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(pagesGz)
	})
	s.mux.HandleFunc("/sitemap-more.xml", xml(index("http://example.test/sitemap-misc.xml", "http://example.test/sitemap_index.xml")))
	s.mux.HandleFunc("/sitemap-misc.xml", xml(urlset("HTTP://EXAMPLE.TEST:80/page/1#top", "http://example.test/private/secret",
		"https://other.test/elsewhere", "http://blog.example.test/post", "http://www.example.test/www-page")))
	s.mux.HandleFunc("/news-sitemap.xml", xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
		<url><loc>http://example.test/news/rain</loc><news:news><news:publication><news:name>Example</news:name><news:language>en</news:language></news:publication>
		<news:publication_date>2026-12-01</news:publication_date><news:title>Rain all week</news:title></news:news></url></urlset>`))
	s.mux.HandleFunc("/sitemap.xml", xml(urlset("http://example.test/about")))
	s.mux.HandleFunc("/feed.rss", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>http://example.test/</link>
			<item><title>First post</title><link>http://example.test/blog/first</link><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item></channel></rss>`)
	})
	s.mux.HandleFunc("/atom.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprint(w, `<feed xmlns="http://www.w3.org/2005/Atom"><title>Notes</title><entry><title>Second post</title><link href="/blog/second"/><updated>2026-12-02T00:00:00Z</updated></entry></feed>`)
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<!doctype html><html><head><title>Example</title>
			<link rel="alternate" type="application/rss+xml" href="/feed.rss"><link rel="alternate" type="application/atom+xml" href="/atom.xml"></head>
			<body><nav><a href="/page/0">Page zero</a> <a href="/contact">Contact us</a> <a href="/private/x">Private</a> <a href="https://other.test/">Elsewhere</a></nav></body></html>`)
	})
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.mu.Lock()
		s.hits[r.Host+r.URL.Path]++
		s.mu.Unlock()
		s.mux.ServeHTTP(w, r)
	}))
	tb.Cleanup(s.srv.Close)
	return s
}

// settings dial every host to the stand-in.
func (s *mapSite) settings() Settings {
	st := robotsSettings() // the map obeys robots.txt
	addr := s.srv.Listener.Addr().String()
	st.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	return st
}

func runMap(tb testing.TB, st Settings, args map[string]any) ([]MapURL, MapSummary, scrapers.Outcome, error) {
	tb.Helper()
	raw, _ := json.Marshal(args)
	out, err := scrapertest.RunTool(tb, NewWithSettings(st), "map", string(raw), 30*time.Second)
	var urls []MapURL
	for _, it := range out.Items {
		var u MapURL
		if err := json.Unmarshal(it, &u); err != nil {
			tb.Fatal(err)
		}
		urls = append(urls, u)
	}
	var sum MapSummary
	if b, err := json.Marshal(out.Meta["map"]); err == nil {
		json.Unmarshal(b, &sum)
	}
	return urls, sum, out, err
}

func byAddress(urls []MapURL) map[string]MapURL {
	m := map[string]MapURL{}
	for _, u := range urls {
		m[u.URL] = u
	}
	return m
}

func TestMapReadsEverySource(t *testing.T) {
	s := newMapSite(t, 20)
	urls, sum, _, err := runMap(t, s.settings(), map[string]any{"url": "http://example.test/"})
	if err != nil {
		t.Fatal(err)
	}
	got := byAddress(urls)
	if len(got) != len(urls) {
		t.Fatalf("a URL is listed twice: %+v", urls)
	}
	// 20 pages, news, about, 2 feed posts, www-page, home, contact.
	if len(urls) != 27 {
		t.Errorf("%d URLs, want 27: %+v", len(urls), urls)
	}
	for i := range 20 {
		u, ok := got[fmt.Sprintf("http://example.test/page/%d", i)]
		if !ok || u.Source != SourceSitemap || u.LastMod != "2026-11-01" {
			t.Errorf("page %d: %+v (listed %v)", i, u, ok)
		}
	}
	for addr, want := range map[string]MapURL{
		"http://example.test/page/0":       {Title: "Page zero", Source: SourceSitemap, LastMod: "2026-11-01"}, // the link's text fills the sitemap's entry
		"http://example.test/news/rain":    {Title: "Rain all week", Source: SourceSitemap},
		"http://example.test/about":        {Source: SourceSitemap, LastMod: "2026-11-01"},
		"http://example.test/blog/first":   {Title: "First post", Source: SourceFeed, LastMod: "2026-12-01T10:00:00Z"},
		"http://example.test/blog/second":  {Title: "Second post", Source: SourceFeed, LastMod: "2026-12-02T00:00:00Z"},
		"http://example.test/contact":      {Title: "Contact us", Source: SourcePage},
		"http://example.test/":             {Title: "Example", Source: SourcePage},
		"http://www.example.test/www-page": {Source: SourceSitemap, LastMod: "2026-11-01"},
	} {
		want.URL = addr
		if got[addr] != want {
			t.Errorf("%s: %+v, want %+v", addr, got[addr], want)
		}
	}
	for _, u := range urls {
		if strings.Contains(u.URL, "/private/") || strings.Contains(u.URL, "other.test") || strings.Contains(u.URL, "blog.example.test") {
			t.Errorf("listed %s: disallowed, off-site or a subdomain", u.URL)
		}
	}
	wantMaps := []string{"http://example.test/sitemap_index.xml", "http://example.test/news-sitemap.xml", "http://example.test/sitemap.xml",
		"http://example.test/sitemap-pages-1.xml", "http://example.test/sitemap-pages-2.xml.gz", "http://example.test/sitemap-more.xml", "http://example.test/sitemap-misc.xml"}
	slices.Sort(wantMaps)
	gotMaps := slices.Sorted(slices.Values(sum.Sitemaps))
	if !slices.Equal(gotMaps, wantMaps) || len(sum.Feeds) != 2 || sum.MoreURLs || sum.Site != "example.test" {
		t.Errorf("summary: %+v", sum)
	}
	if sum.Disallowed != 2 || len(sum.Notes) != 0 {
		t.Errorf("disallowed %d (want 2: /private/secret and /private/x), notes %q", sum.Disallowed, sum.Notes)
	}
	// robots.txt of example.test and of www.example.test, the home page,
	// 7 sitemaps (the index named twice is read once), 2 feeds; the site
	// saw as many.
	if sum.Requests != 12 || s.requests.Load() != 12 {
		t.Errorf("%d requests counted, %d served, want 12", sum.Requests, s.requests.Load())
	}
	if n := s.hit("example.test", "/sitemap_index.xml"); n != 1 {
		t.Errorf("the index was read %d times", n)
	}
}

func TestMapSubdomainsSearchAndLimit(t *testing.T) {
	s := newMapSite(t, 40)
	urls, _, _, err := runMap(t, s.settings(), map[string]any{"url": "http://example.test", "subdomains": true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := byAddress(urls)["http://blog.example.test/post"]; !ok {
		t.Errorf("subdomains: true leaves out blog.example.test: %d URLs", len(urls))
	}
	if s.hit("blog.example.test", "/robots.txt") != 1 {
		t.Error("the subdomain's robots.txt was not read")
	}

	urls, sum, _, err := runMap(t, s.settings(), map[string]any{"url": "http://www.example.test/x", "search": "POST"})
	if err != nil {
		t.Fatal(err)
	}
	// The feeds are read from www.example.test, the host asked for; the
	// RSS feed spells its links without www., the Atom feed's are relative.
	if len(urls) != 2 || urls[0].URL != "http://example.test/blog/first" || urls[1].URL != "http://www.example.test/blog/second" || sum.MoreURLs {
		t.Errorf("search POST: %+v", urls)
	}

	urls, sum, out, err := runMap(t, s.settings(), map[string]any{"url": "http://example.test/", "limit": 10})
	if err != nil || len(urls) != 10 || !sum.MoreURLs || out.Partial {
		t.Fatalf("limit 10: %d URLs, more %v, partial %v, err %v", len(urls), sum.MoreURLs, out.Partial, err)
	}
	if len(sum.Notes) == 0 || !strings.Contains(sum.Notes[0], "more than 10 URLs") {
		t.Errorf("the answer does not say more exist: %q", sum.Notes)
	}

	_, _, _, err = runMap(t, s.settings(), map[string]any{"url": "http://example.test/", "search": "nothing-like-this"})
	if err == nil || !strings.Contains(err.Error(), "none matches search") {
		t.Errorf("a search matching nothing: %v", err)
	}
}

func TestMapArguments(t *testing.T) {
	st := robotsSettings()
	st.AllowPrivate = false
	for _, tc := range []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{"url": ""}, "url"},
		{map[string]any{"url": "ftp://example.com/"}, "url"},
		{map[string]any{"url": "http://127.0.0.1/"}, "url"},
		{map[string]any{"url": "http://169.254.169.254/latest"}, "url"},
		{map[string]any{"url": "https://example.com/", "limit": 0}, "limit"},
		{map[string]any{"url": "https://example.com/", "limit": 10001}, "limit"},
		{map[string]any{"url": "https://example.com/", "search": strings.Repeat("x", 201)}, "search"},
	} {
		_, _, _, err := runMap(t, st, tc.args)
		scrapertest.CheckArgError(t, err, tc.arg, fmt.Sprint(tc.args))
	}
}

// TestMapRobots: a disallowed home page is not read; a robots.txt that
// answers 503 lists nothing (RFC 9309: a full disallow) and says why.
func TestMapRobots(t *testing.T) {
	s := newMapSite(t, 5)
	s.robots = "User-agent: *\nDisallow: /\nAllow: /page/\nAllow: /sitemap\nSitemap: http://example.test/sitemap_index.xml\n"
	urls, sum, _, err := runMap(t, s.settings(), map[string]any{"url": "http://example.test/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if !strings.HasPrefix(u.URL, "http://example.test/page/") {
			t.Errorf("listed %s, which robots.txt disallows", u.URL)
		}
	}
	if len(urls) != 5 || s.hit("example.test", "/") != 0 || s.hit("example.test", "/feed.rss") != 0 {
		t.Errorf("%d URLs; home page read %d times", len(urls), s.hit("example.test", "/"))
	}
	if !slices.ContainsFunc(sum.Notes, func(n string) bool { return strings.Contains(n, "robots.txt disallows http://example.test/") }) {
		t.Errorf("notes %q", sum.Notes)
	}

	down := newMapSite(t, 5)
	down.mux = http.NewServeMux()
	down.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	_, _, _, err = runMap(t, down.settings(), map[string]any{"url": "http://example.test/"})
	if err == nil || !strings.Contains(err.Error(), "robots.txt") {
		t.Errorf("robots.txt answering 503: %v", err)
	}
}

// TestMapHostileSitemaps: a gzip bomb, an index loop, an endless chain of
// indexes, a sitemap that never ends and an index of 1,000 sitemaps are
// each cut at a bound, named in the notes, within the request budget; the
// good sitemap beside them is read whole.
func TestMapHostileSitemaps(t *testing.T) {
	s := newMapSite(t, 0)
	s.robots = "User-agent: *\nSitemap: http://example.test/bomb.xml.gz\nSitemap: http://example.test/loop-a.xml\nSitemap: http://example.test/deep/0.xml\n" +
		"Sitemap: http://example.test/huge.xml\nSitemap: http://example.test/good.xml\nSitemap: http://example.test/many.xml\n"
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte(`<urlset><url><loc>http://example.test/bombed</loc></url>`))
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	bomb := z.Bytes()
	s.mux.HandleFunc("/bomb.xml.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(bomb) })
	s.mux.HandleFunc("/loop-a.xml", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, index("/loop-b.xml")) })
	s.mux.HandleFunc("/loop-b.xml", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, index("/loop-a.xml")) })
	s.mux.HandleFunc("/deep/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/deep/%d.xml", &n)
		fmt.Fprint(w, index(fmt.Sprintf("/deep/%d.xml", n+1)))
	})
	s.mux.HandleFunc("/huge.xml", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<urlset>")
		for i := 0; r.Context().Err() == nil && i < 2_000_000; i++ {
			if _, err := fmt.Fprintf(w, "<url><loc>http://example.test/huge/%d</loc></url>", i); err != nil {
				return
			}
		}
	})
	s.mux.HandleFunc("/good.xml", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, urlset("http://example.test/good/1", "http://example.test/good/2"))
	})
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("/s/%d.xml", i))
	}
	s.mux.HandleFunc("/many.xml", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, index(many...)) })
	s.mux.HandleFunc("/s/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, urlset("http://example.test"+strings.TrimSuffix(r.URL.Path, ".xml")))
	})

	s.robots = "User-agent: *\nSitemap: http://example.test/bomb.xml.gz\nSitemap: http://example.test/loop-a.xml\n" +
		"Sitemap: http://example.test/good.xml\nSitemap: http://example.test/many.xml\n"
	start := time.Now()
	urls, sum, _, err := runMap(t, s.settings(), map[string]any{"url": "http://example.test/", "limit": 10000})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	got := byAddress(urls)
	for _, want := range []string{"http://example.test/good/1", "http://example.test/good/2", "http://example.test/bombed", "http://example.test/s/0"} {
		if _, ok := got[want]; !ok {
			t.Errorf("%s is not listed", want)
		}
	}
	if sum.Requests != mapMaxRequests || s.requests.Load() != mapMaxRequests {
		t.Errorf("%d requests counted, %d served: want the budget, %d", sum.Requests, s.requests.Load(), mapMaxRequests)
	}
	notes := strings.Join(sum.Notes, "\n")
	for _, want := range []string{"bomb.xml.gz inflates past 6144 KiB (a gzip bomb", "made its 40 requests; 9"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not say %q:\n%s", want, notes)
		}
	}
	if n := s.hit("example.test", "/loop-a.xml"); n != 1 {
		t.Errorf("the loop's first index was read %d times", n)
	}
	t.Logf("hostile map: %d URLs, %d requests, %d bytes, %s; notes:\n%s", len(urls), sum.Requests, sum.Bytes, took.Round(time.Millisecond), notes)

	// An endless chain of indexes is followed to mapMaxDepth.
	s.robots = "User-agent: *\nSitemap: http://example.test/deep/0.xml\n"
	s.requests.Store(0)
	_, sum, _, err = runMap(t, s.settings(), map[string]any{"url": "http://example.test/"})
	if err != nil || !slices.ContainsFunc(sum.Notes, func(n string) bool {
		return strings.Contains(n, "deep/3.xml is a sitemap index nested 4 deep; deeper indexes are not followed")
	}) || s.hit("example.test", "/deep/4.xml") != 0 {
		t.Errorf("an endless chain of indexes: %v, notes %q, /deep/4.xml read %d times", err, sum.Notes, s.hit("example.test", "/deep/4.xml"))
	}

	// A sitemap that never ends is cut at its bound; the URLs it named up to
	// there fill limit, and the answer says more exist.
	s.robots = "User-agent: *\nSitemap: http://example.test/good.xml\nSitemap: http://example.test/huge.xml\nSitemap: http://example.test/bomb.xml.gz\n"
	s.requests.Store(0)
	urls, sum, _, err = runMap(t, s.settings(), map[string]any{"url": "http://example.test/", "limit": 10000})
	if err != nil {
		t.Fatal(err)
	}
	notes = strings.Join(sum.Notes, "\n")
	if len(urls) != 10000 || !sum.MoreURLs || !strings.Contains(notes, "cut there: http://example.test/huge.xml") && !strings.Contains(notes, "huge.xml is larger than") {
		t.Errorf("an endless sitemap: %d URLs, more %v, notes:\n%s", len(urls), sum.MoreURLs, notes)
	}
	if sum.Bytes > mapMaxBytes {
		t.Errorf("%d bytes read and inflated, past the bound of %d", sum.Bytes, mapMaxBytes)
	}
	t.Logf("endless sitemap: %d URLs, %d requests, %d bytes; notes:\n%s", len(urls), sum.Requests, sum.Bytes, notes)
}

// BenchmarkMap1500 maps a site of 1,500 URLs (an index of a plain and a
// gzipped sitemap, a news sitemap, feeds, home page links) with the
// crawler's default politeness (2 fetches at a time from a host, 100 ms
// apart), answered at once and with 200 ms of latency a request, as a
// distant site answers.
func BenchmarkMap1500(b *testing.B) {
	for _, latency := range []time.Duration{0, 200 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%s", latency), func(b *testing.B) {
			s := newMapSite(b, 1500)
			inner := s.srv.Config.Handler
			s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(latency)
				inner.ServeHTTP(w, r)
			})
			st := s.settings()
			st.PerHostDelay = DefaultSettings().PerHostDelay
			before := s.requests.Load()
			for b.Loop() {
				urls, _, _, err := runMap(b, st, map[string]any{"url": "http://example.test/", "limit": 10000})
				if err != nil || len(urls) < 1500 {
					b.Fatalf("%d URLs, %v", len(urls), err)
				}
			}
			b.ReportMetric(float64(s.requests.Load()-before)/float64(b.N), "requests/op")
		})
	}
}

// TestMapGuard: a sitemap that redirects to a loopback address is refused
// by the crawler's guard (without ALLOW_PRIVATE_NETWORKS), said in the
// notes, and none of what it would have named is listed.
func TestMapGuard(t *testing.T) {
	s := newMapSite(t, 4)
	s.robots = "User-agent: *\nSitemap: http://example.test/moved.xml\n"
	s.mux.HandleFunc("/moved.xml", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.srv.URL+"/sitemap-pages-1.xml", http.StatusFound)
	})
	st := s.settings()
	st.AllowPrivate = false
	urls, sum, _, err := runMap(t, st, map[string]any{"url": "http://example.test/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if strings.Contains(u.URL, "/page/") && u.Source == SourceSitemap { // the home page links /page/0 itself
			t.Errorf("listed %s, named by a sitemap behind a refused redirect", u.URL)
		}
	}
	if !slices.ContainsFunc(sum.Notes, func(n string) bool {
		return strings.Contains(n, "moved.xml could not be read") && strings.Contains(n, "refused")
	}) {
		t.Errorf("notes %q", sum.Notes)
	}
	if s.hit("127.0.0.1", "/sitemap-pages-1.xml")+s.hit(s.srv.Listener.Addr().String(), "/sitemap-pages-1.xml") != 0 {
		t.Error("the redirect was followed")
	}
}

// TestMapKeepsWhatItReadAtTheDeadline: a call that ends while a sitemap
// hangs returns the URLs read by then (the host marks them partial).
func TestMapKeepsWhatItReadAtTheDeadline(t *testing.T) {
	s := newMapSite(t, 6)
	s.robots = "User-agent: *\nSitemap: http://example.test/sitemap-pages-1.xml\nSitemap: http://example.test/hang.xml\n"
	s.mux.HandleFunc("/hang.xml", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	out, err := scrapertest.RunTool(t, NewWithSettings(s.settings()), "map", `{"url":"http://example.test/"}`, 1500*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("a map past its call's deadline: %v", err)
	}
	var got []string
	for _, it := range out.Items {
		var u MapURL
		json.Unmarshal(it, &u)
		got = append(got, u.URL)
	}
	if !slices.Contains(got, "http://example.test/page/0") || !slices.Contains(got, "http://example.test/page/2") {
		t.Fatalf("the URLs read before the deadline are not kept: %q", got)
	}
}

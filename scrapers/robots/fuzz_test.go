package robots

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// parseSeeds are RFC 9309's examples and hostile files.
var parseSeeds = []string{
	"User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\nUser-Agent: foobot\nDisallow:/\nAllow:/example/page.html\nAllow:/example/allowed.gif\n\nUser-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\nUser-Agent: quxbot\n\nEOF\n",
	"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
	"user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n",
	"User-agent: *\nDisallow: /foo/bar?baz=quz\nDisallow: /foo/bar/\xe3\x83\x84\nDisallow: /foo/bar/%62%61%7A\nAllow: / # comment\n",
	"User-agent: SurfSense\nCrawl-delay: 30\nContent-Signal: /docs/ ai-input=no\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nSitemap: https://example.com/s.xml\n",
	"Content-Signal: ai-train=no\nUser-agent: *\nDisallow: /\n",
	// hostile
	"\xef\xbb\xbf\r\r\r\n\n\x00\x00User-agent:\x00*\x00\nDisallow:\xff\xfe/\n",
	"User-agent: *\nDisallow: /" + strings.Repeat("*a", 3000) + "$\n",
	"User-agent: *\nDisallow: " + strings.Repeat("%", 5000) + "\n",
	"User-agent: *\nAllow: " + strings.Repeat("%e3%83%84", 800) + "\n",
	"<!DOCTYPE html><html><body>User-agent: *\nDisallow: /</body></html>",
	strings.Repeat("User-agent: a\n", 2000) + "Disallow: /\n",
	"User-agent: *\nCrawl-delay: 1e309\nCrawl-delay: -0\nCrawl-delay: 0x10\n",
	"Sitemap: " + strings.Repeat("http://", 1000) + "\n",
	"Content-Signal: " + strings.Repeat("a=b,", 3000) + "\n",
	"User-agent *\nDisallow /nocolon\n::::\n:\n#\n",
}

// FuzzParse checks that any file parses without a panic, that /robots.txt
// stays allowed, and that the compact rendering kept in the fleet cache
// decides every path, Crawl-delay and Content-Signal as the file does.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s), "/example/page.html", "SurfSense")
		f.Add([]byte(s), "/a/b.gif?x=%7e", "foobot")
	}
	f.Fuzz(func(t *testing.T, body []byte, path, agent string) {
		if len(body) > DefaultMaxBytes || len(path) > 4096 {
			return
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		r := Parse(body)
		g := r.For(agent)
		if ok, _ := g.Test("/robots.txt"); !ok {
			t.Fatal("/robots.txt refused")
		}
		allowed, _ := g.Test(path)
		sig, sigOK := g.Signal(path, "ai-input")
		delay, delayOK := g.CrawlDelay()

		text := render(r, agent)
		if len(text) > len(body)*4+64 {
			t.Fatalf("rendering is %d bytes for a %d-byte file", len(text), len(body))
		}
		r2 := Parse(text)
		g2 := r2.For(agent)
		if a2, rule := g2.Test(path); a2 != allowed {
			t.Fatalf("%q: allowed=%v, after render %v (%s)\nrendered:\n%s", path, allowed, a2, rule, text)
		}
		if s2, ok2 := g2.Signal(path, "ai-input"); s2 != sig || ok2 != sigOK {
			t.Fatalf("ai-input %q,%v; after render %q,%v\nrendered:\n%s", sig, sigOK, s2, ok2, text)
		}
		if d2, ok2 := g2.CrawlDelay(); d2 != delay || ok2 != delayOK {
			t.Fatalf("delay %v,%v; after render %v,%v", delay, delayOK, d2, ok2)
		}
		if len(r2.Sitemaps()) != len(r.Sitemaps()) {
			t.Fatalf("sitemaps %q; after render %q", r.Sitemaps(), r2.Sitemaps())
		}
		// What the fleet cache keeps decodes to the same entry.
		e := &entry{kind: kindRules, fetched: timeForFuzz}
		e.setText(text, agent)
		d, ok := decode(encode(e), agent)
		if !ok || !bytes.Equal(d.text, text) {
			t.Fatal("the cache entry does not decode")
		}
	})
}

// FuzzMatch checks the linear matcher against a plain dynamic-programming
// one over '*' and a final '$'.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/fish*", "/fish.html"}, {"/*.php$", "/a.php"}, {"/*.php$", "/a.php5"}, {"/a*b*c$", "/abcabc"},
		{"*", "/"}, {"/a$b", "/a$bc"}, {"/" + strings.Repeat("*a", 40) + "$", "/" + strings.Repeat("a", 39) + "b"},
		{"/x*y*", "/xxyy"}, {"/$", "/"}, {"**$", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 200 || len(path) > 200 {
			return
		}
		if got, want := match(pattern, path), matchDP(pattern, path); got != want {
			t.Fatalf("match(%q, %q) = %v, the reference says %v", pattern, path, got, want)
		}
	})
}

// matchDP is the reference matcher: set[j] is whether pattern[:i] can
// match path[:j].
func matchDP(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	set := make([]bool, len(path)+1)
	set[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(path)+1)
		if pattern[i] == '*' {
			seen := false
			for j := range set {
				seen = seen || set[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < len(path); j++ {
				if set[j] && path[j] == pattern[i] {
					next[j+1] = true
				}
			}
		}
		set = next
	}
	if anchored {
		return set[len(path)]
	}
	for _, ok := range set {
		if ok {
			return true
		}
	}
	return false
}

var timeForFuzz = time.UnixMilli(1_764_000_000_000)

// fuzzAnswer is what the stand-in site of FuzzCheck answers.
type fuzzAnswer struct {
	code      int
	body      []byte
	redirects int
}

// FuzzCheck serves a fuzzed robots.txt (status, body, a chain of
// redirects) from a stand-in site and checks the verdict against the RFC
// 9309 rule for that answer: 2xx obeys the parsed file, 4xx and more than
// five redirects allow, 5xx and 429 refuse; Crawl-delay stays bounded.
func FuzzCheck(f *testing.F) {
	f.Add(200, []byte(parseSeeds[0]), "/example/page.html", uint8(0))
	f.Add(200, []byte(parseSeeds[4]), "/docs/a", uint8(5))
	f.Add(200, []byte(parseSeeds[6]), "/", uint8(6))
	f.Add(503, []byte("oops"), "/", uint8(0))
	f.Add(404, []byte("<html>not found</html>"), "/x", uint8(1))
	f.Add(429, []byte(""), "/x", uint8(0))
	f.Add(301, []byte(""), "/x", uint8(0))
	f.Add(200, bytes.Repeat([]byte("Disallow: /a\n"), 2000), "/a", uint8(0))

	var cur atomic.Pointer[fuzzAnswer]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := cur.Load()
		var hop int
		fmt.Sscanf(r.URL.Path, "/hop%d", &hop)
		if hop < a.redirects {
			http.Redirect(w, r, fmt.Sprintf("/hop%d", hop+1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(a.code)
		w.Write(a.body)
	}))
	defer srv.Close()
	const maxBytes = 4 << 10

	f.Fuzz(func(t *testing.T, code int, body []byte, path string, redirects uint8) {
		code = 200 + (code%400+400)%400 // 200..599
		if code >= 300 && code < 400 {
			code = 300 + code%5 // 300..304: not followed without a Location
		}
		a := &fuzzAnswer{code: code, body: body, redirects: int(redirects % 8)}
		cur.Store(a)
		u, err := url.Parse(srv.URL + "/" + strings.TrimPrefix(path, "/"))
		if err != nil || u.Host != strings.TrimPrefix(srv.URL, "http://") {
			return
		}
		c := New(Config{MaxBytes: maxBytes, FetchTimeout: 5 * time.Second})
		v := c.Check(context.Background(), u)
		if v.CrawlDelay > DefaultMaxCrawlDelay || v.CrawlDelay < 0 {
			t.Fatalf("crawl delay %v", v.CrawlDelay)
		}
		_, _, p, _ := split(u)
		switch {
		case p == "/robots.txt":
			if !v.Allowed {
				t.Fatalf("/robots.txt refused: %v", v.Err)
			}
		case a.redirects > maxRedirects:
			if !v.Allowed {
				t.Fatalf("after %d redirects: %v, want allowed", a.redirects, v.Err)
			}
		case code == 429 || code >= 500:
			if v.Allowed || !errors.Is(v.Err, ErrUnreachable) {
				t.Fatalf("HTTP %d: %+v", code, v)
			}
		case code >= 300:
			if !v.Allowed {
				t.Fatalf("HTTP %d: %v, want allowed", code, v.Err)
			}
		default:
			if code == http.StatusNoContent || code == http.StatusResetContent {
				body = nil // the server sends no body
			}
			read, _, _ := readAtMost(bytes.NewReader(body), maxBytes)
			g := Parse(read).For(DefaultAgent)
			want, _ := g.Test(p)
			if s, _ := g.Signal(p, "ai-input"); s == "no" {
				want = false
			}
			if v.Allowed != want {
				t.Fatalf("HTTP %d %q: allowed=%v (%v), the parsed file says %v", code, p, v.Allowed, v.Err, want)
			}
		}
	})
}

package robots

import (
	"bytes"
	"strings"
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

package robots

import (
	"testing"
	"time"
)

// rfcCase is one URL path and what RFC 9309 says of it for an agent.
type rfcCase struct {
	agent, path string
	allowed     bool
}

func runCases(t *testing.T, body string, cases []rfcCase) {
	t.Helper()
	r := Parse([]byte(body))
	for _, c := range cases {
		if got, rule := r.For(c.agent).Test(c.path); got != c.allowed {
			t.Errorf("%s %s: allowed=%v (rule %q), want %v", c.agent, c.path, got, rule, c.allowed)
		}
	}
}

// RFC 9309 section 5.1, "Simple Example".
func TestRFC9309SimpleExample(t *testing.T) {
	const body = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`
	runCases(t, body, []rfcCase{
		// foobot: only the two allowed pages.
		{"foobot", "/example/page.html", true},
		{"foobot", "/example/allowed.gif", true},
		{"foobot", "/", false},
		{"foobot", "/publications/", false},
		{"FooBot/2.1", "/example/other.html", false},
		// barbot and bazbot share one group.
		{"barbot", "/example/page.html", false},
		{"bazbot", "/example/page.html", false},
		{"barbot", "/example/", true},
		{"bazbot", "/image.gif", true},
		// quxbot's group is empty: everything allowed, '*' not used.
		{"quxbot", "/example/", true},
		{"quxbot", "/a.gif", true},
		// everyone else: the '*' group.
		{"SurfSense", "/image.gif", false},
		{"SurfSense", "/image.gif?x=1", true}, // '$' ends the URL
		{"SurfSense", "/example/", false},
		{"SurfSense", "/example/page.html", false},
		{"SurfSense", "/publications/", true},
		{"SurfSense", "/", true},
	})
}

// RFC 9309 section 5.2, "Longest Match".
func TestRFC9309LongestMatch(t *testing.T) {
	const body = `User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
`
	runCases(t, body, []rfcCase{
		{"foobot", "/example/page/", true},
		{"foobot", "/example/page/other.html", true},
		{"foobot", "/example/page/disallowed.gif", false},
		{"otherbot", "/example/page/disallowed.gif", true}, // no '*' group: no rules
	})
}

// RFC 9309 section 2.2.1: groups for the same product token are merged,
// the product token is matched case-insensitively, and a group names a
// token, not a prefix of one.
func TestRFC9309Groups(t *testing.T) {
	const body = `user-agent: ExampleBot
disallow: /foo
disallow: /bar

user-agent: ExampleBot
disallow: /baz

User-agent: Surf
Disallow: /surf-only/

User-agent: SurfSense/1.4 (+https://surfsense.com)
Disallow: /private/

User-agent: *
Disallow: /
`
	runCases(t, body, []rfcCase{
		{"ExampleBot", "/foo", false},
		{"examplebot", "/bar", false},
		{"EXAMPLEBOT", "/baz", false},
		{"ExampleBot", "/qux", true},
		{"SurfSense", "/private/x", false},
		{"SurfSense", "/surf-only/", true}, // "Surf" is another token
		{"SurfSense", "/", true},           // its own group, not '*'
		{"Surf", "/surf-only/", false},
		{"nobot", "/", false},
	})
}

// RFC 9309 section 2.2.2: the longest match wins, Allow wins a tie, an
// empty Disallow is no rule, and /robots.txt is always allowed.
func TestRFC9309Precedence(t *testing.T) {
	const body = `User-agent: *
Disallow: /
Allow: /page
Disallow: /page
Disallow: /*.pdf
Allow: /docs/*.pdf
Disallow:
`
	runCases(t, body, []rfcCase{
		{"a", "/", false},
		{"a", "/page", true},  // tie: Allow
		{"a", "/page2", true}, // tie: Allow
		{"a", "/x.pdf", false},
		{"a", "/docs/x.pdf", true}, // "/docs/*.pdf" is longer than "/*.pdf"
		{"a", "/robots.txt", true},
	})
	runCases(t, "User-agent: *\nDisallow:\n", []rfcCase{{"a", "/", true}, {"a", "/x", true}})
}

// RFC 9309 section 2.2.2's percent-encoding table, and its special
// characters (section 2.2.3).
func TestRFC9309Encoding(t *testing.T) {
	const body = "User-agent: *\n" +
		"Disallow: /foo/bar?baz=quz\n" +
		"Disallow: /foo/bar/\xe3\x83\x84\n" + // U+30C4 written raw
		"Disallow: /foo/bar/%62%61%7A\n" + // "baz" encoded
		"Disallow: /tilde/%7e\n" +
		"Disallow: /enc/%2fx\n" +
		"Allow: / # comment in line\n" +
		"# comment on its own line\n" +
		"Disallow: /this/path/exactly$\n" +
		"Disallow: /this/*/exactly\n"
	runCases(t, body, []rfcCase{
		{"a", "/foo/bar?baz=quz", false},
		{"a", "/foo/bar?baz=other", true},
		{"a", "/foo/bar/%E3%83%84", false},
		{"a", "/foo/bar/%e3%83%84", false}, // hex case does not matter
		{"a", "/foo/bar/baz", false},
		{"a", "/foo/bar/%62az", false},
		{"a", "/tilde/~", false},
		{"a", "/enc/%2Fx", false},
		{"a", "/enc/x", true}, // %2F is reserved: not "/"
		{"a", "/this/path/exactly", false},
		{"a", "/this/path/exactly/more", false}, // "/this/*/exactly" is a prefix of it
		{"a", "/this/a/b/exactly", false},
		{"a", "/this/exactly", true},
	})
	runCases(t, "User-agent: *\nDisallow: /this/path/exactly$\n", []rfcCase{
		{"a", "/this/path/exactly", false},
		{"a", "/this/path/exactly/more", true},
		{"a", "/this/path/exactly?q", true},
	})
}

// Google's documented wildcard examples, which RFC 9309 follows.
func TestWildcards(t *testing.T) {
	cases := []struct {
		pattern string
		yes, no []string
	}{
		{"/fish*", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish/", []string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"}, []string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		{"/*.php", []string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$", []string{"/filename.php", "/folder/filename.php"}, []string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php", []string{"/fish.php", "/fishheads/catfish.php?parameters"}, []string{"/Fish.PHP"}},
		{"*", []string{"/", "/anything"}, nil},
		{"/a*b*c$", []string{"/abc", "/aXbYc", "/abcabc"}, []string{"/abcd", "/acb"}},
		{"/a$b", []string{"/a$b", "/a$bc"}, []string{"/a"}}, // '$' ends a pattern only at its end
		{"/$", []string{"/"}, []string{"/a"}},
	}
	for _, c := range cases {
		p := normalisePattern(c.pattern)
		for _, y := range c.yes {
			if !match(p, normalisePath(y)) {
				t.Errorf("%q should match %q", c.pattern, y)
			}
		}
		for _, n := range c.no {
			if match(p, normalisePath(n)) {
				t.Errorf("%q should not match %q", c.pattern, n)
			}
		}
	}
}

// Lines RFC 9309 asks crawlers to be lenient with: no group yet, bad
// values, Google's accepted misspellings, CR line ends, a BOM.
func TestLenientParsing(t *testing.T) {
	const body = "\xef\xbb\xbfDisallow: /before-any-group\r" +
		"Sitemap: https://example.com/s1.xml\r\n" +
		"useragent: *\r" +
		"Crawl-delay: 1s\r" +
		"dissallow: /typo\r" +
		"Disallow /nocolon\r" +
		"Disallow: /a b\n" +
		"Unknown: whatever\n" +
		"Sitemap: /relative.xml\n" +
		"Sitemap: https://example.com/s1.xml\n" +
		"Sitemap: https://example.com/s2.xml\n"
	r := Parse([]byte(body))
	g := r.For("SurfSense")
	runCases(t, body, []rfcCase{
		{"x", "/before-any-group", true},
		{"x", "/typo", false},
		{"x", "/nocolon", false},
		{"x", "/a%20b", false},
		{"x", "/a", true},
	})
	if _, ok := g.CrawlDelay(); ok {
		t.Error(`Crawl-delay "1s" should be ignored, not read`)
	}
	if got := r.Sitemaps(); len(got) != 2 || got[0] != "https://example.com/s1.xml" || got[1] != "https://example.com/s2.xml" {
		t.Errorf("sitemaps = %q", got)
	}
}

func TestCrawlDelay(t *testing.T) {
	for _, c := range []struct {
		val  string
		want time.Duration
		ok   bool
	}{{"1", time.Second, true}, {"0.5", 500 * time.Millisecond, true}, {"30", 30 * time.Second, true},
		{"-1", 0, false}, {"NaN", 0, false}, {"soon", 0, false}, {"1e300", 365 * 24 * time.Hour, true}} {
		d, ok := Parse([]byte("User-agent: *\nCrawl-delay: " + c.val + "\n")).For("x").CrawlDelay()
		if d != c.want || ok != c.ok {
			t.Errorf("Crawl-delay: %s = %v, %v; want %v, %v", c.val, d, ok, c.want, c.ok)
		}
	}
}

// An HTML page served as robots.txt has no rules, even if its text looks
// like some.
func TestHTMLIsNoRules(t *testing.T) {
	for _, body := range []string{
		"<!DOCTYPE html><html><body><pre>User-agent: *\nDisallow: /\n</pre></body></html>",
		"\n\n  <html>\nUser-agent: *\nDisallow: /\n",
	} {
		if ok, _ := Parse([]byte(body)).For("x").Test("/"); !ok {
			t.Errorf("an HTML page should have no rules: %q", body)
		}
	}
}

func TestContentSignal(t *testing.T) {
	const body = `Content-Signal: search=yes, ai-train=no

User-agent: *
Content-Signal: search=yes, ai-input=no, ai-train=no
Content-Signal: /open/ ai-input=yes
Allow: /

User-agent: SurfSense
Content-Signal: ai-input=yes
Content-Signal: /closed/ ai-input=no
`
	r := Parse([]byte(body))
	for _, c := range []struct {
		agent, path, want string
	}{
		{"other", "/", "no"},
		{"other", "/open/page", "yes"},
		{"SurfSense", "/", "yes"},
		{"SurfSense", "/closed/x", "no"},
	} {
		if got, _ := r.For(c.agent).Signal(c.path, "ai-input"); got != c.want {
			t.Errorf("%s %s: ai-input=%q, want %q", c.agent, c.path, got, c.want)
		}
	}
	// The lines before any group apply when the group says nothing.
	if got, ok := r.For("SurfSense").Signal("/", "ai-train"); !ok || got != "no" {
		t.Errorf("ai-train = %q, %v; want the global no", got, ok)
	}
}

// render keeps what For decides: parsing the rendering gives the same
// answers, delays, signals and sitemaps.
func TestRenderRoundTrip(t *testing.T) {
	const body = `Content-Signal: ai-train=no
User-agent: *
Disallow: /x
User-agent: SurfSense
Crawl-delay: 2.5
Disallow: /private/
Allow: /private/ok$
Disallow: /*.PDF
Content-Signal: /docs/ ai-input=no
Sitemap: https://example.com/sitemap.xml
`
	r := Parse([]byte(body))
	text := render(r, "SurfSense")
	r2 := Parse(text)
	for _, p := range []string{"/", "/x", "/private/", "/private/ok", "/private/ok2", "/a.PDF", "/a.pdf", "/docs/a"} {
		a1, _ := r.For("SurfSense").Test(p)
		a2, _ := r2.For("SurfSense").Test(p)
		s1, _ := r.For("SurfSense").Signal(p, "ai-input")
		s2, _ := r2.For("SurfSense").Signal(p, "ai-input")
		if a1 != a2 || s1 != s2 {
			t.Errorf("%s: %v/%q before, %v/%q after render:\n%s", p, a1, s1, a2, s2, text)
		}
	}
	d1, _ := r.For("SurfSense").CrawlDelay()
	d2, _ := r2.For("SurfSense").CrawlDelay()
	if d1 != d2 || d1 != 2500*time.Millisecond {
		t.Errorf("delay %v then %v", d1, d2)
	}
	if s := r2.Sitemaps(); len(s) != 1 {
		t.Errorf("sitemaps after render: %q", s)
	}
	if len(text) >= len(body) {
		t.Errorf("rendering is %d bytes, the file %d: not compact", len(text), len(body))
	}
}

// RFC 9309 2.2.4: records outside the protocol (Crawl-delay,
// Content-Signal, Sitemap, unknown ones) do not change how groups are
// read: a User-agent line after them still joins the group.
func TestOtherRecordsDoNotSplitGroups(t *testing.T) {
	const body = "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nContent-Signal: ai-train=no\nSitemap: https://x.example/s.xml\nHost: x\nUser-agent: c\nDisallow: /\n" +
		"User-agent: d\nAllow: /\n"
	runCases(t, body, []rfcCase{{"a", "/x", false}, {"b", "/x", false}, {"c", "/x", false}, {"d", "/x", true}})
	r := Parse([]byte(body))
	if d, _ := r.For("c").CrawlDelay(); d != 5*time.Second {
		t.Errorf("c's Crawl-delay %v, want the group's 5s", d)
	}
	if v, _ := r.For("a").Signal("/", "ai-train"); v != "no" {
		t.Errorf("a's ai-train %q, want the group's no", v)
	}
}

package robots

import (
	"testing"

	"github.com/temoto/robotstxt"
)

// TestTemotoDepartures shows where github.com/temoto/robotstxt (colly's
// parser) departs from RFC 9309, each case being why this package parses
// robots.txt itself. If a later release fixes one, its case fails here and
// the choice can be looked at again.
func TestTemotoDepartures(t *testing.T) {
	cases := []struct {
		name, body, path string
		rfcAllowed       bool
		temotoFails      bool // temoto rejects the whole file
	}{
		{name: "a Disallow before any User-agent voids the file",
			body: "Disallow: /x\nUser-agent: *\nDisallow: /private/\n", path: "/private/a", rfcAllowed: false, temotoFails: true},
		{name: "a Crawl-delay that is not a number voids the file",
			body: "User-agent: *\nCrawl-delay: 1s\nDisallow: /private/\n", path: "/private/a", rfcAllowed: false, temotoFails: true},
		{name: "product tokens are matched by prefix",
			body: "User-agent: Surf\nDisallow: /\n", path: "/a", rfcAllowed: true},
		{name: "the first of two equal rules wins, not Allow",
			body: "User-agent: *\nDisallow: /page\nAllow: /page\n", path: "/page", rfcAllowed: true},
		{name: "wildcard rules are ranked by their regexp's length",
			body: "User-agent: *\nDisallow: /a/b/c/\nAllow: /*.x.y\n", path: "/a/b/c/f.x.y", rfcAllowed: false},
		{name: "percent-encoding is not normalised",
			body: "User-agent: *\nDisallow: /%7Efoo\n", path: "/~foo", rfcAllowed: false},
	}
	for _, c := range cases {
		ours, _ := Parse([]byte(c.body)).For(DefaultAgent).Test(c.path)
		if ours != c.rfcAllowed {
			t.Errorf("%s: this package says allowed=%v, RFC 9309 %v", c.name, ours, c.rfcAllowed)
		}
		data, err := robotstxt.FromString(c.body)
		if c.temotoFails {
			if err == nil {
				t.Errorf("%s: temoto now reads the file", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: temoto: %v", c.name, err)
			continue
		}
		if got := data.TestAgent(c.path, DefaultAgent); got == c.rfcAllowed {
			t.Errorf("%s: temoto now agrees with RFC 9309 (allowed=%v)", c.name, got)
		}
	}
}

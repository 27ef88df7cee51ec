package robots_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/surfsense/pluginhost/scrapers/robots"
)

func ExampleParse() {
	r := robots.Parse([]byte(`User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 2
Content-Signal: /drafts/ ai-input=no
Sitemap: https://example.com/sitemap.xml
`))
	g := r.For(robots.DefaultAgent)
	for _, p := range []string{"/", "/private/plans", "/private/press/launch", "/%70rivate/x"} {
		ok, rule := g.Test(p)
		if rule == "" {
			rule = "(no rule applies)"
		}
		fmt.Printf("%-22s %-5v %s\n", p, ok, rule)
	}
	d, _ := g.CrawlDelay()
	ai, _ := g.Signal("/drafts/one", "ai-input")
	fmt.Println(d, ai, r.Sitemaps())
	// Output:
	// /                      true  (no rule applies)
	// /private/plans         false Disallow: /private/
	// /private/press/launch  true  Allow: /private/press/
	// /%70rivate/x           false Disallow: /private/
	// 2s no [https://example.com/sitemap.xml]
}

func ExampleChecker_Check() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: SurfSense\nDisallow: /account/\nCrawl-delay: 60\n")
			return
		}
		io.WriteString(w, "a page")
	}))
	defer site.Close()

	c := robots.New(robots.Config{Client: site.Client()})
	for _, p := range []string{"/blog/post", "/account/settings"} {
		u, _ := url.Parse(site.URL + p)
		v := c.Check(context.Background(), u)
		fmt.Println(p, v.Allowed, errors.Is(v.Err, robots.ErrDisallowed), v.CrawlDelay, v.CrawlDelayAsked)
	}
	// Output:
	// /blog/post true false 10s 1m0s
	// /account/settings false true 10s 1m0s
}

func ExampleParseMode() {
	for _, s := range []string{"", "ignore", "off"} {
		ignore, err := robots.ParseMode(s)
		fmt.Println(ignore, err)
	}
	// Output:
	// false <nil>
	// true <nil>
	// false ROBOTS_TXT="off" is not a mode: use "obey" (the default: robots.txt is followed) or "ignore" (only for sites you own)
}

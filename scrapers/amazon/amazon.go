// Package amazon is SurfSense's Amazon plugin: one tool, scrape, that reads
// Amazon search results (any marketplace) and product pages.
//
// Requests go through a [scrapers.Fetcher], so AMAZON_BASE_URL sends every
// request, for any Amazon domain (amazon.com, amazon.co.jp, amazon.in, …), to
// a stand-in origin instead.
package amazon

import (
	"net/http"

	"github.com/surfsense/pluginhost/scrapers"
)

const (
	// ID is the plugin id; AMAZON_BASE_URL is read from it.
	ID       = "amazon"
	siteName = "Amazon"
)

// site describes Amazon to the fetching layer. "amazon." makes every
// marketplace domain the site's own, so that the base URL rewrites them all.
var site = scrapers.Site{
	ID:          ID,
	Name:        siteName,
	Origin:      "https://www.amazon.com",
	Domains:     []string{"amazon."},
	DetectBlock: detectBlock,
	Header: http.Header{
		"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
	},
}

// New builds the Amazon plugin from env.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, err
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:    ID,
		Name:  siteName,
		Tools: []scrapers.Tool{s.tool()},
	}, nil
}

// Package walmart is SurfSense's Walmart plugin: scrape reads search results
// and product pages, reviews reads an item's customer reviews. Both read the
// JSON Walmart's pages render from (__NEXT_DATA__).
//
// Requests go through a [scrapers.Fetcher], so WALMART_BASE_URL sends every
// request, user-given walmart.com URLs included, to a stand-in origin.
package walmart

import (
	"net/http"

	"github.com/surfsense/pluginhost/scrapers"
)

const (
	// ID is the plugin id; WALMART_BASE_URL is read from it.
	ID       = "walmart"
	siteName = "Walmart"
)

var site = scrapers.Site{
	ID:          ID,
	Name:        siteName,
	Origin:      origin,
	Domains:     []string{"walmart.com"},
	DetectBlock: detectBlock,
	Header: http.Header{
		"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
	},
}

// New builds the Walmart plugin from env.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, err
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:    ID,
		Name:  siteName,
		Tools: []scrapers.Tool{s.scrapeTool(), s.reviewsTool()},
	}, nil
}

// scraper runs the tools with one fetcher shared by all calls.
type scraper struct {
	f *scrapers.Fetcher
}

// Package youtube is SurfSense's YouTube plugin (id youtube): the scrape tool
// reads videos (from their URLs, from searches, or a channel's Videos tab)
// with their details and, on request, their subtitles; the comments tool
// reads a video's comments. Searches, channels and comments are listings:
// a call of one returns next_cursor, and takes it back as cursor.
//
// It reads YouTube as a browser does, without an API key of its own: the
// watch, results and channel pages carry their data as JSON
// (ytInitialPlayerResponse, ytInitialData), and further pages come from the
// same innertube endpoints the pages call (/youtubei/v1/search, /browse,
// /next, /player). YOUTUBE_BASE_URL
// sends every request, user-given URLs on any YouTube host included, to a
// stand-in.
package youtube

import (
	"net/http"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "youtube"

// siteDomains are the hosts that are YouTube (subdomains included:
// www., m., music.).
var siteDomains = []string{"youtube.com", "youtu.be", "youtube-nocookie.com"}

// Site describes YouTube for the fetching layer: its domains, the consent
// cookie that spares the EU consent interstitial (SOCS, as a visitor who
// declined optional cookies), and block detection.
func Site() scrapers.Site {
	return scrapers.Site{
		ID:          ID,
		Name:        siteName,
		Origin:      origin,
		Domains:     siteDomains,
		Cookies:     []*http.Cookie{{Name: "SOCS", Value: "CAI", Domain: ".youtube.com", Path: "/"}},
		DetectBlock: detectBlock,
	}
}

// plugin holds what the tools share: one fetcher for the site.
type plugin struct {
	fetch *scrapers.Fetcher
}

// New builds the YouTube plugin from env.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, Site())
	if err != nil {
		return scrapers.Plugin{}, err
	}
	p := &plugin{fetch: f}
	return scrapers.Plugin{
		ID:    ID,
		Name:  siteName,
		Tools: []scrapers.Tool{p.scrapeTool(), p.commentsTool()},
	}, nil
}

// Package googlemaps is SurfSense's Google Maps plugin. Its scrape tool finds
// places by search (Google's tbm=map endpoint), by place URL or by place id
// (the place array a Maps page embeds in APP_INITIALIZATION_STATE); its
// reviews tool lists a place's reviews through the listugcposts endpoint the
// Maps web app pages with.
//
// GOOGLE_MAPS_BASE_URL points every request (www.google.com/maps,
// maps.google.com, google.<tld>) at another origin, keeping path and query.
package googlemaps

import (
	"fmt"
	"net/http"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "google-maps"

// site is Google Maps as the fetching layer sees it.
var site = scrapers.Site{
	ID:     ID,
	Name:   "Google Maps",
	Origin: "https://www.google.com",
	// "google." matches google.<any tld> and its subdomains (maps., www.).
	Domains: []string{"google.", "goo.gl"},
	// SOCS=CAI answers the EU cookie-consent wall (essential cookies only),
	// so that pages come without the consent.google.com interstitial.
	Cookies:     []*http.Cookie{{Name: "SOCS", Value: "CAI"}},
	DetectBlock: detectBlock,
}

const scrapeDescription = `Scrape Google Maps places: name, address (and its parts: borough, street, city, postal code, state, country), category, rating and review_count, phone, website, coordinates, opening hours, place id.
Find them by search_queries (put the area in the query: "coffee in Athens"), by Maps URLs (place or search links) or by place_ids; give at least one, each list at most 20. max_places caps the places per search (default 10). Every place names its Maps link in "url".`

const reviewsDescription = `List the reviews of Google Maps places: author, rating, text (and Google's translation), date, the owner's reply.
Give place URLs in urls or place ids in place_ids (at least one, at most 20 each); max_reviews caps the reviews per place (default 20), sort_by orders them (most_relevant, newest, highest, lowest).`

// New builds the Google Maps plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("google-maps: %w", err)
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:   ID,
		Name: "Google Maps",
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape Google Maps", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.ItemSchema[Place]()).WithCursor(),
			scrapers.NewTool("reviews", "Google Maps reviews", reviewsDescription, reviewsSchema, s.reviews).
				WithItems(scrapers.ItemSchema[Review]()).WithCursor(),
		},
	}, nil
}

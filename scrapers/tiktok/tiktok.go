// Package tiktok is SurfSense's TikTok plugin: one tool, scrape, that reads
// video pages, profiles and hashtags from the data TikTok embeds in its pages
// (the __UNIVERSAL_DATA_FOR_REHYDRATION__ script) and from its item_list API.
//
// TIKTOK_BASE_URL points every request (tiktok.com, www., m. and vm.tiktok.com)
// at another origin, keeping path and query.
package tiktok

import (
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "tiktok"

// site is TikTok as the fetching layer sees it.
var site = scrapers.Site{
	ID:          ID,
	Name:        "TikTok",
	Origin:      "https://www.tiktok.com",
	Domains:     []string{"tiktok.com"}, // and every subdomain: www., m., vm.
	DetectBlock: detectBlock,
}

const scrapeDescription = `Scrape TikTok: videos (description, author, play/like/comment/share/save counts, music, hashtags, duration, cover), profiles (bio, followers, likes, videos) with their latest videos, and hashtags with their videos.
Give video, profile, hashtag or short-link URLs in urls, usernames in profiles, hashtag names in hashtags (at least one, each at most 20); max_items caps the videos per profile or hashtag. Every item names its page in "url" and its kind in "type" (video, profile, hashtag).`

// New builds the TikTok plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("tiktok: %w", err)
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:   ID,
		Name: "TikTok",
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape TikTok", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.AnyItem(scrapers.ItemSchema[Video](), scrapers.ItemSchema[Profile](), scrapers.ItemSchema[Hashtag]())),
		},
	}, nil
}

// Package tiktok is SurfSense's TikTok plugin. scrape reads video pages,
// profiles and hashtags from the data TikTok embeds in its pages (the
// __UNIVERSAL_DATA_FOR_REHYDRATION__ script) and from its item_list API,
// and keyword searches of videos and users from its search API; comments
// lists a video's comments from its comment list API. Where an endpoint
// answers only requests its web client's scripts have signed (X-Bogus,
// msToken), the result says so, naming the endpoint.
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
Give video, profile, hashtag, search or short-link URLs in urls, usernames in profiles, hashtag names in hashtags, keywords in search_queries (videos, or users with search_type users); at least one, each list at most 20. max_items caps the videos per profile or hashtag and the results per search. TikTok's search answers only requests signed by its web client's scripts; when it refuses, the result says so for that search. Every item names its page in "url" and its kind in "type" (video, profile, hashtag).`

const commentsDescription = `List the comments of TikTok videos: text, author, likes, reply_count, created_at, language, whether the author pinned or liked it, from TikTok's web API.
Give video URLs in urls or video ids in video_ids (at least one, at most 20 each); max_comments caps the comments per video (1-500, default 20). Every comment names its video in "url".`

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
			scrapers.NewTool("comments", "TikTok comments", commentsDescription, commentsSchema, s.comments).
				WithItems(scrapers.ItemSchema[Comment]()),
		},
	}, nil
}

// Package tiktok is SurfSense's TikTok plugin. scrape reads video pages,
// profiles and hashtags from the data TikTok embeds in its pages (the
// __UNIVERSAL_DATA_FOR_REHYDRATION__ script) and from its item_list API,
// keyword searches of videos and users from its search API, and the
// trending (For You) feed from its recommend item list; comments lists a
// video's comments from its comment list API. Where an endpoint answers
// only requests its web client's scripts have signed (X-Bogus, msToken),
// the result says so, naming the endpoint; a profile's videos are then read
// from the profile page rendered in a browser (scrapers/render), when the
// host has one. Every listing returns next_cursor, which the tool takes
// back as cursor to continue.
//
// TIKTOK_BASE_URL points every request (tiktok.com, www., m. and vm.tiktok.com)
// at another origin, keeping path and query.
package tiktok

import (
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/render"
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

const scrapeDescription = `Scrape TikTok: videos (description, author, play/like/comment/share/save counts, music, hashtags, duration, cover), profiles (bio, followers, likes, videos) with their latest videos, hashtags with their videos, keyword searches, and the trending (For You) feed.
Give video, profile, hashtag, search or short-link URLs in urls, usernames in profiles, hashtag names in hashtags, keywords in search_queries (videos, or users with search_type users), trending true for the feed; at least one, each list at most 20. max_items caps the videos per profile, hashtag or feed and the results per search. With one listing, next_cursor continues it: give it back as cursor. TikTok's item lists, search and feed answer only requests signed by its web client's scripts; when one refuses, the result says so, and a profile's videos are then read from its page rendered in the host's browser when the host has one (listed_via says how each video was read). Every item names its page in "url" and its kind in "type" (video, profile, hashtag).`

const commentsDescription = `List the comments of TikTok videos: text, author, likes, reply_count, created_at, language, whether the author pinned or liked it, from TikTok's web API.
Give video URLs in urls or video ids in video_ids (at least one, at most 20 each); max_comments caps the comments per video (1-500, default 20). With one video, next_cursor continues its comments: give it back as cursor. Every comment names its video in "url".`

// browserUserAgent is the User-Agent the renderer's pages send.
const browserUserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36"

// New builds the TikTok plugin. With RENDERER_URL or CHROMIUM_BIN it keeps
// a renderer of its own (its browser starts at the first profile it
// renders) to read a profile's videos from the rendered page.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("tiktok: %w", err)
	}
	s := &scraper{f: f}
	rc, ok, err := render.FromEnv(env, ID)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("tiktok's renderer: %w", err)
	}
	var r *render.Renderer
	if ok {
		if env.PageTimeout > 0 {
			rc.PageTimeout = env.PageTimeout
		}
		// A headless browser names itself HeadlessChrome, which TikTok
		// answers with its captcha: the renderer speaks as a desktop one.
		rc.UserAgent = browserUserAgent
		if r, err = render.New(rc); err != nil {
			return scrapers.Plugin{}, fmt.Errorf("tiktok's renderer: %w", err)
		}
		s.renderer = r
	}
	p := scrapers.Plugin{
		ID:   ID,
		Name: "TikTok",
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape TikTok", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.AnyItem(scrapers.ItemSchema[Video](), scrapers.ItemSchema[Profile](), scrapers.ItemSchema[Hashtag]())).WithCursor(),
			scrapers.NewTool("comments", "TikTok comments", commentsDescription, commentsSchema, s.comments).
				WithItems(scrapers.ItemSchema[Comment]()).WithCursor(),
		},
		Vars: render.Vars,
		Status: func() (string, string) {
			if r == nil {
				return "tiktok renderer", "not configured (set RENDERER_URL or CHROMIUM_BIN to read a profile's videos from its rendered page when TikTok's item list refuses unsigned requests)"
			}
			return "tiktok renderer", r.Status()
		},
	}
	if r != nil {
		p.Close = r.Close
	}
	return p, nil
}

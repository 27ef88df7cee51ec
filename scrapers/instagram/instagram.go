// Package instagram is SurfSense's Instagram plugin: scrape lists the posts
// of public profiles and reads posts and reels by URL; details reads
// profiles (counts, bio, links, recent posts) and posts with their comments.
// Profiles come from the web profile endpoint Instagram's web client asks
// (/api/v1/users/web_profile_info/, with its X-IG-App-ID header), or, when
// it asks for a login, from the logged-out profile page's meta tags; posts
// and reels from the JSON their pages embed (the media item and the first
// page of its comments). Further pages come from the web client's GraphQL
// queries (a profile's timeline, PolarisPostCommentsPaginationQuery), and
// every listing returns next_cursor, which the tools take back as cursor.
//
// The plugin is unlisted: the host mounts it only when UNLISTED_PLUGINS names
// instagram, and it is not in the first-party list, since Instagram often
// asks anonymous readers to log in; a login wall, a checkpoint, a rate limit
// and Instagram's error page are blocks the answer names.
//
// INSTAGRAM_BASE_URL points every request (instagram.com, www. and m.) at
// another origin, keeping path and query.
package instagram

import (
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "instagram"

// site is Instagram as the fetching layer sees it.
var site = scrapers.Site{
	ID:            ID,
	Name:          "Instagram",
	Origin:        origin,
	Domains:       []string{"instagram.com"},
	DetectBlock:   detectBlock,
	MaxConcurrent: 2,
}

const scrapeDescription = `Read public Instagram posts: the posts of profiles (give usernames or profile URLs) and posts or reels by URL. Each post has its caption, hashtags, mentions, owner, taken_at, like_count, comment_count, view_count, image and video URLs at their original dimensions (every image and video of a carousel) and location.
urls and usernames hold at most 20 each (at least one in all); max_items caps the posts per profile (1-50, default 12). With one profile, next_cursor continues its posts: give it back as cursor. Instagram often asks anonymous readers to log in for older posts; the result then says so. Every item names its page in "url" and its kind in "type" (post, reel).`

const detailsDescription = `Read public Instagram profiles in detail: full name, biography, links, followers, following, post_count, verified, private, business category, profile picture and the recent posts; and posts or reels by URL with their comments (text, author, created_at, like_count, reply_count).
urls and usernames hold at most 20 each (at least one in all). comments caps the comments per post (0-100, default 20); with one post, next_cursor (and each post's comments_next_cursor) continues its comments: give it back as cursor. When Instagram's profile API asks for a login, the profile is read from its logged-out page (name, counts as written, biography, picture), and read_from says so. Every item names its page in "url" and its kind in "type" (profile, post, reel).`

// New builds the Instagram plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("instagram: %w", err)
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:       ID,
		Name:     "Instagram",
		Unlisted: true,
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape Instagram", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.ItemSchema[Post]()).WithCursor(),
			scrapers.NewTool("details", "Instagram details", detailsDescription, detailsSchema, s.details).
				WithItems(scrapers.AnyItem(scrapers.ItemSchema[Profile](), scrapers.ItemSchema[Post]())).WithCursor(),
		},
	}, nil
}

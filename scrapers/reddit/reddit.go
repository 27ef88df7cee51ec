// Package reddit is SurfSense's Reddit plugin: one tool, scrape, that reads
// subreddits, posts with their comment trees, users and searches from the
// .json endpoints Reddit's web client reads, anonymously: it loads the front
// page once for the anonymous cookies Reddit sets, then asks the endpoints
// with raw_json=1 and pages through listings with after.
//
// The plugin is unlisted: the host mounts it only when UNLISTED_PLUGINS names
// reddit, and it is not in the first-party list, since Reddit refuses much
// anonymous reading today (a login wall or its network-security block page,
// each named in the tool error).
//
// REDDIT_BASE_URL points every request (reddit.com and its subdomains,
// redd.it) at another origin, keeping path and query.
package reddit

import (
	"fmt"

	"github.com/surfsense/pluginhost/scrapers"
)

// ID is the plugin's id.
const ID = "reddit"

// site is Reddit as the fetching layer sees it.
var site = scrapers.Site{
	ID:            ID,
	Name:          "Reddit",
	Origin:        origin,
	Domains:       []string{"reddit.com", "redd.it"},
	DetectBlock:   detectBlock,
	MaxConcurrent: 2,
}

const scrapeDescription = `Read Reddit anonymously: posts (title, author, score, upvote ratio, comment_count, created_at, flair, link, media, selftext) of subreddits, users and searches, and posts with their comments as a tree (each comment with its depth, parent_id, score and replies).
Give Reddit URLs in urls, or subreddits, users or search_queries (at least one, each at most 20). sort and time_filter order listings and searches; max_items caps the posts per subreddit, user or search; max_comments and max_comment_depth bound each post's comments (post URLs always get them; include_comments reads them for listed posts too). A comment's permalink (/comments/<post>/<slug>/<comment>/, ?context= parent levels, default 3) gives a comment_thread: that comment with its context and replies (the focused one marked focus), and the post it is under. A call that reads one subreddit, user or search returns next_cursor when the listing has more; pass it back as cursor for the next posts. Every item names its page in "url" and its kind in "type" (post, user, comment_thread).`

// New builds the Reddit plugin.
func New(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, site)
	if err != nil {
		return scrapers.Plugin{}, fmt.Errorf("reddit: %w", err)
	}
	s := &scraper{f: f}
	return scrapers.Plugin{
		ID:       ID,
		Name:     "Reddit",
		Unlisted: true,
		Tools: []scrapers.Tool{
			scrapers.NewTool("scrape", "Scrape Reddit", scrapeDescription, scrapeSchema, s.scrape).
				WithItems(scrapers.AnyItem(scrapers.ItemSchema[Post](), scrapers.ItemSchema[User](), scrapers.ItemSchema[Thread]())).
				WithCursor(),
		},
	}, nil
}

package tiktok

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the scrape tool's arguments.
const (
	maxSources      = 20
	defaultMaxItems = 10
	maxMaxItems     = 100
	maxQueryLen     = 500
)

// scrapeArgs are the arguments of the scrape tool.
type scrapeArgs struct {
	URLs          []string `json:"urls,omitempty" jsonschema:"TikTok URLs (at most 20): videos (https://www.tiktok.com/@user/video/123), profiles (https://www.tiktok.com/@user), hashtags (https://www.tiktok.com/tag/name) or short links (https://vm.tiktok.com/...)"`
	Profiles      []string `json:"profiles,omitempty" jsonschema:"TikTok usernames, with or without the leading @ (at most 20)"`
	Hashtags      []string `json:"hashtags,omitempty" jsonschema:"hashtags, with or without the leading # (at most 20)"`
	SearchQueries []string `json:"search_queries,omitempty" jsonschema:"keyword searches (at most 20), of videos or of users as search_type says"`
	SearchType    string   `json:"search_type,omitempty" jsonschema:"what search_queries find: videos (default) or users"`
	Trending      bool     `json:"trending,omitempty" jsonschema:"true reads TikTok's trending (For You) feed: its recommended videos, up to max_items"`
	MaxItems      *int     `json:"max_items,omitempty" jsonschema:"videos to return per profile, hashtag or the trending feed, results per search (1-100, default 10)"`
	Cursor        string   `json:"cursor,omitempty" jsonschema:"continue a listing (a profile's or hashtag's videos, a search, the trending feed) where a previous answer stopped: its next_cursor, as it was (alone, or with that one source)"`

	// Filled by Validate.
	maxItems int
	urls     []*url.URL
	profiles []string // usernames without @
	hashtags []string // names without #
	searches []search
	trending bool
	cursor   *listCursor
}

// search is one keyword search: of videos, or of users.
type search struct {
	query string
	users bool
}

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9._]{1,50}$`)

// Validate checks the arguments and normalizes them.
func (a *scrapeArgs) Validate() error {
	for _, l := range []struct {
		name string
		v    []string
	}{{"urls", a.URLs}, {"profiles", a.Profiles}, {"hashtags", a.Hashtags}, {"search_queries", a.SearchQueries}} {
		if err := scrapers.ListLen(l.name, l.v, 0, maxSources); err != nil {
			return err
		}
	}
	if len(a.URLs)+len(a.Profiles)+len(a.Hashtags)+len(a.SearchQueries) == 0 && !a.Trending && a.Cursor == "" {
		return scrapers.Argf("urls", "give at least one of urls, profiles, hashtags, search_queries or trending")
	}
	a.trending = a.Trending
	switch a.SearchType {
	case "", "videos", "users":
	default:
		return scrapers.Argf("search_type", "must be videos or users, got %q", a.SearchType)
	}
	for i, q := range a.SearchQueries {
		q = strings.TrimSpace(q)
		if !validQuery(q) {
			return scrapers.Argf("search_queries", "entry %d is empty, longer than %d bytes or holds control characters", i, maxQueryLen)
		}
		a.searches = append(a.searches, search{query: q, users: a.SearchType == "users"})
	}
	n, err := scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems)
	if err != nil {
		return err
	}
	a.maxItems = n
	for i, raw := range a.URLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return scrapers.Argf("urls", "entry %d (%q) is not an http(s) URL", i, raw)
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		if host != "tiktok.com" && !strings.HasSuffix(host, ".tiktok.com") {
			return scrapers.Argf("urls", "entry %d (%q) is not a TikTok URL (tiktok.com, www.tiktok.com, m.tiktok.com or vm.tiktok.com)", i, raw)
		}
		if s, ok := searchURL(u); ok {
			if !validQuery(s.query) {
				return scrapers.Argf("urls", "entry %d (%q) is a TikTok search without keywords (?q=…) or with more than %d bytes of them", i, raw, maxQueryLen)
			}
			a.searches = append(a.searches, s)
			continue
		}
		if p := strings.Trim(strings.ToLower(u.Path), "/"); p == "" || p == "foryou" {
			a.trending = true
			continue
		}
		a.urls = append(a.urls, u)
	}
	for i, p := range a.Profiles {
		name := strings.TrimPrefix(strings.TrimSpace(p), "@")
		if !usernameRE.MatchString(name) {
			return scrapers.Argf("profiles", "entry %d (%q) is not a TikTok username (letters, digits, '.' and '_', at most 50)", i, p)
		}
		a.profiles = append(a.profiles, name)
	}
	for i, h := range a.Hashtags {
		name := strings.TrimPrefix(strings.TrimSpace(h), "#")
		if !validHashtag(name) {
			return scrapers.Argf("hashtags", "entry %d (%q) is not a hashtag (one word, no spaces or /?#%%&)", i, h)
		}
		a.hashtags = append(a.hashtags, name)
	}
	if a.Cursor != "" {
		return a.withCursor()
	}
	return nil
}

// validHashtag says whether name (without #) is one hashtag.
func validHashtag(name string) bool {
	return name != "" && len(name) <= 150 && strings.IndexFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("/?#%&\\", r)
	}) < 0
}

// validQuery says whether q is a keyword search TikTok is asked.
func validQuery(q string) bool {
	return q != "" && len(q) <= maxQueryLen && strings.IndexFunc(q, unicode.IsControl) < 0
}

// withCursor checks the cursor argument and the sources beside it: none,
// or the one listing the cursor continues, which the sources become.
func (a *scrapeArgs) withCursor() error {
	c, err := parseCursor(a.Cursor)
	if err != nil {
		return scrapers.Argf("cursor", "%v", err)
	}
	if c.Kind == cursorComments {
		return scrapers.Argf("cursor", "continues a video's comments; give it to the comments tool")
	}
	name := c.label()
	given := len(a.urls) + len(a.profiles) + len(a.hashtags) + len(a.searches)
	if a.trending {
		given++
	}
	if given > 0 {
		same := given == 1
		switch c.Kind {
		case cursorProfile:
			same = same && (len(a.profiles) == 1 && strings.EqualFold(a.profiles[0], c.Key) || len(a.urls) == 1 && strings.EqualFold(strings.Trim(a.urls[0].Path, "/"), "@"+c.Key))
		case cursorHashtag:
			same = same && (len(a.hashtags) == 1 && strings.EqualFold(a.hashtags[0], c.Key) || len(a.urls) == 1 && strings.EqualFold(strings.Trim(a.urls[0].Path, "/"), "tag/"+c.Key))
		case cursorSearchVideo, cursorSearchUser:
			same = same && len(a.searches) == 1 && a.searches[0].query == c.Key && a.searches[0].users == (c.Kind == cursorSearchUser)
		case cursorTrending:
			same = same && a.trending
		}
		if !same {
			return scrapers.Argf("cursor", "continues %s, so give it alone or with that one source", name)
		}
	}
	a.urls, a.profiles, a.hashtags, a.searches, a.trending = nil, nil, nil, nil, false
	a.cursor = &c
	return nil
}

// label names a cursor's listing in messages.
func (c listCursor) label() string {
	switch c.Kind {
	case cursorProfile:
		return "the videos of @" + c.Key
	case cursorHashtag:
		return "the videos of #" + c.Key
	case cursorSearchVideo:
		return fmt.Sprintf("the video search %q", c.Key)
	case cursorSearchUser:
		return fmt.Sprintf("the user search %q", c.Key)
	case cursorTrending:
		return "the trending feed"
	}
	return "the comments of video " + c.Key
}

// searchURL reads a search page URL (/search?q=, /search/video?q=,
// /search/user?q=); ok is false for any other TikTok URL.
func searchURL(u *url.URL) (search, bool) {
	switch strings.TrimSuffix(strings.ToLower(u.Path), "/") {
	case "/search", "/search/video", "/search/top":
		return search{query: strings.TrimSpace(u.Query().Get("q"))}, true
	case "/search/user":
		return search{query: strings.TrimSpace(u.Query().Get("q")), users: true}, true
	}
	return search{}, false
}

// scrapeSchema adds limits and defaults to the inferred schema.
func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "profiles", "hashtags", "search_queries")
	scrapers.Choice(s, "search_type", "videos", "users")
	scrapers.IntRange(s, "max_items", 1, maxMaxItems, defaultMaxItems)
}

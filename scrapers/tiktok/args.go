package tiktok

import (
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
	MaxItems      *int     `json:"max_items,omitempty" jsonschema:"videos to return per profile or hashtag, results per search (1-100, default 10)"`

	// Filled by Validate.
	maxItems int
	urls     []*url.URL
	profiles []string // usernames without @
	hashtags []string // names without #
	searches []search
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
	if len(a.URLs)+len(a.Profiles)+len(a.Hashtags)+len(a.SearchQueries) == 0 {
		return scrapers.Argf("urls", "give at least one of urls, profiles, hashtags or search_queries")
	}
	switch a.SearchType {
	case "", "videos", "users":
	default:
		return scrapers.Argf("search_type", "must be videos or users, got %q", a.SearchType)
	}
	for i, q := range a.SearchQueries {
		q = strings.TrimSpace(q)
		if len(q) > maxQueryLen || strings.IndexFunc(q, unicode.IsControl) >= 0 {
			return scrapers.Argf("search_queries", "entry %d is longer than %d bytes or holds control characters", i, maxQueryLen)
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
			if s.query == "" {
				return scrapers.Argf("urls", "entry %d (%q) is a TikTok search without keywords (?q=…)", i, raw)
			}
			a.searches = append(a.searches, s)
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
		if name == "" || len(name) > 150 || strings.IndexFunc(name, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("/?#%&\\", r)
		}) >= 0 {
			return scrapers.Argf("hashtags", "entry %d (%q) is not a hashtag (one word, no spaces or /?#%%&)", i, h)
		}
		a.hashtags = append(a.hashtags, name)
	}
	return nil
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

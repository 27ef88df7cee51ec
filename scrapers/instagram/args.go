package instagram

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the tools' arguments.
const (
	maxSources      = 20
	defaultMaxItems = 12
	maxMaxItems     = 50
	defaultComments = 20
	maxComments     = 100
	// maxPageSize is the most items one API page is asked for.
	maxPageSize = 50
)

var (
	usernameRE  = regexp.MustCompile(`^[A-Za-z0-9._]{1,30}$`)
	shortcodeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{5,40}$`)
	hostRE      = regexp.MustCompile(`^(?:(?:www|m)\.)?instagram\.com$`)
	// reserved are first path segments that are Instagram's own pages, not
	// accounts.
	reserved = []string{"explore", "accounts", "direct", "stories", "about", "developer", "legal", "api", "graphql", "web", "challenge", "reels", "tv", "p", "reel"}
)

// target is one thing a tool reads: a profile or a post.
type target struct {
	username  string // a profile
	shortcode string // a post or reel
	reel      bool
}

// sources are the urls and usernames both tools take.
type sources struct {
	URLs      []string `json:"urls,omitempty" jsonschema:"Instagram URLs (at most 20): profiles (https://www.instagram.com/natgeo/), posts (https://www.instagram.com/p/<shortcode>/) or reels (https://www.instagram.com/reel/<shortcode>/)"`
	Usernames []string `json:"usernames,omitempty" jsonschema:"Instagram usernames, with or without the leading @ (at most 20)"`

	targets []target
}

func (s *sources) validate() error {
	if err := scrapers.ListLen("urls", s.URLs, 0, maxSources); err != nil {
		return err
	}
	if err := scrapers.ListLen("usernames", s.Usernames, 0, maxSources); err != nil {
		return err
	}
	if len(s.URLs)+len(s.Usernames) == 0 {
		return scrapers.Argf("urls", "give at least one of urls or usernames")
	}
	for i, raw := range s.URLs {
		t, err := parseURL(raw)
		if err != nil {
			return scrapers.Argf("urls", "entry %d (%q) %v", i, raw, err)
		}
		s.targets = append(s.targets, t)
	}
	for i, raw := range s.Usernames {
		name := strings.TrimPrefix(strings.TrimSpace(raw), "@")
		if !usernameRE.MatchString(name) || slices.Contains(reserved, strings.ToLower(name)) {
			return scrapers.Argf("usernames", "entry %d (%q) is not an Instagram username (up to 30 letters, digits, '.' and '_')", i, raw)
		}
		s.targets = append(s.targets, target{username: name})
	}
	return nil
}

// parseURL reads a profile, post or reel URL; the error completes
// "entry N (…) ".
func parseURL(raw string) (target, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return target{}, fmt.Errorf("is not an http(s) URL")
	}
	if !hostRE.MatchString(strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))) {
		return target{}, fmt.Errorf("is not an Instagram URL (instagram.com, www.instagram.com)")
	}
	var segs []string
	for _, s := range strings.Split(u.Path, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	bad := fmt.Errorf("is not a profile, post or reel URL (https://www.instagram.com/<username>/, /p/<shortcode>/, /reel/<shortcode>/)")
	post := func(kind, code string) (target, error) {
		if !shortcodeRE.MatchString(code) {
			return target{}, bad
		}
		return target{shortcode: code, reel: kind == "reel" || kind == "reels"}, nil
	}
	switch {
	case len(segs) >= 2 && slices.Contains([]string{"p", "reel", "reels", "tv"}, strings.ToLower(segs[0])):
		return post(strings.ToLower(segs[0]), segs[1])
	case len(segs) >= 3 && slices.Contains([]string{"p", "reel"}, strings.ToLower(segs[1])) && usernameRE.MatchString(segs[0]):
		return post(strings.ToLower(segs[1]), segs[2]) // /<user>/p/<code>/
	case len(segs) >= 1 && usernameRE.MatchString(segs[0]) && !slices.Contains(reserved, strings.ToLower(segs[0])):
		if len(segs) > 1 && !slices.Contains([]string{"reels", "tagged"}, strings.ToLower(segs[1])) {
			return target{}, bad
		}
		return target{username: segs[0]}, nil
	}
	return target{}, bad
}

// scrapeArgs are the arguments of the scrape tool.
type scrapeArgs struct {
	sources
	MaxItems *int   `json:"max_items,omitempty" jsonschema:"posts to return per profile (1-50, default 12)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"continue a profile's posts where a previous answer stopped: its next_cursor, as it was (alone, or with that one profile)"`

	maxItems int
	cursor   *listCursor
}

// Validate checks the arguments.
func (a *scrapeArgs) Validate() error {
	n, err := scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems)
	if err != nil {
		return err
	}
	a.maxItems = n
	if a.Cursor == "" {
		return a.sources.validate()
	}
	c, err := a.sources.withCursor(a.Cursor, cursorPosts)
	a.cursor = &c
	return err
}

// detailsArgs are the arguments of the details tool.
type detailsArgs struct {
	sources
	Comments *int   `json:"comments,omitempty" jsonschema:"comments to return per post or reel (0-100, default 20; 0 reads none)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"continue a post's comments where a previous answer stopped: its next_cursor, as it was (alone, or with that one post URL)"`

	comments int
	cursor   *listCursor
}

// Validate checks the arguments.
func (a *detailsArgs) Validate() error {
	n, err := scrapers.IntArg("comments", a.Comments, 0, maxComments, defaultComments)
	if err != nil {
		return err
	}
	a.comments = n
	if a.Cursor == "" {
		return a.sources.validate()
	}
	if n == 0 {
		return scrapers.Argf("comments", "is 0 beside a cursor, which continues a post's comments; leave comments out or give 1-%d", maxComments)
	}
	c, err := a.sources.withCursor(a.Cursor, cursorComments)
	a.cursor = &c
	return err
}

// withCursor checks a cursor argument of the kind the tool continues and
// the sources beside it: none, or the one the cursor continues. The
// sources become that one target.
func (s *sources) withCursor(raw, kind string) (listCursor, error) {
	c, err := parseCursor(raw)
	if err != nil {
		return c, scrapers.Argf("cursor", "%v", err)
	}
	if c.Kind != kind {
		other := map[string]string{cursorPosts: "scrape (a profile's posts)", cursorComments: "details (a post's comments)"}[c.Kind]
		return c, scrapers.Argf("cursor", "continues %s, not what this tool lists; give it to %s", c.Kind, other)
	}
	want := target{username: c.Key}
	if kind == cursorComments {
		want = target{shortcode: c.Key}
	}
	if len(s.URLs)+len(s.Usernames) > 0 {
		if err := s.validate(); err != nil {
			return c, err
		}
		if len(s.targets) != 1 || !strings.EqualFold(s.targets[0].username, want.username) || s.targets[0].shortcode != want.shortcode {
			return c, scrapers.Argf("cursor", "continues %s, so give it alone or with that one source (%s)", want.label(), want.name())
		}
		want.reel = s.targets[0].reel
	}
	s.targets = []target{want}
	return c, nil
}

// label names a target in messages: @user, or the post's shortcode.
func (t target) label() string {
	if t.username != "" {
		return "the posts of @" + t.username
	}
	return "the comments of post " + t.shortcode
}

func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "usernames")
	scrapers.IntRange(s, "max_items", 1, maxMaxItems, defaultMaxItems)
}

func detailsSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "usernames")
	scrapers.IntRange(s, "comments", 0, maxComments, defaultComments)
}

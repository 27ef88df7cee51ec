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
	MaxItems *int `json:"max_items,omitempty" jsonschema:"recent posts to return per profile (1-50, default 12; Instagram shows anonymous readers about 12)"`

	maxItems int
}

// Validate checks the arguments.
func (a *scrapeArgs) Validate() error {
	if err := a.sources.validate(); err != nil {
		return err
	}
	n, err := scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems)
	a.maxItems = n
	return err
}

// detailsArgs are the arguments of the details tool.
type detailsArgs struct {
	sources
}

// Validate checks the arguments.
func (a *detailsArgs) Validate() error { return a.sources.validate() }

func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "usernames")
	scrapers.IntRange(s, "max_items", 1, maxMaxItems, defaultMaxItems)
}

func detailsSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "usernames")
}

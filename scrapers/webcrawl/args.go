package webcrawl

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the crawl tool's arguments (CONTRACTS.md, "SurfSense's plugins").
const (
	MaxStartURLs     = 20
	MaxDepth         = 5
	DefaultMaxPages  = 10
	MaxPages         = 200
	DefaultMaxLength = 50_000
	MaxMaxLength     = 1_000_000
	MaxPatterns      = 25
	maxPatternLength = 1000
)

// crawlArgs are the crawl tool's arguments.
type crawlArgs struct {
	StartURLs          []string `json:"start_urls" jsonschema:"pages to start from (1 to 20 http or https URLs)"`
	MaxCrawlDepth      *int     `json:"max_crawl_depth,omitempty" jsonschema:"how many links deep to follow from the start pages (0 to 5; default 0: only the start pages)"`
	MaxCrawlPages      *int     `json:"max_crawl_pages,omitempty" jsonschema:"the most pages to fetch in all (1 to 200; default 10)"`
	MaxLength          *int     `json:"max_length,omitempty" jsonschema:"the most characters of Markdown kept per page (100 to 1000000; default 50000)"`
	IncludeURLPatterns []string `json:"include_url_patterns,omitempty" jsonschema:"regular expressions: only links matching one are followed (at most 25)"`
	ExcludeURLPatterns []string `json:"exclude_url_patterns,omitempty" jsonschema:"regular expressions: links matching one are never followed (at most 25)"`
	Render             string   `json:"render,omitempty" jsonschema:"never: fetch only; always: render every page in a headless browser; auto: render a fetched page whose text is thin and whose scripts are heavy (default auto when the host has a browser, else never)"`
	Screenshot         bool     `json:"screenshot,omitempty" jsonschema:"also return each web page as a PNG screenshot (an image content after the text; 1280 px wide, at most 8000 px high and 5 MB): the page is rendered in the browser (unless render is never); each item's screenshot field says what was taken, or why not (default false)"`

	depth, pages, maxLen int
	render               string // the resolved render mode
	starts               []*url.URL
	include, exclude     []*regexp.Regexp
	shots                *shotBudget // with Screenshot: the call's screenshot bytes
}

func schema(s *jsonschema.Schema) {
	s.Required = []string{"start_urls"}
	setRange(s, "start_urls", 1, MaxStartURLs, true)
	setRange(s, "max_crawl_depth", 0, MaxDepth, false)
	setRange(s, "max_crawl_pages", 1, MaxPages, false)
	setRange(s, "max_length", 100, MaxMaxLength, false)
	setRange(s, "include_url_patterns", 0, MaxPatterns, true)
	setRange(s, "exclude_url_patterns", 0, MaxPatterns, true)
	// Published, so that a call spelling a default out and one leaving it
	// out are one question to the result cache (scrapers.CanonicalArgs).
	// render's default depends on the host (a browser or not): unpublished.
	scrapers.SetDefault(s, "max_crawl_depth", 0)
	scrapers.SetDefault(s, "max_crawl_pages", DefaultMaxPages)
	scrapers.SetDefault(s, "max_length", DefaultMaxLength)
	scrapers.SetDefault(s, "screenshot", false)
	if p := s.Properties["render"]; p != nil {
		p.Enum = []any{RenderNever, RenderAlways, RenderAuto}
	}
}

func setRange(s *jsonschema.Schema, prop string, lo, hi int, list bool) {
	p := s.Properties[prop]
	if p == nil {
		return
	}
	if list {
		p.MinItems, p.MaxItems = &lo, &hi
		return
	}
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
}

// check validates the arguments and compiles what the crawl needs.
func (a *crawlArgs) check(allowPrivate bool) error {
	var err error
	if err = scrapers.ListLen("start_urls", a.StartURLs, 1, MaxStartURLs); err != nil {
		return err
	}
	if a.depth, err = scrapers.IntArg("max_crawl_depth", a.MaxCrawlDepth, 0, MaxDepth, 0); err != nil {
		return err
	}
	if a.pages, err = scrapers.IntArg("max_crawl_pages", a.MaxCrawlPages, 1, MaxPages, DefaultMaxPages); err != nil {
		return err
	}
	if a.maxLen, err = scrapers.IntArg("max_length", a.MaxLength, 100, MaxMaxLength, DefaultMaxLength); err != nil {
		return err
	}
	for i, raw := range a.StartURLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return scrapers.Argf("start_urls", "entry %d (%q) is not a URL: %v", i, raw, err)
		}
		if err := netguard.CheckURL(u, allowPrivate); err != nil {
			return scrapers.Argf("start_urls", "entry %d (%q) is refused: %v", i, raw, err)
		}
		u.Fragment = ""
		a.starts = append(a.starts, u)
	}
	if a.include, err = compile("include_url_patterns", a.IncludeURLPatterns); err != nil {
		return err
	}
	if a.exclude, err = compile("exclude_url_patterns", a.ExcludeURLPatterns); err != nil {
		return err
	}
	a.shots = &shotBudget{}
	return nil
}

func compile(arg string, patterns []string) ([]*regexp.Regexp, error) {
	if len(patterns) > MaxPatterns {
		return nil, scrapers.Argf(arg, "must hold at most %d patterns, got %d", MaxPatterns, len(patterns))
	}
	out := make([]*regexp.Regexp, 0, len(patterns))
	for i, p := range patterns {
		if p == "" || len(p) > maxPatternLength {
			return nil, scrapers.Argf(arg, "pattern %d must be 1 to %d characters", i, maxPatternLength)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, scrapers.Argf(arg, "pattern %d (%q) is not a valid regular expression: %v", i, p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		out = append(out, re)
	}
	return out, nil
}

package googlesearch

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// searchArgs are the search tool's arguments (SurfSense's google-search API).
type searchArgs struct {
	Queries          []string `json:"queries" jsonschema:"What to search for, 1 to 20 queries, each searched as typed (Google operators such as quotes and -word work)"`
	MaxPagesPerQuery *int     `json:"max_pages_per_query,omitempty" jsonschema:"Result pages to read per query, 1 to 10 (default 1)"`
	ResultsPerPage   *int     `json:"results_per_page,omitempty" jsonschema:"Results per page, 1 to 100 (default 10); SearXNG ignores it"`
	CountryCode      string   `json:"country_code,omitempty" jsonschema:"Two-letter country to search from (Google's gl), e.g. us, de, in"`
	LanguageCode     string   `json:"language_code,omitempty" jsonschema:"Language of the interface and results (Google's hl), e.g. en, de, pt-BR"`
	Site             string   `json:"site,omitempty" jsonschema:"Only results from this site, e.g. example.com or example.com/blog"`
	Start            *int     `json:"start,omitempty" jsonschema:"Offset of the first result, 0 to 990 (default 0): 10 starts at the 11th result"`
	Cursor           string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer for one query, to read the pages after it (give the same query and other arguments, and no start)"`

	maxPages, perPage, start int
	// pagesBefore is how many pages of the query earlier calls read (from
	// the cursor), so that page numbers go on.
	pagesBefore int
}

// maxStart is the largest result offset Google pages to.
const maxStart = 990

const (
	maxQueries     = 20
	maxQueryLength = 2048
)

var (
	countryRe  = regexp.MustCompile(`^[A-Za-z]{2}$`)
	languageRe = regexp.MustCompile(`^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$`)
	siteRe     = regexp.MustCompile(`^(?i)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*(?:/[^\s]*)?$`)
)

func (a *searchArgs) Defaults() {
	a.CountryCode = strings.TrimSpace(a.CountryCode)
	a.LanguageCode = strings.TrimSpace(a.LanguageCode)
	a.Site = strings.TrimSpace(a.Site)
	if u, err := url.Parse(a.Site); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		a.Site = strings.TrimSuffix(u.Host+u.EscapedPath(), "/")
	}
}

func (a *searchArgs) Validate() error {
	if err := scrapers.ListLen("queries", a.Queries, 1, maxQueries); err != nil {
		return err
	}
	for i, q := range a.Queries {
		if len(q) > maxQueryLength {
			return scrapers.Argf("queries", "entry %d is longer than %d characters", i, maxQueryLength)
		}
		a.Queries[i] = strings.TrimSpace(q)
	}
	var err error
	if a.maxPages, err = scrapers.IntArg("max_pages_per_query", a.MaxPagesPerQuery, 1, 10, 1); err != nil {
		return err
	}
	if a.perPage, err = scrapers.IntArg("results_per_page", a.ResultsPerPage, 1, 100, 10); err != nil {
		return err
	}
	if a.start, err = scrapers.IntArg("start", a.Start, 0, maxStart, 0); err != nil {
		return err
	}
	if a.CountryCode != "" && !countryRe.MatchString(a.CountryCode) {
		return scrapers.Argf("country_code", "must be a two-letter country code such as us or de, got %q", a.CountryCode)
	}
	if a.LanguageCode != "" && !languageRe.MatchString(a.LanguageCode) {
		return scrapers.Argf("language_code", "must be a language code such as en, de or pt-BR, got %q", a.LanguageCode)
	}
	if a.Site != "" && (len(a.Site) > 253 || !siteRe.MatchString(a.Site)) {
		return scrapers.Argf("site", "must be a host name such as example.com, optionally with a path, got %q", a.Site)
	}
	if a.Cursor != "" {
		if len(a.Queries) != 1 {
			return scrapers.Argf(scrapers.CursorArg, "continues one query: give it with exactly the one query of the call that returned it")
		}
		if a.Start != nil {
			return scrapers.Argf(scrapers.CursorArg, "and start both say where to begin: give one of them")
		}
		c, err := scrapers.ParseCursor(a.Cursor, a.listingKey(a.Queries[0]))
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(c.Token)
		if err != nil || n < 0 || n > maxStart || c.Done > 1000 {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.start, a.pagesBefore = n, c.Done
	}
	return nil
}

// listingKey names one query's results as this call asks for them, for
// its cursors.
func (a *searchArgs) listingKey(q string) string {
	return strings.Join([]string{q, strings.ToLower(a.CountryCode), strings.ToLower(a.LanguageCode), a.Site, strconv.Itoa(a.perPage)}, "\x00")
}

// query is the text sent to the providers: the site restriction included.
func (a *searchArgs) query(q string) string {
	if a.Site == "" {
		return q
	}
	return "site:" + a.Site + " " + q
}

func schema(s *jsonschema.Schema) {
	p := s.Properties
	p["queries"].MinItems, p["queries"].MaxItems = ptr(1), ptr(maxQueries)
	p["queries"].Items.MinLength, p["queries"].Items.MaxLength = ptr(1), ptr(maxQueryLength)
	scrapers.IntRange(s, "max_pages_per_query", 1, 10, 1)
	scrapers.IntRange(s, "results_per_page", 1, 100, 10)
	scrapers.IntRange(s, "start", 0, 990, 0)
	p["country_code"].Pattern = countryRe.String()
	p["language_code"].Pattern = languageRe.String()
}

func ptr[T any](v T) *T { return &v }

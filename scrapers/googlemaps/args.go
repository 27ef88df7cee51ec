package googlemaps

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the tools' arguments.
const (
	maxSources        = 20
	defaultMaxPlaces  = 10
	maxMaxPlaces      = 100
	defaultMaxReviews = 20
	maxMaxReviews     = 500
	maxQueryLen       = 300
)

var (
	languageRE = regexp.MustCompile(`^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})?$`)
	countryRE  = regexp.MustCompile(`^[a-zA-Z]{2}$`)
	placeIDRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{10,400}$`)
	// googleHost is www.google.com, maps.google.co.uk, google.de, …
	googleHost = regexp.MustCompile(`^(?:[a-z0-9-]+\.)*google\.(?:com|[a-z]{2}|com?\.[a-z]{2})$`)
)

// scrapeArgs are the arguments of the scrape tool.
type scrapeArgs struct {
	SearchQueries []string `json:"search_queries,omitempty" jsonschema:"what to search for, place included (coffee in Athens); at most 20"`
	URLs          []string `json:"urls,omitempty" jsonschema:"Google Maps URLs of places (https://www.google.com/maps/place/...; maps.app.goo.gl links) or of searches (https://www.google.com/maps/search/...); at most 20"`
	PlaceIDs      []string `json:"place_ids,omitempty" jsonschema:"Google place ids (ChIJ...); at most 20"`
	MaxPlaces     *int     `json:"max_places,omitempty" jsonschema:"places to return per search (1-100, default 10)"`
	Language      string   `json:"language,omitempty" jsonschema:"language of the results, e.g. en, de, pt-BR (default en)"`
	CountryCode   string   `json:"country_code,omitempty" jsonschema:"two-letter country to search from, e.g. us, gr"`
	Cursor        string   `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous answer for one search, to read the places after it (give the same search, language and country_code)"`

	maxPlaces int
	urls      []*url.URL
	cursor    scrapers.Cursor
}

// Defaults fills the language.
func (a *scrapeArgs) Defaults() {
	if strings.TrimSpace(a.Language) == "" {
		a.Language = "en"
	}
}

// Validate checks the arguments.
func (a *scrapeArgs) Validate() error {
	for _, l := range []struct {
		name string
		v    []string
	}{{"search_queries", a.SearchQueries}, {"urls", a.URLs}, {"place_ids", a.PlaceIDs}} {
		if err := scrapers.ListLen(l.name, l.v, 0, maxSources); err != nil {
			return err
		}
	}
	if len(a.SearchQueries)+len(a.URLs)+len(a.PlaceIDs) == 0 {
		return scrapers.Argf("search_queries", "give at least one of search_queries, urls or place_ids")
	}
	for i, q := range a.SearchQueries {
		if utf8.RuneCountInString(q) > maxQueryLen {
			return scrapers.Argf("search_queries", "entry %d is longer than %d characters", i, maxQueryLen)
		}
	}
	n, err := scrapers.IntArg("max_places", a.MaxPlaces, 1, maxMaxPlaces, defaultMaxPlaces)
	if err != nil {
		return err
	}
	a.maxPlaces = n
	if a.urls, err = mapsURLs(a.URLs); err != nil {
		return err
	}
	if err := checkPlaceIDs(a.PlaceIDs); err != nil {
		return err
	}
	if err := checkLocale(&a.Language, &a.CountryCode); err != nil {
		return err
	}
	a.cursor = scrapers.Cursor{}
	if a.Cursor != "" {
		q, vp, ok := a.oneSearch()
		if !ok {
			return scrapers.Argf(scrapers.CursorArg, "continues one search: give it with exactly the one search query or search URL of the call that returned it")
		}
		c, err := scrapers.ParseCursor(a.Cursor, searchKey(q, vp, a.Language, a.CountryCode))
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(c.Token); err != nil || n < 0 || n > maxMaxPlaces*10 || n%searchPageSize != 0 {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.cursor = c
	}
	return nil
}

// oneSearch reports whether the call is one search and nothing else, and
// which.
func (a *scrapeArgs) oneSearch() (string, viewport, bool) {
	if len(a.PlaceIDs) != 0 || len(a.SearchQueries)+len(a.urls) != 1 {
		return "", viewport{}, false
	}
	if len(a.SearchQueries) == 1 {
		return strings.TrimSpace(a.SearchQueries[0]), viewport{}, true
	}
	if u := a.urls[0]; isSearchURL(u) {
		vp, _ := viewportFromPath(u.Path)
		return searchQueryOf(u), vp, true
	}
	return "", viewport{}, false
}

// searchKey names a search for its cursors.
func searchKey(q string, vp viewport, hl, gl string) string {
	return fmt.Sprintf("search %s\x00%v\x00%s\x00%s", q, vp, strings.ToLower(hl), strings.ToLower(gl))
}

// reviewsArgs are the arguments of the reviews tool.
type reviewsArgs struct {
	URLs       []string `json:"urls,omitempty" jsonschema:"Google Maps place URLs; at most 20"`
	PlaceIDs   []string `json:"place_ids,omitempty" jsonschema:"Google place ids (ChIJ...); at most 20"`
	MaxReviews *int     `json:"max_reviews,omitempty" jsonschema:"reviews to return per place (1-500, default 20)"`
	SortBy     string   `json:"sort_by,omitempty" jsonschema:"order of the reviews: most_relevant (default), newest, highest or lowest"`
	Language   string   `json:"language,omitempty" jsonschema:"language of Google's translations and dates (default en)"`
	Cursor     string   `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous answer for one place, to read the reviews after it (give the same place, sort_by and language)"`

	maxReviews int
	urls       []*url.URL
	cursor     scrapers.Cursor
}

// Defaults fills the order and the language.
func (a *reviewsArgs) Defaults() {
	if strings.TrimSpace(a.SortBy) == "" {
		a.SortBy = "most_relevant"
	}
	if strings.TrimSpace(a.Language) == "" {
		a.Language = "en"
	}
}

// Validate checks the arguments.
func (a *reviewsArgs) Validate() error {
	if err := scrapers.ListLen("urls", a.URLs, 0, maxSources); err != nil {
		return err
	}
	if err := scrapers.ListLen("place_ids", a.PlaceIDs, 0, maxSources); err != nil {
		return err
	}
	if len(a.URLs)+len(a.PlaceIDs) == 0 {
		return scrapers.Argf("urls", "give at least one of urls or place_ids")
	}
	n, err := scrapers.IntArg("max_reviews", a.MaxReviews, 1, maxMaxReviews, defaultMaxReviews)
	if err != nil {
		return err
	}
	a.maxReviews = n
	if _, ok := sortCodes[a.SortBy]; !ok {
		return scrapers.Argf("sort_by", "must be most_relevant, newest, highest or lowest, not %q", a.SortBy)
	}
	if a.urls, err = mapsURLs(a.URLs); err != nil {
		return err
	}
	for i, u := range a.urls {
		if isSearchURL(u) {
			return scrapers.Argf("urls", "entry %d is a search URL; give place URLs (https://www.google.com/maps/place/...)", i)
		}
	}
	if err := checkPlaceIDs(a.PlaceIDs); err != nil {
		return err
	}
	var cc string
	if err := checkLocale(&a.Language, &cc); err != nil {
		return err
	}
	a.cursor = scrapers.Cursor{}
	if a.Cursor != "" {
		if len(a.urls)+len(a.PlaceIDs) != 1 {
			return scrapers.Argf(scrapers.CursorArg, "continues the reviews of one place: give it with exactly the one place of the call that returned it")
		}
		src := ""
		if len(a.urls) == 1 {
			src = a.urls[0].String()
		} else {
			src = placeIDURL(strings.TrimSpace(a.PlaceIDs[0]))
		}
		c, err := scrapers.ParseCursor(a.Cursor, reviewsKey(src, a.SortBy, a.Language))
		if err != nil {
			return err
		}
		if _, _, ok := splitReviewsToken(c.Token); !ok {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.cursor = c
	}
	return nil
}

// reviewsKey names a place's reviews in one order and language, for their
// cursors.
func reviewsKey(src, sortBy, hl string) string {
	return "reviews " + src + "\x00" + sortBy + "\x00" + strings.ToLower(hl)
}

// A reviews cursor's token is the listing session and Google's page token
// ("" for the first page), as the next request sends them: "<session> <token>".
var (
	sessionRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	pageTokenRE = regexp.MustCompile(`^[A-Za-z0-9_=.%-]+$`)
)

// validPageToken reports whether a page token Google gave can be sent back
// and carried in a cursor.
func validPageToken(s string) bool { return len(s) <= 1024 && pageTokenRE.MatchString(s) }

func reviewsToken(session, token string) string { return session + " " + token }

// splitReviewsToken reads a reviews cursor's token; ok is false when it is
// not one this tool made (so nothing odd lands in the pb parameter).
func splitReviewsToken(s string) (session, token string, ok bool) {
	session, token, found := strings.Cut(s, " ")
	return session, token, found && sessionRE.MatchString(session) && (token == "" || validPageToken(token))
}

func mapsURLs(list []string) ([]*url.URL, error) {
	var out []*url.URL
	for i, raw := range list {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, scrapers.Argf("urls", "entry %d (%q) is not an http(s) URL", i, raw)
		}
		if !isMapsURL(u) {
			return nil, scrapers.Argf("urls", "entry %d (%q) is not a Google Maps URL (https://www.google.com/maps/..., maps.google.com, maps.app.goo.gl)", i, raw)
		}
		out = append(out, u)
	}
	return out, nil
}

// isMapsURL reports whether u is on Google Maps: google.<tld>/maps…,
// maps.google.<tld>, or a goo.gl maps short link.
func isMapsURL(u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	switch {
	case host == "maps.app.goo.gl":
		return true
	case host == "goo.gl" || host == "www.goo.gl":
		return strings.HasPrefix(u.Path, "/maps")
	case !googleHost.MatchString(host):
		return false
	case strings.HasPrefix(host, "maps."):
		return true
	}
	return u.Path == "/maps" || strings.HasPrefix(u.Path, "/maps/")
}

// isSearchURL reports whether u is a Maps search (/maps/search/<query>).
func isSearchURL(u *url.URL) bool {
	p := u.Path
	if i := strings.Index(p, "/maps/search/"); i >= 0 {
		rest := strings.Trim(p[i+len("/maps/search/"):], "/")
		q, _, _ := strings.Cut(rest, "/")
		return q != "" && u.Query().Get("query_place_id") == "" && u.Query().Get("api") == ""
	}
	return false
}

// searchQueryOf returns the query of a /maps/search/<query>/… URL.
func searchQueryOf(u *url.URL) string {
	p := u.Path
	i := strings.Index(p, "/maps/search/")
	if i < 0 {
		return ""
	}
	q, _, _ := strings.Cut(strings.Trim(p[i+len("/maps/search/"):], "/"), "/")
	return strings.ReplaceAll(q, "+", " ")
}

func checkPlaceIDs(ids []string) error {
	for i, id := range ids {
		if !placeIDRE.MatchString(strings.TrimSpace(id)) && !dataIDRE.MatchString(strings.TrimSpace(id)) {
			return scrapers.Argf("place_ids", "entry %d (%q) is not a Google place id (ChIJ…) or feature id (0x…:0x…)", i, id)
		}
	}
	return nil
}

func checkLocale(lang, country *string) error {
	*lang = strings.TrimSpace(*lang)
	if !languageRE.MatchString(*lang) {
		return scrapers.Argf("language", "must be a language code such as en, de or pt-BR, not %q", *lang)
	}
	*country = strings.ToLower(strings.TrimSpace(*country))
	if *country != "" && !countryRE.MatchString(*country) {
		return scrapers.Argf("country_code", "must be a two-letter country code such as us or gr, not %q", *country)
	}
	return nil
}

func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "search_queries", "urls", "place_ids")
	scrapers.IntRange(s, "max_places", 1, maxMaxPlaces, defaultMaxPlaces)
	scrapers.SetDefault(s, "language", "en")
}

func reviewsSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "urls", "place_ids")
	scrapers.IntRange(s, "max_reviews", 1, maxMaxReviews, defaultMaxReviews)
	scrapers.Choice(s, "sort_by", "most_relevant", "newest", "highest", "lowest")
	scrapers.SetDefault(s, "language", "en")
}

package googlesearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// searxngProvider asks a SearXNG instance (SEARXNG_URL, JSON API enabled).
type searxngProvider struct {
	base  *url.URL
	fetch *scrapers.Fetcher
}

func (s *searxngProvider) name() string { return "searxng" }

// newSearxng makes the provider for SEARXNG_URL. SearXNG is the operator's
// own service (often a sidecar on a private network), so its fetcher may
// reach private addresses and never goes through the scraping proxies.
func newSearxng(env scrapers.Env, raw string) (*searxngProvider, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("SEARXNG_URL is not a URL; write an http(s) origin such as http://searxng:8080")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("SEARXNG_URL must be an http(s) origin without credentials, such as http://searxng:8080, got %q", u.Redacted())
	}
	own := env
	own.AllowPrivateNetworks = true
	own.Getenv = func(string) string { return "" } // no base URL or proxies of its own
	f, err := scrapers.NewFetcher(own, scrapers.Site{ID: "searxng", Name: "SearXNG", Origin: u.Scheme + "://" + u.Host, MaxConcurrent: 4})
	if err != nil {
		return nil, err
	}
	u.RawQuery, u.Fragment = "", ""
	return &searxngProvider{base: u, fetch: f}, nil
}

// searchURL is the JSON API URL of one page: SearXNG pages by number, so
// start counts in pages of 10.
func (s *searxngProvider) searchURL(a *searchArgs, q string, page, _ int) string {
	v := url.Values{}
	v.Set("q", a.query(q))
	v.Set("format", "json")
	v.Set("pageno", strconv.Itoa(a.start/10+page))
	if lang := searxngLanguage(a); lang != "" {
		v.Set("language", lang)
	}
	u := *s.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	u.RawQuery = v.Encode()
	return u.String()
}

func searxngLanguage(a *searchArgs) string {
	lang := strings.ReplaceAll(a.LanguageCode, "_", "-")
	switch {
	case lang != "" && a.CountryCode != "" && !strings.Contains(lang, "-"):
		return strings.ToLower(lang) + "-" + strings.ToUpper(a.CountryCode)
	case lang != "":
		return lang
	}
	return ""
}

// searxngAnswer is the part of SearXNG's /search?format=json answer used.
type searxngAnswer struct {
	Query           string          `json:"query"`
	NumberOfResults float64         `json:"number_of_results"`
	Results         []searxngResult `json:"results"`
	Suggestions     []string        `json:"suggestions"`
	Unresponsive    [][]any         `json:"unresponsive_engines"`
}

type searxngResult struct {
	URL           string  `json:"url"`
	Title         string  `json:"title"`
	Content       string  `json:"content"`
	PublishedDate *string `json:"publishedDate"`
	PubDate       string  `json:"pubdate"`
}

func (s *searxngProvider) search(ctx context.Context, a *searchArgs, q string, page, _ int) (*pageResult, error) {
	u := s.searchURL(a, q, page, 0)
	resp, err := s.fetch.Do(ctx, &scrapers.Request{URL: u, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		var se *scrapers.SiteError
		if errors.As(err, &se) && se.Status == http.StatusForbidden {
			return nil, fmt.Errorf("SearXNG refused the JSON API (HTTP 403); enable it with search.formats: [html, json] in its settings.yml")
		}
		return nil, err
	}
	var ans searxngAnswer
	if err := json.Unmarshal(resp.Body, &ans); err != nil {
		return nil, &scrapers.SiteError{Site: "SearXNG", URL: u, Err: fmt.Errorf("the answer is not SearXNG's JSON: %w", err)}
	}
	serp := &SERP{Organic: []Organic{}, Related: []RelatedQuery{}, PeopleAlsoAsk: []Question{}, IsResultsPage: true}
	seen := map[string]bool{}
	for _, r := range ans.Results {
		if r.URL == "" || seen[r.URL] {
			continue
		}
		seen[r.URL] = true
		o := Organic{Position: len(serp.Organic) + 1, Title: clean(r.Title), URL: r.URL, Description: clean(r.Content)}
		if r.PublishedDate != nil {
			o.Date = *r.PublishedDate
		} else if r.PubDate != "" {
			o.Date = r.PubDate
		}
		serp.Organic = append(serp.Organic, o)
	}
	for _, sg := range ans.Suggestions {
		if sg = clean(sg); sg != "" {
			serp.Related = append(serp.Related, RelatedQuery{Query: sg})
		}
	}
	if ans.NumberOfResults > 0 {
		n := int64(ans.NumberOfResults)
		serp.TotalResults = &n
	}
	if len(serp.Organic) == 0 && len(ans.Unresponsive) > 0 {
		return nil, &scrapers.SiteError{Site: "SearXNG", URL: u, Err: fmt.Errorf("its engines did not answer: %s", unresponsive(ans.Unresponsive))}
	}
	return &pageResult{url: u, serp: serp}, nil
}

// unresponsive lists SearXNG's failed engines: "brave (Suspended: too many requests), …".
func unresponsive(list [][]any) string {
	var parts []string
	for _, e := range list {
		if len(e) == 0 {
			continue
		}
		s := fmt.Sprint(e[0])
		if len(e) > 1 {
			s += " (" + fmt.Sprint(e[1]) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

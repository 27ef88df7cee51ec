package indeed

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the scrape tool's arguments.
const (
	maxSources      = 20
	defaultMaxItems = 10
	maxMaxItems     = 100
	maxTextLen      = 200
)

// countryHosts maps a country code to its Indeed site.
var countryHosts = map[string]string{
	"us": "www.indeed.com", "uk": "uk.indeed.com", "gb": "uk.indeed.com", "au": "au.indeed.com",
	"ca": "ca.indeed.com", "de": "de.indeed.com", "fr": "fr.indeed.com", "in": "in.indeed.com",
	"ie": "ie.indeed.com", "nz": "nz.indeed.com", "sg": "sg.indeed.com", "za": "za.indeed.com",
	"es": "es.indeed.com", "it": "it.indeed.com", "nl": "nl.indeed.com", "be": "be.indeed.com",
	"ch": "ch.indeed.com", "at": "at.indeed.com", "br": "br.indeed.com", "mx": "mx.indeed.com",
	"jp": "jp.indeed.com", "ae": "ae.indeed.com", "ph": "ph.indeed.com", "my": "malaysia.indeed.com",
	"hk": "hk.indeed.com", "pk": "pk.indeed.com", "pl": "pl.indeed.com", "se": "se.indeed.com",
	"no": "no.indeed.com", "dk": "dk.indeed.com", "fi": "fi.indeed.com", "pt": "pt.indeed.com",
	"ar": "ar.indeed.com", "cl": "cl.indeed.com", "co": "co.indeed.com", "pe": "pe.indeed.com",
	"kr": "kr.indeed.com", "tw": "tw.indeed.com", "sa": "sa.indeed.com", "qa": "qa.indeed.com",
}

func countryList() string {
	keys := make([]string, 0, len(countryHosts))
	for k := range countryHosts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// scrapeArgs are the arguments of the scrape tool.
type scrapeArgs struct {
	Queries             []string `json:"queries,omitempty" jsonschema:"job searches, e.g. devops engineer (at most 20)"`
	Position            string   `json:"position,omitempty" jsonschema:"a job title to search for, searched beside queries"`
	Location            string   `json:"location,omitempty" jsonschema:"where: a city, region or postcode, or remote"`
	Country             string   `json:"country,omitempty" jsonschema:"two-letter country whose Indeed site to search (default us; uk, au, ca, de, fr, in, …)"`
	URLs                []string `json:"urls,omitempty" jsonschema:"Indeed job URLs (/viewjob?jk=…) or search URLs (/jobs?q=…), at most 20"`
	MaxItems            *int     `json:"max_items,omitempty" jsonschema:"jobs to return per search (1-100, default 10)"`
	IncludeDetails      bool     `json:"include_details,omitempty" jsonschema:"open each job found by a search for its full description, job types and benefits (one more request per job)"`
	ParseCompanyDetails bool     `json:"parse_company_details,omitempty" jsonschema:"add each job's company details: Indeed rating, reviews count, company page, logo"`
	Cursor              string   `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous answer, to read the next jobs of its one search (give the same query, position, location, country or search URL)"`

	maxItems int
	cursor   scrapers.Cursor
	host     string   // the country's Indeed host
	searches []search // queries, position, search URLs
	jobURLs  []string // canonical /viewjob?jk= URLs
}

// search is one search to run: on host, for q in l, with extra parameters
// of a search URL.
type search struct {
	host   string
	q, l   string
	params url.Values
}

// Defaults fills the country.
func (a *scrapeArgs) Defaults() {
	if strings.TrimSpace(a.Country) == "" {
		a.Country = "us"
	}
}

// Validate checks the arguments and plans the searches.
func (a *scrapeArgs) Validate() error {
	if err := scrapers.ListLen("queries", a.Queries, 0, maxSources); err != nil {
		return err
	}
	if err := scrapers.ListLen("urls", a.URLs, 0, maxSources); err != nil {
		return err
	}
	for name, v := range map[string]string{"position": a.Position, "location": a.Location} {
		if utf8.RuneCountInString(v) > maxTextLen {
			return scrapers.Argf(name, "is longer than %d characters", maxTextLen)
		}
	}
	for i, q := range a.Queries {
		if utf8.RuneCountInString(q) > maxTextLen {
			return scrapers.Argf("queries", "entry %d is longer than %d characters", i, maxTextLen)
		}
	}
	position, location := strings.TrimSpace(a.Position), strings.TrimSpace(a.Location)
	if len(a.Queries)+len(a.URLs) == 0 && position == "" && location == "" {
		return scrapers.Argf("queries", "give at least one of queries, position, location or urls")
	}
	n, err := scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems)
	if err != nil {
		return err
	}
	a.maxItems = n
	host, ok := countryHosts[strings.ToLower(strings.TrimSpace(a.Country))]
	if !ok {
		return scrapers.Argf("country", "must be one of %s, not %q", countryList(), a.Country)
	}
	a.host = host
	for _, q := range a.Queries {
		a.searches = append(a.searches, search{host: host, q: strings.TrimSpace(q), l: location})
	}
	if position != "" && !slices.ContainsFunc(a.Queries, func(q string) bool { return strings.EqualFold(strings.TrimSpace(q), position) }) {
		a.searches = append(a.searches, search{host: host, q: position, l: location})
	}
	if len(a.Queries) == 0 && position == "" && location != "" && len(a.URLs) == 0 {
		a.searches = append(a.searches, search{host: host, l: location})
	}
	for i, raw := range a.URLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return scrapers.Argf("urls", "entry %d (%q) is not an http(s) URL", i, raw)
		}
		if !isIndeedHost(u.Hostname()) {
			return scrapers.Argf("urls", "entry %d (%q) is not an Indeed URL", i, raw)
		}
		q := u.Query()
		p := strings.ToLower(strings.TrimSuffix(u.Path, "/"))
		switch {
		case (p == "/viewjob" || p == "/m/viewjob" || p == "/rc/clk" || p == "/m/basecamp/viewjob") && q.Get("jk") != "":
			a.jobURLs = append(a.jobURLs, jobURL(u.Host, q.Get("jk")))
		case p == "/jobs" || p == "/m/jobs" || strings.HasPrefix(p, "/q-"):
			s := search{host: u.Host, q: q.Get("q"), l: q.Get("l"), params: url.Values{}}
			for k, vs := range q {
				if k != "q" && k != "l" && k != "start" && k != "vjk" {
					s.params[k] = vs
				}
			}
			if strings.HasPrefix(p, "/q-") { // /q-devops-l-melbourne-jobs.html
				s.q, s.l = pathQuery(p)
			}
			a.searches = append(a.searches, s)
		default:
			return scrapers.Argf("urls", "entry %d (%q) is neither an Indeed job URL (/viewjob?jk=…) nor a search URL (/jobs?q=…)", i, raw)
		}
	}
	if a.Cursor != "" {
		if len(a.searches) != 1 || len(a.jobURLs) != 0 {
			return scrapers.Argf(scrapers.CursorArg, "continues one search: give it with exactly one query, position or search URL and no job URLs, as in the call that returned it")
		}
		c, err := scrapers.ParseCursor(a.Cursor, a.searches[0].key())
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(c.Token); err != nil || n < 0 || n%searchPageStep != 0 || n/searchPageStep > 100 {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.cursor = c
	}
	return nil
}

// key names a search for its cursors: its first page.
func (s search) key() string { return searchURL(s, 0) }

// pathQuery reads the query and place of a /q-<what>-l-<where>-jobs.html URL.
func pathQuery(p string) (q, l string) {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "/q-"), ".html")
	p = strings.TrimSuffix(p, "-jobs")
	q, l, _ = strings.Cut(p, "-l-")
	return strings.ReplaceAll(q, "-", " "), strings.ReplaceAll(l, "-", " ")
}

func scrapeSchema(s *jsonschema.Schema) {
	scrapers.ListMax(s, maxSources, "queries", "urls")
	scrapers.IntRange(s, "max_items", 1, maxMaxItems, defaultMaxItems)
	scrapers.SetDefault(s, "country", "us")
}

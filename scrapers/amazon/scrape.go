package amazon

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the scrape tool's arguments.
const (
	maxList         = 20  // urls, search_terms
	defaultMaxItems = 10  // per search term
	maxMaxItems     = 100 // per search term
	defaultDomain   = "amazon.com"
	// maxSearchPages bounds the pages read for one search term; Amazon
	// rarely shows more than 7 to 20.
	maxSearchPages = 20
	// workers is how many product pages one call fetches at once.
	workers = 4
)

// domainArg is the rule the domain argument follows (CONTRACTS.md, "SurfSense's plugins").
var domainArg = regexp.MustCompile(`^(?:www\.)?amazon\.[a-z.]+$`)

// ScrapeArgs are the arguments of the scrape tool.
type ScrapeArgs struct {
	URLs           []string `json:"urls,omitempty" jsonschema:"Amazon product URLs (/dp/ASIN or /gp/product/ASIN) on any Amazon domain, at most 20"`
	SearchTerms    []string `json:"search_terms,omitempty" jsonschema:"Terms to search for on the domain, at most 20"`
	MaxItems       *int     `json:"max_items,omitempty" jsonschema:"Search results to return per search term, 1 to 100 (default 10)"`
	Domain         string   `json:"domain,omitempty" jsonschema:"The Amazon marketplace to search, e.g. amazon.com, amazon.co.uk, amazon.de, amazon.co.jp, amazon.in (default amazon.com)"`
	IncludeDetails bool     `json:"include_details,omitempty" jsonschema:"Also open each search result's product page and merge its details (brand, availability, bullets, images, specifications); slower"`
	Cursor         string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer for one search term, to read the results after it (give the same search term and domain)"`

	maxItems int
	products []target
	cursor   scrapers.Cursor
}

// target is a product URL to scrape.
type target struct {
	raw  string // as given, the item's url
	host string // its marketplace host, for the currency
}

// Defaults fills the domain's default.
func (a *ScrapeArgs) Defaults() {
	a.Domain = strings.ToLower(strings.TrimSpace(a.Domain))
	if a.Domain == "" {
		a.Domain = defaultDomain
	}
}

// Validate checks the arguments' rules.
func (a *ScrapeArgs) Validate() error {
	if len(a.URLs) == 0 && len(a.SearchTerms) == 0 {
		return scrapers.Argf("urls", "give at least one product URL in urls or one term in search_terms")
	}
	if err := scrapers.ListLen("urls", a.URLs, 0, maxList); err != nil {
		return err
	}
	if err := scrapers.ListLen("search_terms", a.SearchTerms, 0, maxList); err != nil {
		return err
	}
	n, err := scrapers.IntArg("max_items", a.MaxItems, 1, maxMaxItems, defaultMaxItems)
	if err != nil {
		return err
	}
	a.maxItems = n
	if !domainArg.MatchString(a.Domain) || domainCurrency(a.Domain) == "" {
		return scrapers.Argf("domain", "must be an Amazon marketplace domain (%s), got %q", strings.Join(marketplaces(), ", "), a.Domain)
	}
	a.Domain = siteHost(a.Domain)
	a.products = a.products[:0]
	for i, raw := range a.URLs {
		u, _, ok := productURL(raw)
		if !ok {
			return scrapers.Argf("urls", "entry %d (%q) is not an Amazon product URL; use https://www.amazon.<tld>/dp/<ASIN> or /gp/product/<ASIN>", i, raw)
		}
		a.products = append(a.products, target{raw: strings.TrimSpace(raw), host: u.Hostname()})
	}
	a.cursor = scrapers.Cursor{}
	if a.Cursor != "" {
		if len(a.SearchTerms) != 1 || len(a.URLs) != 0 {
			return scrapers.Argf(scrapers.CursorArg, "continues one search: give it with exactly the one search term of the call that returned it and no urls")
		}
		c, err := scrapers.ParseCursor(a.Cursor, searchKey(a.Domain, a.SearchTerms[0]))
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(c.Token); err != nil || n < 1 || n > 400 {
			return scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
		}
		a.cursor = c
	}
	return nil
}

// searchKey names a search for its cursors.
func searchKey(domain, term string) string { return domain + "\x00" + term }

func (s *scraper) tool() scrapers.Tool {
	return scrapers.NewTool("scrape", "Scrape Amazon",
		"Search Amazon (any marketplace: amazon.com, amazon.co.uk, amazon.de, amazon.co.jp, amazon.in, …) and read product pages. "+
			"Search results give asin, name, url, price, currency, list_price, rating, review_count, image, sponsored and prime; "+
			"product pages (urls, or search results with include_details) add brand, availability, feature bullets, images, breadcrumbs and the details table. "+
			"A call of one search term returns next_cursor when Amazon has more results; pass it back as cursor for the next ones.",
		func(sc *jsonschema.Schema) {
			scrapers.ListMax(sc, maxList, "urls", "search_terms")
			scrapers.IntRange(sc, "max_items", 1, maxMaxItems, defaultMaxItems)
			if d := sc.Properties["domain"]; d != nil {
				d.Pattern = domainArg.String()
			}
			scrapers.SetDefault(sc, "domain", defaultDomain)
			scrapers.SetDefault(sc, "include_details", false)
		},
		s.scrape).WithItems(scrapers.ItemSchema[Product]()).WithCursor()
}

// scraper runs the scrape tool with one fetcher shared by all calls.
type scraper struct {
	f *scrapers.Fetcher
}

func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a ScrapeArgs) error {
	j := scrapers.NewJob(call, len(a.products)+len(a.SearchTerms))

	j.Each(ctx, len(a.products), workers, func(i int) {
		t := a.products[i]
		p, err := s.product(ctx, t.raw, t.host)
		if err != nil {
			j.Failed(ctx, t.raw, err)
		} else {
			j.Add(p)
		}
		j.Progress("read "+t.raw, true)
	})

	for _, term := range a.SearchTerms {
		if j.Stopped(ctx) {
			break
		}
		n := s.search(ctx, j, term, a)
		j.Progress(fmt.Sprintf("searched %q: %d results", term, n), true)
	}
	return j.Finish(ctx)
}

// product fetches and reads one product page.
func (s *scraper) product(ctx context.Context, rawURL, host string) (*Product, error) {
	resp, err := s.f.Get(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	p, err := parseProduct(resp.Body, rawURL, host)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// searchURL is the URL of one page of results for term on domain.
func searchURL(domain, term string, page int) string {
	return fmt.Sprintf("https://www.%s/s?k=%s&page=%d", domain, url.QueryEscape(term), page)
}

// search reads pages of results for term until it has a.maxItems distinct
// products, the results end, or the job stops; it adds the results as it
// goes and returns how many it added. It starts where the cursor argument
// says (a page and how many of its cards were returned) and, for a call of
// this one term, sets next_cursor when Amazon has more: inside the page it
// stopped in, or the next page when the page's Next link is live.
func (s *scraper) search(ctx context.Context, j *scrapers.Job, term string, a ScrapeArgs) int {
	seen := map[string]bool{}
	pos, added := a.cursor.Done, 0
	host := "www." + a.Domain
	first, skip := 1, 0
	if a.cursor.Token != "" {
		first, _ = strconv.Atoi(a.cursor.Token)
		skip = a.cursor.Skip
	}
	next := scrapers.Cursor{Listing: searchKey(a.Domain, term)}
	if len(a.SearchTerms) == 1 && len(a.products) == 0 {
		defer func() { j.Call().SetNextCursor(next) }()
	}
	for page := first; page < first+maxSearchPages && added < a.maxItems; page++ {
		if j.Stopped(ctx) {
			break
		}
		u := searchURL(a.Domain, term, page)
		resp, err := s.f.Get(ctx, u)
		if err != nil {
			j.Failed(ctx, u, err)
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: skip, Done: pos}
			break
		}
		sp, err := parseSearch(resp.Body, a.Domain)
		if err != nil {
			j.Failed(ctx, u, fmt.Errorf("reading the results page: %w", err))
			break
		}
		next.Token = ""
		if len(sp.Cards) == 0 {
			if page == first && !sp.Results {
				j.Failed(ctx, u, fmt.Errorf("the page for %q shows no search results; Amazon may have changed its layout", term))
			}
			break
		}
		var batch []*Product
		for i, c := range sp.Cards {
			if i < skip {
				seen[c.ASIN] = true // returned by an earlier call
				continue
			}
			if added >= a.maxItems {
				next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: i, Done: pos}
				break
			}
			if seen[c.ASIN] {
				continue
			}
			seen[c.ASIN] = true
			pos++
			added++
			c.Position, c.SearchTerm = pos, term
			batch = append(batch, &c)
		}
		skip = 0
		if a.IncludeDetails {
			s.details(ctx, j, batch, host)
		} else {
			for _, c := range batch {
				j.Add(c)
			}
		}
		j.Progress(fmt.Sprintf("searched %q page %d: %d results so far", term, page, added), false)
		if next.Token != "" {
			break // stopped inside the page
		}
		if sp.HasNext {
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page + 1), Done: pos}
		}
		resumed := page == first && a.cursor.Token != "" // its cards may all have been returned before
		if len(batch) == 0 && !resumed || (!sp.HasNext && !sp.NoPager) {
			break
		}
	}
	return added
}

// details opens the product page of each card, merges it and adds the card.
// A card whose page could not be read is still added, saying why in
// details_error; a block also stops the job.
func (s *scraper) details(ctx context.Context, j *scrapers.Job, cards []*Product, host string) {
	started := make([]bool, len(cards))
	j.Each(ctx, len(cards), workers, func(i int) {
		started[i] = true
		c := cards[i]
		d, err := s.product(ctx, c.URL, host)
		switch {
		case err == nil:
			c.mergeDetails(d)
		case ctx.Err() != nil:
			c.DetailsError = scrapers.StopError(ctx).Error()
		default:
			c.DetailsError = err.Error()
			j.Call().MarkPartial("some product pages could not be read; their search results carry details_error")
			var be *scrapers.BlockedError
			if errors.As(err, &be) {
				j.Failed(ctx, c.URL, err)
			}
		}
		j.Add(c)
	})
	for i, c := range cards {
		if !started[i] {
			c.DetailsError = "not read: the scrape stopped before this product page"
			j.Add(c)
		}
	}
}

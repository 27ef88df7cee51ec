package walmart

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the tools' arguments.
const (
	maxList         = 20 // urls, search_terms, item_ids
	defaultMaxItems = 10 // per search term
	maxMaxItems     = 100
	// maxSearchPages bounds the pages read for one term (Walmart offers 25).
	maxSearchPages = 25
	// workers is how many product pages one call fetches at once.
	workers = 4
)

// ScrapeArgs are the arguments of the scrape tool.
type ScrapeArgs struct {
	URLs        []string `json:"urls,omitempty" jsonschema:"Walmart product URLs (https://www.walmart.com/ip/<name>/<item id>), at most 20"`
	SearchTerms []string `json:"search_terms,omitempty" jsonschema:"Terms to search walmart.com for, at most 20"`
	MaxItems    *int     `json:"max_items,omitempty" jsonschema:"Search results to return per search term, 1 to 100 (default 10)"`
	Cursor      string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer for one search term, to read the results after it (give the same search term)"`

	maxItems int
	products []string
	cursor   scrapers.Cursor
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
	a.products = a.products[:0]
	for i, raw := range a.URLs {
		if _, _, ok := productURL(raw, false); !ok {
			return scrapers.Argf("urls", "entry %d (%q) is not a Walmart product URL; use https://www.walmart.com/ip/<name>/<item id>", i, raw)
		}
		a.products = append(a.products, strings.TrimSpace(raw))
	}
	a.cursor = scrapers.Cursor{}
	if a.Cursor != "" {
		if len(a.SearchTerms) != 1 || len(a.URLs) != 0 {
			return scrapers.Argf(scrapers.CursorArg, "continues one search: give it with exactly the one search term of the call that returned it and no urls")
		}
		if a.cursor, err = pageCursor(a.Cursor, "search "+a.SearchTerms[0]); err != nil {
			return err
		}
	}
	return nil
}

func (s *scraper) scrapeTool() scrapers.Tool {
	return scrapers.NewTool("scrape", "Scrape Walmart",
		"Search walmart.com and read product pages. Search results give item id, name, url, price, currency, rating, "+
			"review_count, image, seller, availability and sponsored; product pages (urls) add brand, highlights, "+
			"specifications, images, description and breadcrumbs. Use the reviews tool for customer reviews. A call of one search "+
			"term returns next_cursor when Walmart has more results; pass it back as cursor for the next ones.",
		func(sc *jsonschema.Schema) {
			scrapers.ListMax(sc, maxList, "urls", "search_terms")
			scrapers.IntRange(sc, "max_items", 1, maxMaxItems, defaultMaxItems)
		},
		s.scrape).WithItems(scrapers.ItemSchema[Product]()).WithCursor()
}

func (s *scraper) scrape(ctx context.Context, call *scrapers.Call, a ScrapeArgs) error {
	j := scrapers.NewJob(call, len(a.products)+len(a.SearchTerms))
	j.Each(ctx, len(a.products), workers, func(i int) {
		u := a.products[i]
		p, err := s.product(ctx, u)
		if err != nil {
			j.Failed(ctx, u, err)
		} else {
			j.Add(p)
		}
		j.Progress("read "+u, true)
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
func (s *scraper) product(ctx context.Context, rawURL string) (*Product, error) {
	resp, err := s.f.Get(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	p, err := parseProduct(resp.Body, rawURL)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// searchURL is the URL of one page of results for term.
func searchURL(term string, page int) string {
	return fmt.Sprintf("%s/search?q=%s&page=%d", origin, url.QueryEscape(term), page)
}

// search reads pages of results for term until it has max distinct items,
// the results end, or the job stops; it adds the results as it goes and
// returns how many it added. It starts where the cursor argument says (a
// page and how many of its items were returned) and, for a call of this
// one term, sets next_cursor when Walmart has more: inside the page it
// stopped in, or the next page while the page's pager offers one.
func (s *scraper) search(ctx context.Context, j *scrapers.Job, term string, a ScrapeArgs) int {
	max := a.maxItems
	seen := map[string]bool{}
	pos, added := a.cursor.Done, 0
	first, skip := 1, 0
	if a.cursor.Token != "" {
		first, _ = strconv.Atoi(a.cursor.Token)
		skip = a.cursor.Skip
	}
	next := scrapers.Cursor{Listing: "search " + term}
	if len(a.SearchTerms) == 1 && len(a.products) == 0 {
		defer func() { j.Call().SetNextCursor(next) }()
	}
	for page := first; page < first+maxSearchPages && added < max; page++ {
		if j.Stopped(ctx) {
			break
		}
		u := searchURL(term, page)
		resp, err := s.f.Get(ctx, u)
		if err != nil {
			j.Failed(ctx, u, err)
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: skip, Done: pos}
			break
		}
		sp, err := parseSearch(resp.Body)
		if err == nil && !sp.Results && page == first {
			err = errNoData
		}
		next.Token = ""
		if err != nil {
			if page == first || !errors.Is(err, errNoData) {
				j.Failed(ctx, u, fmt.Errorf("reading the results for %q: %w", term, err))
			}
			break
		}
		fresh := 0
		for i, it := range sp.Items {
			if i < skip {
				seen[it.ID] = true // returned by an earlier call
				continue
			}
			if added >= max {
				next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: i, Done: pos}
				break
			}
			if seen[it.ID] {
				continue
			}
			seen[it.ID] = true
			pos++
			added++
			fresh++
			it.Position, it.SearchTerm = pos, term
			j.Add(&it)
		}
		skip = 0
		j.Progress(fmt.Sprintf("searched %q page %d: %d results so far", term, page, added), false)
		if next.Token != "" {
			break // stopped inside the page
		}
		if sp.MaxPage > page {
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page + 1), Done: pos}
		}
		resumed := page == first && a.cursor.Token != "" // its items may all have been returned before
		if (fresh == 0 && !resumed) || (sp.MaxPage > 0 && page >= sp.MaxPage) {
			break
		}
	}
	return added
}

// maxCursorPage bounds the page a cursor may name.
const maxCursorPage = 100

// pageCursor reads the cursor argument of a listing paged by number: its
// token is the page to read.
func pageCursor(arg, listing string) (scrapers.Cursor, error) {
	c, err := scrapers.ParseCursor(arg, listing)
	if err != nil {
		return c, err
	}
	if n, err := strconv.Atoi(c.Token); err != nil || n < 1 || n > maxCursorPage {
		return c, scrapers.Argf(scrapers.CursorArg, "is not a cursor this tool returned; pass back the next_cursor of a previous answer unchanged")
	}
	return c, nil
}

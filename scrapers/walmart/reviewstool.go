package walmart

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/scrapers"
)

// Limits of the reviews tool.
const (
	defaultMaxReviews = 20 // per item
	maxMaxReviews     = 500
	// maxReviewPages bounds the pages read for one item; Walmart shows 10
	// reviews a page.
	maxReviewPages = 60
)

// sortOrders are the orders Walmart's reviews pages accept (?sort=).
var sortOrders = []string{"relevancy", "submission-desc", "submission-asc", "rating-desc", "rating-asc"}

// ReviewsArgs are the arguments of the reviews tool.
type ReviewsArgs struct {
	URLs       []string `json:"urls,omitempty" jsonschema:"Walmart product URLs (/ip/<name>/<item id>) or reviews URLs (/reviews/product/<item id>), at most 20"`
	ItemIDs    []string `json:"item_ids,omitempty" jsonschema:"Walmart item numbers (usItemId, the number at the end of a product URL), at most 20"`
	MaxReviews *int     `json:"max_reviews,omitempty" jsonschema:"Reviews to return per item, 1 to 500 (default 20)"`
	SortBy     string   `json:"sort_by,omitempty" jsonschema:"Order of the reviews: relevancy (default), submission-desc (newest), submission-asc, rating-desc (highest), rating-asc"`
	Cursor     string   `json:"cursor,omitempty" jsonschema:"The next_cursor of a previous answer for one item, to read the reviews after it (give the same item and sort_by)"`

	maxReviews int
	items      []string // item numbers, in order, without repeats
	cursor     scrapers.Cursor
}

// Defaults fills sort_by's default.
func (a *ReviewsArgs) Defaults() {
	a.SortBy = strings.ToLower(strings.TrimSpace(a.SortBy))
	if a.SortBy == "" {
		a.SortBy = sortOrders[0]
	}
}

// Validate checks the arguments' rules.
func (a *ReviewsArgs) Validate() error {
	if len(a.URLs) == 0 && len(a.ItemIDs) == 0 {
		return scrapers.Argf("urls", "give at least one product URL in urls or one item number in item_ids")
	}
	if err := scrapers.ListLen("urls", a.URLs, 0, maxList); err != nil {
		return err
	}
	if err := scrapers.ListLen("item_ids", a.ItemIDs, 0, maxList); err != nil {
		return err
	}
	n, err := scrapers.IntArg("max_reviews", a.MaxReviews, 1, maxMaxReviews, defaultMaxReviews)
	if err != nil {
		return err
	}
	a.maxReviews = n
	if !slices.Contains(sortOrders, a.SortBy) {
		return scrapers.Argf("sort_by", "must be one of %s, got %q", strings.Join(sortOrders, ", "), a.SortBy)
	}
	a.items = a.items[:0]
	add := func(id string) {
		if !slices.Contains(a.items, id) {
			a.items = append(a.items, id)
		}
	}
	for i, raw := range a.URLs {
		_, id, ok := productURL(raw, true)
		if !ok {
			return scrapers.Argf("urls", "entry %d (%q) is not a Walmart product or reviews URL; use https://www.walmart.com/ip/<name>/<item id>", i, raw)
		}
		add(id)
	}
	for i, id := range a.ItemIDs {
		id = strings.TrimSpace(id)
		if !itemIDArg.MatchString(id) {
			return scrapers.Argf("item_ids", "entry %d (%q) is not a Walmart item number (digits only, like 10450114)", i, id)
		}
		add(id)
	}
	a.cursor = scrapers.Cursor{}
	if a.Cursor != "" {
		if len(a.items) != 1 {
			return scrapers.Argf(scrapers.CursorArg, "continues the reviews of one item: give it with exactly the one item of the call that returned it")
		}
		var err error
		if a.cursor, err = pageCursor(a.Cursor, reviewsKey(a.items[0], a.SortBy)); err != nil {
			return err
		}
	}
	return nil
}

// reviewsKey names an item's reviews in one order, for their cursors.
func reviewsKey(id, sort string) string { return "reviews " + id + " " + sort }

func (s *scraper) reviewsTool() scrapers.Tool {
	return scrapers.NewTool("reviews", "Walmart reviews",
		"Read the customer reviews of Walmart items: title, text, rating, author, date, helpful votes, verified purchase, photos "+
			"and the seller's response, in the chosen order, up to max_reviews per item. A call for one item returns next_cursor "+
			"when it has more reviews; pass it back as cursor for the next ones.",
		func(sc *jsonschema.Schema) {
			scrapers.ListMax(sc, maxList, "urls", "item_ids")
			scrapers.IntRange(sc, "max_reviews", 1, maxMaxReviews, defaultMaxReviews)
			scrapers.Choice(sc, "sort_by", sortOrders...)
		},
		s.reviews).WithItems(scrapers.ItemSchema[Review]()).WithCursor()
}

func (s *scraper) reviews(ctx context.Context, call *scrapers.Call, a ReviewsArgs) error {
	j := scrapers.NewJob(call, len(a.items))
	j.Each(ctx, len(a.items), workers, func(i int) {
		id := a.items[i]
		n := s.itemReviews(ctx, j, id, a)
		j.Progress(fmt.Sprintf("item %s: %d reviews", id, n), true)
	})
	return j.Finish(ctx)
}

// reviewsURL is the reviews page of item id; with sort and page > 0 it is
// the URL of one page in that order.
func reviewsURL(id, sort string, page int) string {
	u := origin + "/reviews/product/" + id
	if page > 0 {
		u += fmt.Sprintf("?sort=%s&page=%d", sort, page)
	}
	return u
}

// itemReviews reads pages of reviews of item id until it has max, the
// reviews end, or the job stops; it adds them as it goes and returns how
// many it added. It starts where the cursor argument says and, for a call
// of this one item, sets next_cursor when there are more: inside the page it
// stopped in, or the next page while the pager offers one.
func (s *scraper) itemReviews(ctx context.Context, j *scrapers.Job, id string, a ReviewsArgs) int {
	sort, max := a.SortBy, a.maxReviews
	seen := map[string]bool{}
	n := 0
	first, skip := 1, 0
	if a.cursor.Token != "" {
		first, _ = strconv.Atoi(a.cursor.Token)
		skip = a.cursor.Skip
	}
	next := scrapers.Cursor{Listing: reviewsKey(id, sort)}
	if len(a.items) == 1 {
		defer func() { j.Call().SetNextCursor(next) }()
	}
	for page := first; page < first+maxReviewPages && n < max; page++ {
		if j.Stopped(ctx) {
			break
		}
		u := reviewsURL(id, sort, page)
		resp, err := s.f.Get(ctx, u)
		if err != nil {
			j.Failed(ctx, u, err)
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: skip}
			break
		}
		rp, err := parseReviews(resp.Body, id, reviewsURL(id, "", 0))
		if err == nil && !rp.Results && page == first {
			err = errNoData
		}
		next.Token = ""
		if err != nil {
			if page == first {
				j.Failed(ctx, u, fmt.Errorf("reading the reviews of item %s: %w", id, err))
			}
			break
		}
		added := 0
		for i, r := range rp.Reviews {
			key := r.ReviewID
			if key == "" {
				key = r.Author + "\x00" + r.Title + "\x00" + r.Text
			}
			if i < skip {
				seen[key] = true // returned by an earlier call
				continue
			}
			if n >= max {
				next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page), Skip: i}
				break
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			n++
			added++
			j.Add(&r)
		}
		skip = 0
		j.Progress(fmt.Sprintf("item %s page %d: %d reviews so far", id, page, n), false)
		if next.Token != "" {
			return n // stopped inside the page
		}
		more := rp.LastPage > page || (rp.LastPage == 0 && rp.HasNext)
		if more {
			next = scrapers.Cursor{Listing: next.Listing, Token: strconv.Itoa(page + 1)}
		}
		resumed := page == first && a.cursor.Token != "" // its reviews may all have been returned before
		switch {
		case added == 0 && !resumed:
			next = scrapers.Cursor{}
			return n
		case rp.LastPage > 0 && page >= rp.LastPage:
			return n
		case rp.Paged && rp.LastPage == 0 && !rp.HasNext:
			return n
		}
	}
	return n
}

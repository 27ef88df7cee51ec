package walmart

import (
	"context"
	"fmt"
	"slices"
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

	maxReviews int
	items      []string // item numbers, in order, without repeats
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
	return nil
}

func (s *scraper) reviewsTool() scrapers.Tool {
	return scrapers.NewTool("reviews", "Walmart reviews",
		"Read the customer reviews of Walmart items: title, text, rating, author, date, helpful votes, verified purchase, photos "+
			"and the seller's response, in the chosen order, up to max_reviews per item.",
		func(sc *jsonschema.Schema) {
			scrapers.ListMax(sc, maxList, "urls", "item_ids")
			scrapers.IntRange(sc, "max_reviews", 1, maxMaxReviews, defaultMaxReviews)
			scrapers.Choice(sc, "sort_by", sortOrders...)
		},
		s.reviews).WithItems(scrapers.ItemSchema[Review]())
}

func (s *scraper) reviews(ctx context.Context, call *scrapers.Call, a ReviewsArgs) error {
	j := scrapers.NewJob(call, len(a.items))
	j.Each(ctx, len(a.items), workers, func(i int) {
		id := a.items[i]
		n := s.itemReviews(ctx, j, id, a.SortBy, a.maxReviews)
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
// many it added.
func (s *scraper) itemReviews(ctx context.Context, j *scrapers.Job, id, sort string, max int) int {
	seen := map[string]bool{}
	n := 0
	for page := 1; page <= maxReviewPages && n < max; page++ {
		if j.Stopped(ctx) {
			break
		}
		u := reviewsURL(id, sort, page)
		resp, err := s.f.Get(ctx, u)
		if err != nil {
			j.Failed(ctx, u, err)
			break
		}
		rp, err := parseReviews(resp.Body, id, reviewsURL(id, "", 0))
		if err == nil && !rp.Results && page == 1 {
			err = errNoData
		}
		if err != nil {
			if page == 1 {
				j.Failed(ctx, u, fmt.Errorf("reading the reviews of item %s: %w", id, err))
			}
			break
		}
		added := 0
		for _, r := range rp.Reviews {
			key := r.ReviewID
			if key == "" {
				key = r.Author + "\x00" + r.Title + "\x00" + r.Text
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			n++
			added++
			j.Add(&r)
			if n >= max {
				break
			}
		}
		j.Progress(fmt.Sprintf("item %s page %d: %d reviews so far", id, page, n), false)
		switch {
		case added == 0:
			return n
		case rp.LastPage > 0 && page >= rp.LastPage:
			return n
		case rp.Paged && rp.LastPage == 0 && !rp.HasNext:
			return n
		}
	}
	return n
}

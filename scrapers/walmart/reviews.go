package walmart

import (
	"time"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Review is one customer review the reviews tool returns.
type Review struct {
	// URL is the reviews page of the item.
	URL      string   `json:"url"`
	ItemID   string   `json:"item_id"`
	ReviewID string   `json:"review_id,omitempty"`
	Title    string   `json:"title,omitempty"`
	Text     string   `json:"text,omitempty"`
	Rating   *float64 `json:"rating,omitempty"`
	Author   string   `json:"author,omitempty"`
	// Date is the submission date as YYYY-MM-DD when Walmart's M/D/YYYY
	// could be read, else as Walmart wrote it.
	Date             string   `json:"date,omitempty"`
	HelpfulVotes     *int     `json:"helpful_votes,omitempty"`
	UnhelpfulVotes   *int     `json:"unhelpful_votes,omitempty"`
	VerifiedPurchase bool     `json:"verified_purchase"`
	Photos           []string `json:"photos,omitempty"`
	// Response is the seller's or brand's answer, when there is one.
	Response string `json:"response,omitempty"`
}

// reviewsPage is what one page of an item's reviews holds.
type reviewsPage struct {
	Reviews []Review
	// LastPage is the last page number the pager offers, 0 when unknown;
	// HasNext reports a next page link.
	LastPage int
	HasNext  bool
	// Paged reports that the page has a pager at all; without one the
	// reviews are read until a page brings nothing new.
	Paged bool
	// Total is the item's review count, when the page says.
	Total *int
	// Results reports that the page's data has a reviews object at all.
	Results bool
}

// parseReviews reads a reviews page (/reviews/product/<id>) from its
// __NEXT_DATA__: props.pageProps.initialData.data.reviews.customerReviews
// and its pagination. pageURL becomes each review's url.
func parseReviews(body []byte, itemID, pageURL string) (reviewsPage, error) {
	root, err := pageData(body)
	if err != nil {
		return reviewsPage{}, err
	}
	rv := first(root,
		[]any{"props", "pageProps", "initialData", "data", "reviews"},
		[]any{"initialData", "data", "reviews"},
		[]any{"data", "reviews"})
	if jsonval.Get(rv, "customerReviews") == nil {
		if cr := find(root, "customerReviews", 10); cr != nil {
			rv = map[string]any{"customerReviews": cr}
		}
	}
	if rv == nil {
		return reviewsPage{}, nil
	}
	page := reviewsPage{Results: true, Total: intPtr(jsonval.Get(rv, "totalReviewCount"))}
	pg := jsonval.Get(rv, "pagination")
	page.Paged = pg != nil
	for _, p := range jsonval.List(jsonval.Get(pg, "pages")) {
		if n := intPtr(jsonval.Get(p, "num")); n != nil && *n > page.LastPage {
			page.LastPage = *n
		}
	}
	page.HasNext = jsonval.Get(pg, "next") != nil && (str(jsonval.Get(pg, "next", "url")) != "" || intPtr(jsonval.Get(pg, "next", "num")) != nil)
	for _, r := range jsonval.List(jsonval.Get(rv, "customerReviews")) {
		if rev, ok := review(r, itemID, pageURL); ok {
			page.Reviews = append(page.Reviews, rev)
		}
	}
	return page, nil
}

// review reads one customer review; one with neither text, title nor
// rating is skipped.
func review(r any, itemID, pageURL string) (Review, bool) {
	rev := Review{
		URL:            pageURL,
		ItemID:         itemID,
		ReviewID:       str(jsonval.Get(r, "reviewId")),
		Title:          str(jsonval.Get(r, "reviewTitle")),
		Text:           str(jsonval.Get(r, "reviewText")),
		Rating:         numPtr(jsonval.Get(r, "rating")),
		Author:         str(jsonval.Get(r, "userNickname")),
		Date:           isoDate(str(jsonval.Get(r, "reviewSubmissionTime"))),
		HelpfulVotes:   intPtr(jsonval.Get(r, "positiveFeedback")),
		UnhelpfulVotes: intPtr(jsonval.Get(r, "negativeFeedback")),
	}
	if rev.Text == "" && rev.Title == "" && rev.Rating == nil {
		return Review{}, false
	}
	for _, b := range jsonval.List(jsonval.Get(r, "badges")) {
		if str(jsonval.Get(b, "id")) == "VerifiedPurchaser" || str(jsonval.Get(b, "glassBadge", "id")) == "VerifiedPurchaser" {
			rev.VerifiedPurchase = true
		}
	}
	for _, m := range jsonval.List(first(r, []any{"media"}, []any{"photos"})) {
		if u := str(first(m, []any{"normalUrl"}, []any{"url"}, []any{"sizes", "normal", "url"})); u != "" {
			rev.Photos = append(rev.Photos, u)
		}
	}
	for _, c := range jsonval.List(jsonval.Get(r, "clientResponses")) {
		if t := str(jsonval.Get(c, "response")); t != "" {
			rev.Response = t
			break
		}
	}
	return rev, true
}

// isoDate turns Walmart's "11/21/2022" into 2022-11-21; anything else is
// returned as it is.
func isoDate(s string) string {
	if t, err := time.Parse("1/2/2006", s); err == nil {
		return t.Format(time.DateOnly)
	}
	return s
}

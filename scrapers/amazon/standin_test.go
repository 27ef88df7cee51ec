package amazon

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a local Amazon: it serves generated search pages and product
// pages, and whatever a test's hook decides for chosen requests.
type standIn struct {
	*httptest.Server
	tool scrapers.Tool

	// pages and perPage shape every search: pages of perPage cards each.
	pages, perPage int
	// price is the price text of every card ("$12.34" when empty).
	price string
	// hook, when it returns true, has answered the request itself.
	hook func(w http.ResponseWriter, r *http.Request) bool

	requests scrapertest.RequestLog
}

func newStandIn(t *testing.T) *standIn {
	t.Helper()
	s := &standIn{pages: 3, perPage: 16}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	p := scrapertest.NewPlugin(t, New, map[string]string{"AMAZON_BASE_URL": s.URL})
	if len(p.Tools) != 1 {
		t.Fatalf("%d tools", len(p.Tools))
	}
	s.tool = p.Tools[0]
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Record(r)
	if s.hook != nil && s.hook(w, r) {
		return
	}
	switch {
	case r.URL.Path == "/s":
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		w.Header().Set("Content-Type", "text/html;charset=UTF-8")
		fmt.Fprint(w, s.searchPage(r.URL.Query().Get("k"), page))
	case asinFromURL(r.URL.Path) != "":
		w.Header().Set("Content-Type", "text/html;charset=UTF-8")
		fmt.Fprint(w, productPage(asinFromURL(r.URL.Path)))
	default:
		http.NotFound(w, r)
	}
}

// cardASIN is the ASIN of card i of page p of a search.
func cardASIN(page, i int) string { return fmt.Sprintf("B%09d", page*1000+i) }

// searchPage renders page of the results for term in Amazon's markup.
func (s *standIn) searchPage(term string, page int) string {
	if page < 1 {
		page = 1
	}
	price := s.price
	if price == "" {
		price = "$12.34"
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en-us"><head><title>Amazon.com : ` + html.EscapeString(term) + `</title></head><body><div class="s-main-slot s-result-list s-search-results sg-row">`)
	if page <= s.pages {
		for i := 1; i <= s.perPage; i++ {
			asin := cardASIN(page, i)
			ad := ""
			href := "/Thing-" + asin + "/dp/" + asin + "/ref=sr_1_" + strconv.Itoa(i)
			if i == 1 {
				ad = " AdHolder"
				href = "/sspa/click?ie=UTF8&amp;url=" + strings.ReplaceAll(href, "/", "%2F")
			}
			fmt.Fprintf(&b, `<div data-asin="%s" data-index="%d" data-component-type="s-search-result" class="s-result-item s-asin sg-col%s"><div class="sg-col-inner"><div class="puis-card-container s-card-container">`+
				`<span data-component-type="s-product-image"><a class="a-link-normal s-no-outline" href="%s"><img class="s-image" src="https://m.media-amazon.com/images/I/%s._AC_UL320_.jpg" alt=""></a></span>`+
				`<div data-cy="title-recipe"><h2 class="a-size-mini"><a class="a-link-normal a-text-normal" href="%s"><span class="a-size-base-plus a-color-base a-text-normal">%s result %d of page %d</span></a></h2></div>`+
				`<div data-cy="reviews-block"><span aria-label="4.%d out of 5 stars"><i class="a-icon a-icon-star-small"><span class="a-icon-alt">4.%d out of 5 stars</span></i></span><span aria-label="1,0%02d ratings"><a href="%s#customerReviews"><span class="a-size-base s-underline-text">1,0%02d</span></a></span></div>`+
				`<div data-cy="price-recipe"><span class="a-price" data-a-size="xl"><span class="a-offscreen">%s</span></span></div>`+
				`</div></div></div>`,
				asin, i, ad, href, asin, href, html.EscapeString(term), i, page, i%10, i%10, i, href, i, price)
		}
	}
	b.WriteString(`</div><span class="s-pagination-strip">`)
	if page < s.pages {
		fmt.Fprintf(&b, `<a href="/s?k=%s&amp;page=%d" class="s-pagination-item s-pagination-next s-pagination-button">Next</a>`, term, page+1)
	} else {
		b.WriteString(`<span class="s-pagination-item s-pagination-next s-pagination-disabled" aria-disabled="true">Next</span>`)
	}
	b.WriteString(`</span></body></html>`)
	return b.String()
}

// productTemplate is testdata/product.html.
var productTemplate = func() string {
	b, err := os.ReadFile("testdata/product.html")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// productPage renders the product page of asin from the package's own saved
// page, with the ASIN and title changed.
func productPage(asin string) string {
	p := strings.ReplaceAll(productTemplate, "B09XS7JWHH", asin)
	return strings.ReplaceAll(p, "Sony WH-1000XM5 The Best Wireless", "Product "+asin+" The Best Wireless")
}

// run calls the tool with args and returns its error and what it gathered.
func (s *standIn) run(ctx context.Context, t *testing.T, args string) (error, scrapers.Outcome, []map[string]any) {
	t.Helper()
	out, err := scrapertest.Run(ctx, t, s.tool, args)
	return err, out, scrapertest.Items(t, out)
}

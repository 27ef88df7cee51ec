package walmart

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a local walmart.com: generated search, product and reviews
// pages in the shape of Walmart's __NEXT_DATA__, and whatever a test's hook
// decides for chosen requests.
type standIn struct {
	*httptest.Server
	scrape, reviews scrapers.Tool

	// maxPage and perPage shape every search.
	maxPage, perPage int
	// reviewCount gives the number of reviews of an item (default 35).
	reviewCount func(id string) int
	// hook, when it returns true, has answered the request itself.
	hook func(w http.ResponseWriter, r *http.Request) bool

	requests scrapertest.RequestLog
}

func newStandIn(t *testing.T) *standIn {
	t.Helper()
	s := &standIn{maxPage: 3, perPage: 10, reviewCount: func(string) int { return 35 }}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	p := scrapertest.NewPlugin(t, New, map[string]string{"WALMART_BASE_URL": s.URL})
	for _, tool := range p.Tools {
		switch tool.Name {
		case "scrape":
			s.scrape = tool
		case "reviews":
			s.reviews = tool
		}
	}
	if s.scrape.Run == nil || s.reviews.Run == nil {
		t.Fatalf("tools %+v", p.Tools)
	}
	return s
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Record(r)
	if s.hook != nil && s.hook(w, r) {
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/search":
		writeNext(w, r.URL.Query().Get("q"), s.searchData(r.URL.Query().Get("q"), page))
	case itemPath.MatchString(r.URL.Path):
		id := itemPath.FindStringSubmatch(r.URL.Path)[1]
		writeNext(w, "item "+id, productData(id))
	case reviewsPath.MatchString(r.URL.Path):
		id := reviewsPath.FindStringSubmatch(r.URL.Path)[1]
		writeNext(w, "reviews of "+id, s.reviewsData(id, r.URL.Query().Get("sort"), page))
	default:
		http.NotFound(w, r)
	}
}

// writeNext writes a page whose __NEXT_DATA__ is {"props":{"pageProps":{"initialData":data}}}.
func writeNext(w http.ResponseWriter, title string, initialData any) {
	b, err := json.Marshal(map[string]any{
		"props":   map[string]any{"pageProps": map[string]any{"initialData": initialData}, "__N_SSP": true},
		"page":    "/",
		"buildId": "standin",
	})
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, `<!DOCTYPE html><html lang="en-US"><head><meta charSet="utf-8"/><title>%s - Walmart.com</title></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json" nonce="n">%s</script></body></html>`,
		html.EscapeString(title), b)
}

// itemID is the item number of result i of page p of every search.
func itemID(page, i int) string { return fmt.Sprintf("%d%03d", page, i) }

func (s *standIn) searchData(q string, page int) any {
	var items []any
	if page <= s.maxPage {
		items = append(items, map[string]any{"__typename": "AdPlaceholder", "type": "Sponsored Products", "adUuid": "ad"})
		for i := 1; i <= s.perPage; i++ {
			id := itemID(page, i)
			items = append(items, map[string]any{
				"__typename": "Product", "id": "P" + id, "usItemId": id, "name": fmt.Sprintf("%s result %d of page %d", q, i, page),
				"canonicalUrl":         "/ip/Thing-" + id + "/" + id + "?classType=REGULAR&from=/search",
				"price":                float64(i) + 0.99,
				"priceInfo":            map[string]any{"linePrice": fmt.Sprintf("$%d.99", i), "wasPrice": "", "unitPrice": ""},
				"averageRating":        4.5,
				"numberOfReviews":      100 + i,
				"imageInfo":            map[string]any{"thumbnailUrl": "https://i5.walmartimages.com/seo/" + id + ".jpeg"},
				"sellerName":           "Walmart.com",
				"availabilityStatusV2": map[string]any{"display": "In stock", "value": "IN_STOCK"},
				"isSponsoredFlag":      i == 1,
			})
		}
	}
	return map[string]any{"searchResult": map[string]any{
		"itemStacks":   []any{map[string]any{"items": items, "count": s.maxPage * s.perPage}},
		"paginationV2": map[string]any{"maxPage": s.maxPage},
	}}
}

func productData(id string) any {
	return map[string]any{"data": map[string]any{
		"product": map[string]any{
			"usItemId": id, "id": "P" + id, "name": "Product " + id, "brand": "Acme",
			"priceInfo":          map[string]any{"currentPrice": map[string]any{"price": 9.97, "priceString": "$9.97", "currencyUnit": "USD"}},
			"availabilityStatus": "IN_STOCK", "sellerName": "Walmart.com", "averageRating": 4.1, "numberOfReviews": 12,
			"imageInfo": map[string]any{"allImages": []any{map[string]any{"url": "https://i5.walmartimages.com/asr/" + id + ".jpeg"}}},
		},
		"idml": map[string]any{
			"productHighlights": []any{map[string]any{"name": "Material", "value": "Steel"}},
			"specifications":    []any{map[string]any{"name": "Brand", "value": "Acme"}},
			"longDescription":   "<p>A <b>fine</b> thing.</p>",
		},
	}}
}

func (s *standIn) reviewsData(id, sort string, page int) any {
	total := s.reviewCount(id)
	pages := (total + 9) / 10
	var reviews, pager []any
	for i := (page-1)*10 + 1; i <= total && i <= page*10; i++ {
		reviews = append(reviews, map[string]any{
			"reviewId": fmt.Sprintf("%s-%d", id, i), "rating": 1 + i%5, "reviewSubmissionTime": "1/2/2024",
			"reviewText": fmt.Sprintf("review %d of %s, sorted by %s", i, id, sort), "reviewTitle": "Title " + strconv.Itoa(i),
			"userNickname": "user" + strconv.Itoa(i), "positiveFeedback": i, "negativeFeedback": 0,
		})
	}
	for n := 1; n <= pages; n++ {
		pager = append(pager, map[string]any{"num": n, "url": fmt.Sprintf("page=%d&sort=%s", n, sort)})
	}
	pagination := map[string]any{"pages": pager, "total": total, "next": nil}
	if page < pages {
		pagination["next"] = map[string]any{"num": page + 1, "url": fmt.Sprintf("page=%d&sort=%s", page+1, sort)}
	}
	return map[string]any{"data": map[string]any{
		"product": map[string]any{"usItemId": id, "name": "Product " + id},
		"reviews": map[string]any{"customerReviews": reviews, "pagination": pagination, "totalReviewCount": total},
	}}
}

// run calls tool with args and returns its error and what it gathered.
func run(ctx context.Context, t *testing.T, tool scrapers.Tool, args string) (error, scrapers.Outcome, []map[string]any) {
	t.Helper()
	out, err := scrapertest.Run(ctx, t, tool, args)
	return err, out, scrapertest.Items(t, out)
}

package walmart

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestToolShapes(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "walmart" || len(p.Tools) != 2 {
		t.Fatalf("plugin %q with %d tools", p.ID, len(p.Tools))
	}
	sc, rv := p.Tools[0], p.Tools[1]
	if sc.Name != "scrape" || sc.Title != "Scrape Walmart" || rv.Name != "reviews" || rv.Title != "Walmart reviews" {
		t.Errorf("tools %q %q, %q %q", sc.Name, sc.Title, rv.Name, rv.Title)
	}
	if m := sc.InputSchema.Properties["max_items"]; m == nil || *m.Minimum != 1 || *m.Maximum != 100 || string(m.Default) != "10" {
		t.Errorf("max_items %+v", m)
	}
	if m := rv.InputSchema.Properties["max_reviews"]; m == nil || *m.Minimum != 1 || *m.Maximum != 500 || string(m.Default) != "20" {
		t.Errorf("max_reviews %+v", m)
	}
	sb := rv.InputSchema.Properties["sort_by"]
	if sb == nil || len(sb.Enum) != 5 || sb.Enum[0] != "relevancy" || string(sb.Default) != `"relevancy"` {
		t.Errorf("sort_by %+v", sb)
	}
	for _, tool := range p.Tools {
		for _, name := range []string{"urls", "search_terms", "item_ids"} {
			if l := tool.InputSchema.Properties[name]; l != nil && (l.MaxItems == nil || *l.MaxItems != 20) {
				t.Errorf("%s.%s maxItems %v", tool.Name, name, l.MaxItems)
			}
		}
	}
}

func TestBadArguments(t *testing.T) {
	s := newStandIn(t)
	urls21 := `"` + strings.Repeat(`https://www.walmart.com/ip/1","`, 20) + `https://www.walmart.com/ip/1"`
	for _, tc := range []struct {
		tool      scrapers.Tool
		args, arg string
	}{
		{s.scrape, `{}`, "urls"},
		{s.scrape, `{"urls":[],"search_terms":[]}`, "urls"},
		{s.scrape, `{"search_terms":["x"],"max_items":0}`, "max_items"},
		{s.scrape, `{"search_terms":["x"],"max_items":101}`, "max_items"},
		{s.scrape, `{"search_terms":[""]}`, "search_terms"},
		{s.scrape, `{"urls":[` + urls21 + `]}`, "urls"},
		{s.scrape, `{"urls":["https://www.walmart.com/search?q=milk"]}`, "urls"},
		{s.scrape, `{"urls":["https://www.walmart.ca/ip/123"]}`, "urls"},
		{s.scrape, `{"urls":["https://www.walmart.com/reviews/product/123"]}`, "urls"},
		{s.scrape, `{"search_terms":["x"],"domain":"walmart.ca"}`, "domain"},
		{s.reviews, `{}`, "urls"},
		{s.reviews, `{"item_ids":["12a"]}`, "item_ids"},
		{s.reviews, `{"item_ids":["1"],"max_reviews":0}`, "max_reviews"},
		{s.reviews, `{"item_ids":["1"],"max_reviews":501}`, "max_reviews"},
		{s.reviews, `{"item_ids":["1"],"sort_by":"newest"}`, "sort_by"},
		{s.reviews, `{"item_ids":[1]}`, "item_ids"},
		{s.reviews, `{"urls":["https://www.example.com/ip/1"]}`, "urls"},
		{s.reviews, `{"item_ids":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"]}`, "item_ids"},
	} {
		err, out, _ := run(context.Background(), t, tc.tool, tc.args)
		scrapertest.CheckArgError(t, err, tc.arg, tc.tool.Name+" "+tc.args)
		if len(out.Items) != 0 {
			t.Errorf("%s: items", tc.args)
		}
	}
	if r := s.requests.WithPrefix("/"); len(r) != 0 {
		t.Errorf("bad arguments made requests: %v", r)
	}
}

func TestScrapeSearchPagesToMaxItems(t *testing.T) {
	s := newStandIn(t)
	s.maxPage, s.perPage = 5, 10
	err, out, items := run(context.Background(), t, s.scrape, `{"search_terms":["whole milk"],"max_items":25}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 25 || out.Partial {
		t.Fatalf("%d items (partial %v), want 25", len(items), out.Partial)
	}
	want := []string{"/search?q=whole+milk&page=1", "/search?q=whole+milk&page=2", "/search?q=whole+milk&page=3"}
	if got := s.requests.WithPrefix("/search"); !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	for i, it := range items {
		id := it["id"].(string)
		if it["url"] != "https://www.walmart.com/ip/Thing-"+id+"/"+id || it["position"] != float64(i+1) || it["search_term"] != "whole milk" {
			t.Errorf("item %d: %v", i, it)
		}
		if it["price"] == nil || it["currency"] != "USD" || it["rating"] != 4.5 || it["seller"] != "Walmart.com" || it["availability"] != "In stock" || it["image"] == nil || it["name"] == nil {
			t.Errorf("item %d: %v", i, it)
		}
	}
	if items[0]["sponsored"] != true || items[1]["sponsored"] != false {
		t.Errorf("sponsored %v %v", items[0]["sponsored"], items[1]["sponsored"])
	}
}

func TestScrapeSearchStopsAtMaxPage(t *testing.T) {
	s := newStandIn(t)
	s.maxPage, s.perPage = 2, 4
	err, _, items := run(context.Background(), t, s.scrape, `{"search_terms":["a","b"],"max_items":100}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 16 || len(s.requests.WithPrefix("/search")) != 4 {
		t.Errorf("%d items, %d requests; want 16 and 4", len(items), len(s.requests.WithPrefix("/search")))
	}
}

func TestScrapeProductURLs(t *testing.T) {
	s := newStandIn(t)
	real, _ := scrapertest.ReadFixture("walmart/product-page.html")
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case strings.HasSuffix(r.URL.Path, "/10450114") && real != nil:
			w.Write(real)
			return true
		case strings.HasSuffix(r.URL.Path, "/999"):
			http.NotFound(w, r)
			return true
		}
		return false
	}
	urls := []string{
		"https://www.walmart.com/ip/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz/10450114",
		"https://walmart.com/ip/777?athbdg=L1600",
		"https://www.walmart.com/ip/Gone/999",
	}
	err, out, items := run(context.Background(), t, s.scrape, `{"urls":["`+strings.Join(urls, `","`)+`"]}`)
	if err != nil {
		t.Fatal(err)
	}
	ok, failed := scrapertest.Succeeded(items), scrapertest.Failed(items)
	if len(ok) != 2 || len(failed) != 1 || !out.Partial {
		t.Fatalf("%d good, %d failed, partial %v: %v", len(ok), len(failed), out.Partial, items)
	}
	if failed[0]["url"] != urls[2] || !strings.Contains(failed[0]["error"].(string), "404") {
		t.Errorf("failure %v", failed[0])
	}
	byURL := map[string]map[string]any{}
	for _, it := range ok {
		byURL[it["url"].(string)] = it
	}
	if it := byURL[urls[1]]; it == nil || it["id"] != "777" || it["name"] != "Product 777" || it["price"] != 9.97 || it["brand"] != "Acme" || it["description"] != "A **fine** thing." {
		t.Errorf("generated product %v", it)
	}
	if h, _ := byURL[urls[1]]["highlights"].([]any); len(h) != 1 {
		t.Errorf("highlights %v", byURL[urls[1]]["highlights"])
	}
	milk := byURL[urls[0]]
	if real != nil && (milk["name"] != "Great Value Whole Vitamin D Milk, Gallon, 128 fl oz" || milk["price"] != 3.74) {
		t.Errorf("real product page through the stand-in: %v", milk)
	}
	if len(s.requests.WithPrefix("/ip/777?athbdg=L1600")) != 1 {
		t.Errorf("path and query not kept: %v", s.requests.WithPrefix("/"))
	}
}

func TestBlocked(t *testing.T) {
	robot := scrapertest.Testdata(t, "robot.html")
	for _, tc := range []struct {
		name, args string
		reviews    bool
		redirect   bool
	}{
		{"robot page on search", `{"search_terms":["milk"]}`, false, false},
		{"redirect to /blocked on search", `{"search_terms":["milk"]}`, false, true},
		{"robot page on a product", `{"urls":["https://www.walmart.com/ip/1"]}`, false, false},
		{"robot page on reviews", `{"item_ids":["1","2"]}`, true, false},
		{"redirect to /blocked on reviews", `{"urls":["https://www.walmart.com/ip/x/1"]}`, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t)
			s.hook = func(w http.ResponseWriter, r *http.Request) bool {
				if tc.redirect && r.URL.Path != "/blocked" {
					http.Redirect(w, r, "/blocked?url="+r.URL.Path, http.StatusTemporaryRedirect)
					return true
				}
				w.Write(robot)
				return true
			}
			tool := s.scrape
			if tc.reviews {
				tool = s.reviews
			}
			err, _, items := run(context.Background(), t, tool, tc.args)
			var be *scrapers.BlockedError
			if !errors.As(err, &be) || be.Site != "Walmart" || be.Kind != scrapers.BlockRobotCheck {
				t.Fatalf("err = %v, want Walmart's robot check", err)
			}
			if !strings.Contains(err.Error(), "Walmart blocked the request with a robot check") {
				t.Errorf("message %q", err)
			}
			if len(scrapertest.Succeeded(items)) != 0 {
				t.Errorf("items %v", items)
			}
		})
	}
}

func TestBlockedAfterSomeResults(t *testing.T) {
	s := newStandIn(t)
	s.maxPage, s.perPage = 5, 5
	robot := scrapertest.Testdata(t, "robot.html")
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "2" {
			w.Write(robot)
			return true
		}
		return false
	}
	err, out, items := run(context.Background(), t, s.scrape, `{"search_terms":["a","b"],"max_items":20}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(scrapertest.Succeeded(items)) != 5 || !out.Partial {
		t.Errorf("%d results, partial %v", len(scrapertest.Succeeded(items)), out.Partial)
	}
	if f := scrapertest.Failed(items); len(f) != 1 || !strings.Contains(f[0]["error"].(string), "robot check") {
		t.Errorf("failures %v", f)
	}
	if r := s.requests.WithPrefix("/search?q=b"); len(r) != 0 {
		t.Errorf("went on after the block: %v", r)
	}
}

func TestSearchDeadlineGivesPartialResult(t *testing.T) {
	s := newStandIn(t)
	s.maxPage, s.perPage = 3, 6
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "2" {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return true
		}
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err, out, items := run(ctx, t, s.scrape, `{"search_terms":["x"],"max_items":18}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("returned %v after the deadline", time.Since(start))
	}
	if len(items) != 6 || !out.Partial {
		t.Errorf("%d items (partial %v), want page 1's 6", len(items), out.Partial)
	}
}

func TestSearchPageWithoutData(t *testing.T) {
	s := newStandIn(t)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		fmt.Fprint(w, `<html><body>a new kind of page</body></html>`)
		return true
	}
	err, _, items := run(context.Background(), t, s.scrape, `{"search_terms":["x"]}`)
	if err == nil || !strings.Contains(err.Error(), "__NEXT_DATA__") {
		t.Errorf("err = %v, want one saying the page has no data", err)
	}
	if f := scrapertest.Failed(items); len(f) != 1 || !strings.Contains(f[0]["url"].(string), "/search?q=x&page=1") {
		t.Errorf("failures %v", f)
	}
}

func TestSiteDown(t *testing.T) {
	s := newStandIn(t)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "bad gateway", http.StatusBadGateway)
		return true
	}
	err, _, _ := run(context.Background(), t, s.reviews, `{"item_ids":["1"]}`)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != http.StatusBadGateway || !strings.Contains(err.Error(), "Walmart") {
		t.Errorf("err = %v", err)
	}
}

func TestReviewsPagesToMaxReviews(t *testing.T) {
	s := newStandIn(t)
	err, out, items := run(context.Background(), t, s.reviews, `{"item_ids":["4242"],"max_reviews":25,"sort_by":"submission-desc"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 25 || out.Partial {
		t.Fatalf("%d reviews (partial %v), want 25", len(items), out.Partial)
	}
	want := []string{
		"/reviews/product/4242?sort=submission-desc&page=1",
		"/reviews/product/4242?sort=submission-desc&page=2",
		"/reviews/product/4242?sort=submission-desc&page=3",
	}
	if got := s.requests.WithPrefix("/reviews"); !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	seen := map[string]bool{}
	for i, it := range items {
		id := it["review_id"].(string)
		if seen[id] || id != fmt.Sprintf("4242-%d", i+1) {
			t.Errorf("review %d id %s", i, id)
		}
		seen[id] = true
		if it["item_id"] != "4242" || it["url"] != "https://www.walmart.com/reviews/product/4242" || it["date"] != "2024-01-02" ||
			it["rating"] == nil || it["author"] == nil || it["helpful_votes"] != float64(i+1) || !strings.Contains(it["text"].(string), "sorted by submission-desc") {
			t.Errorf("review %d: %v", i, it)
		}
	}
}

func TestReviewsStopAtLastPageAndMergeInputs(t *testing.T) {
	s := newStandIn(t)
	s.reviewCount = func(id string) int {
		switch id {
		case "111":
			return 23
		case "333":
			return 0
		}
		return 4
	}
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/reviews/product/404") {
			http.NotFound(w, r)
			return true
		}
		return false
	}
	err, out, items := run(context.Background(), t, s.reviews,
		`{"urls":["https://www.walmart.com/ip/Thing/111","https://www.walmart.com/reviews/product/222"],"item_ids":["111"," 333","404"],"max_reviews":500}`)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, it := range scrapertest.Succeeded(items) {
		count[it["item_id"].(string)]++
	}
	if count["111"] != 23 || count["222"] != 4 || count["333"] != 0 || len(count) != 2 {
		t.Errorf("reviews per item %v, want 111:23 222:4", count)
	}
	if f := scrapertest.Failed(items); len(f) != 1 || !strings.Contains(f[0]["url"].(string), "/reviews/product/404") || !out.Partial {
		t.Errorf("failures %v (partial %v)", f, out.Partial)
	}
	if got := len(s.requests.WithPrefix("/reviews/product/111")); got != 3 {
		t.Errorf("%d requests for 111 (23 reviews, 10 a page), want 3", got)
	}
	if got := len(s.requests.WithPrefix("/reviews/product/333")); got != 1 {
		t.Errorf("%d requests for an item without reviews", got)
	}
	if got := s.requests.WithPrefix("/reviews/product/111?sort=relevancy"); len(got) != 3 {
		t.Errorf("default sort not sent: %v", s.requests.WithPrefix("/reviews"))
	}
}

func TestReviewsCancel(t *testing.T) {
	s := newStandIn(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "2" {
			cancel(scrapers.ErrCancelled)
			<-r.Context().Done()
			return true
		}
		return false
	}
	err, _, items := run(ctx, t, s.reviews, `{"item_ids":["5"],"max_reviews":100}`)
	if !errors.Is(err, scrapers.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(items) != 10 {
		t.Errorf("%d reviews, want page 1's 10", len(items))
	}
	time.Sleep(50 * time.Millisecond)
	if got := len(s.requests.WithPrefix("/reviews")); got != 2 {
		t.Errorf("%d requests, want 2 (none after the cancel)", got)
	}
}

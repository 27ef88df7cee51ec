package amazon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestToolShape(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "amazon" || len(p.Tools) != 1 {
		t.Fatalf("plugin %q with %d tools", p.ID, len(p.Tools))
	}
	tool := p.Tools[0]
	if tool.Name != "scrape" || tool.Title != "Scrape Amazon" || tool.Description == "" {
		t.Errorf("tool %q %q", tool.Name, tool.Title)
	}
	props := tool.InputSchema.Properties
	for _, name := range []string{"urls", "search_terms", "max_items", "domain", "include_details"} {
		if props[name] == nil {
			t.Errorf("schema lacks %s", name)
		}
	}
	if m := props["max_items"]; m == nil || m.Minimum == nil || *m.Minimum != 1 || m.Maximum == nil || *m.Maximum != 100 || string(m.Default) != "10" {
		t.Errorf("max_items schema: %+v", m)
	}
	if d := props["domain"]; d == nil || d.Pattern != `^(?:www\.)?amazon\.[a-z.]+$` || string(d.Default) != `"amazon.com"` {
		t.Errorf("domain schema: %+v", d)
	}
	if u := props["urls"]; u == nil || u.MaxItems == nil || *u.MaxItems != 20 {
		t.Errorf("urls schema: %+v", u)
	}
	if len(tool.InputSchema.Required) != 0 {
		t.Errorf("required = %v, want none", tool.InputSchema.Required)
	}
}

func TestBadBaseURL(t *testing.T) {
	_, err := New(scrapertest.Env(map[string]string{"AMAZON_BASE_URL": "not a url"}))
	if err == nil || !strings.Contains(err.Error(), "AMAZON_BASE_URL") {
		t.Errorf("err = %v, want one naming AMAZON_BASE_URL", err)
	}
}

func TestScrapeBadArguments(t *testing.T) {
	s := newStandIn(t)
	many := `"` + strings.Repeat(`https://www.amazon.com/dp/B000000001","`, 20) + `https://www.amazon.com/dp/B000000001"`
	for _, tc := range []struct{ args, arg string }{
		{`{}`, "urls"},
		{`{"urls":[],"search_terms":[]}`, "urls"},
		{`{"search_terms":["x"],"domain":"ebay.com"}`, "domain"},
		{`{"search_terms":["x"],"domain":"amazon..com"}`, "domain"},
		{`{"search_terms":["x"],"domain":"amazon.com."}`, "domain"},
		{`{"search_terms":["x"],"domain":"https://amazon.com"}`, "domain"},
		{`{"search_terms":["x"],"domain":"www.amazon.com/evil"}`, "domain"},
		{`{"search_terms":["x"],"domain":"amazon.evil.com"}`, "domain"},
		{`{"urls":["https://amazon.evil.com/dp/B000000001"]}`, "urls"},
		{`{"search_terms":["x"],"max_items":0}`, "max_items"},
		{`{"search_terms":["x"],"max_items":101}`, "max_items"},
		{`{"search_terms":["x"],"max_items":"ten"}`, "max_items"},
		{`{"search_terms":["x", " "]}`, "search_terms"},
		{`{"search_terms":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"]}`, "search_terms"},
		{`{"urls":[` + many + `]}`, "urls"},
		{`{"urls":["https://www.amazon.com/s?k=laptop"]}`, "urls"},
		{`{"urls":["https://www.evil.com/dp/B000000001"]}`, "urls"},
		{`{"urls":["file:///etc/passwd"]}`, "urls"},
		{`{"search_terms":["x"],"include_details":"yes"}`, "include_details"},
		{`{"search_terms":["x"],"pages":3}`, "pages"},
		{`[1]`, "arguments"},
	} {
		err, out, _ := s.run(context.Background(), t, tc.args)
		scrapertest.CheckArgError(t, err, tc.arg, tc.args)
		if len(out.Items) != 0 {
			t.Errorf("%s: %d items", tc.args, len(out.Items))
		}
	}
	if got := s.requests.WithPrefix("/"); len(got) != 0 {
		t.Errorf("bad arguments made requests: %v", got)
	}
}

func TestScrapeSearchPagesToMaxItems(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 5, 16
	err, out, items := s.run(context.Background(), t, `{"search_terms":["usb cable"],"max_items":40}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 40 || out.Partial {
		t.Fatalf("%d items (partial %v), want 40", len(items), out.Partial)
	}
	pages := s.requests.WithPrefix("/s?")
	want := []string{"/s?k=usb+cable&page=1", "/s?k=usb+cable&page=2", "/s?k=usb+cable&page=3"}
	if strings.Join(pages, " ") != strings.Join(want, " ") {
		t.Errorf("requests %v, want %v", pages, want)
	}
	seen := map[string]bool{}
	for i, it := range items {
		asin, _ := it["asin"].(string)
		if seen[asin] {
			t.Errorf("duplicate %s", asin)
		}
		seen[asin] = true
		if it["url"] != "https://www.amazon.com/dp/"+asin {
			t.Errorf("item %d url %v", i, it["url"])
		}
		if it["position"] != float64(i+1) || it["search_term"] != "usb cable" {
			t.Errorf("item %d position %v term %v", i, it["position"], it["search_term"])
		}
		if it["price"] != 12.34 || it["currency"] != "USD" || it["review_count"] == nil || it["rating"] == nil || it["name"] == "" {
			t.Errorf("item %d: %v", i, it)
		}
		if _, ok := it["availability"]; ok {
			t.Errorf("item %d has product details without include_details", i)
		}
	}
	if items[0]["sponsored"] != true || items[1]["sponsored"] != false {
		t.Errorf("sponsored flags %v %v", items[0]["sponsored"], items[1]["sponsored"])
	}
	if len(s.requests.WithPrefix("/dp/")) != 0 {
		t.Error("product pages were fetched without include_details")
	}
}

func TestScrapeSearchStopsAtLastPage(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 2, 5
	err, _, items := s.run(context.Background(), t, `{"search_terms":["a","b"],"max_items":100}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 20 {
		t.Errorf("%d items, want 2 terms × 2 pages × 5", len(items))
	}
	if got := len(s.requests.WithPrefix("/s?")); got != 4 {
		t.Errorf("%d search requests, want 4: %v", got, s.requests.WithPrefix("/s?"))
	}
}

func TestScrapeOtherDomain(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage, s.price = 1, 3, "12,99 €"
	err, _, items := s.run(context.Background(), t, `{"search_terms":["kabel"],"domain":"www.amazon.de"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("%d items", len(items))
	}
	for _, it := range items {
		if !strings.HasPrefix(it["url"].(string), "https://www.amazon.de/dp/") || it["price"] != 12.99 || it["currency"] != "EUR" {
			t.Errorf("item %v", it)
		}
	}
}

func TestScrapeIncludeDetails(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 2, 4
	err, out, items := s.run(context.Background(), t, `{"search_terms":["headphones"],"max_items":6,"include_details":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 || out.Partial {
		t.Fatalf("%d items (partial %v, %v), want 6", len(items), out.Partial, out.Reasons)
	}
	if got := len(s.requests.WithPrefix("/dp/")); got != 6 {
		t.Errorf("%d product pages fetched, want 6", got)
	}
	for _, it := range items {
		asin := it["asin"].(string)
		if it["url"] != "https://www.amazon.com/dp/"+asin {
			t.Errorf("url %v", it["url"])
		}
		if !strings.HasPrefix(it["name"].(string), "Product "+asin) {
			t.Errorf("title %v: the product page's title was not merged", it["name"])
		}
		if it["availability"] != "In Stock" || it["brand"] != "Sony" || it["price"] != 322.0 || it["position"] == nil || it["sponsored"] == nil {
			t.Errorf("merged item %v", it)
		}
		if bullets, _ := it["feature_bullets"].([]any); len(bullets) != 3 {
			t.Errorf("feature_bullets %v", it["feature_bullets"])
		}
		if d, _ := it["details"].(map[string]any); d["ASIN"] != asin {
			t.Errorf("details %v", it["details"])
		}
	}
}

func TestScrapeIncludeDetailsOnePageFails(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 1, 3
	bad := cardASIN(1, 2)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/dp/"+bad {
			http.Error(w, "oops", http.StatusInternalServerError)
			return true
		}
		return false
	}
	err, out, items := s.run(context.Background(), t, `{"search_terms":["x"],"include_details":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || !out.Partial {
		t.Fatalf("%d items, partial %v", len(items), out.Partial)
	}
	for _, it := range items {
		if it["asin"] == bad {
			if e, _ := it["details_error"].(string); !strings.Contains(e, "500") || it["availability"] != nil {
				t.Errorf("failed card %v", it)
			}
		} else if it["availability"] != "In Stock" || it["details_error"] != nil {
			t.Errorf("card %v", it)
		}
	}
}

func TestScrapeProductURLsAnyDomain(t *testing.T) {
	s := newStandIn(t)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "B00MISSING") {
			http.NotFound(w, r)
			return true
		}
		return false
	}
	urls := []string{
		"https://www.amazon.com/dp/B000000011",
		"https://www.amazon.co.jp/Some-Thing/dp/B000000012/ref=x?th=1",
		"https://amazon.in/gp/product/B000000013",
		"https://www.amazon.de/dp/B00MISSING",
	}
	err, out, items := s.run(context.Background(), t, `{"urls":["`+strings.Join(urls, `","`)+`"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Partial {
		t.Error("a failed url should mark the result partial")
	}
	ok, failed := scrapertest.Succeeded(items), scrapertest.Failed(items)
	if len(ok) != 3 || len(failed) != 1 {
		t.Fatalf("%d good, %d failed; want 3 and 1: %v", len(ok), len(failed), items)
	}
	if failed[0]["url"] != urls[3] || !strings.Contains(failed[0]["error"].(string), "404") {
		t.Errorf("failed item %v", failed[0])
	}
	byURL := map[string]map[string]any{}
	for _, it := range ok {
		byURL[it["url"].(string)] = it
	}
	for i, u := range urls[:3] {
		it := byURL[u]
		if it == nil {
			t.Errorf("no item for %s", u)
			continue
		}
		if want := fmt.Sprintf("B0000000%d", 11+i); it["asin"] != want {
			t.Errorf("%s: asin %v", u, it["asin"])
		}
	}
	if byURL[urls[1]]["currency"] != "USD" {
		// the stand-in's page prints "$": a dollar sign on amazon.co.jp is still dollars
		t.Errorf("currency %v", byURL[urls[1]]["currency"])
	}
	// every request reached the stand-in, path and query kept
	for _, want := range []string{"/dp/B000000011", "/Some-Thing/dp/B000000012/ref=x?th=1", "/gp/product/B000000013", "/dp/B00MISSING"} {
		if len(s.requests.WithPrefix(want)) != 1 {
			t.Errorf("no request for %s: %v", want, s.requests.WithPrefix("/"))
		}
	}
}

func serveFile(t *testing.T, status int, name string) func(http.ResponseWriter) {
	body := scrapertest.Testdata(t, name)
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		w.Write(body)
	}
}

func TestScrapeBlocked(t *testing.T) {
	captcha := serveFile(t, http.StatusOK, "captcha.html")
	dogs := serveFile(t, http.StatusServiceUnavailable, "dogs-503.html")
	for _, tc := range []struct {
		name, args string
		page       func(http.ResponseWriter)
		kind       string
	}{
		{"captcha on search", `{"search_terms":["x"]}`, captcha, scrapers.BlockCaptcha},
		{"dogs on search", `{"search_terms":["x"]}`, dogs, scrapers.BlockRateLimited},
		{"captcha on product", `{"urls":["https://www.amazon.co.uk/dp/B000000001","https://www.amazon.co.uk/dp/B000000002"]}`, captcha, scrapers.BlockCaptcha},
		{"captcha on details", `{"search_terms":["x"],"include_details":true}`, captcha, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t)
			s.pages, s.perPage = 1, 2
			s.hook = func(w http.ResponseWriter, r *http.Request) bool {
				if tc.kind == "" && r.URL.Path == "/s" {
					return false // search works, product pages are blocked
				}
				tc.page(w)
				return true
			}
			err, out, items := s.run(context.Background(), t, tc.args)
			if tc.kind != "" {
				var be *scrapers.BlockedError
				if !errors.As(err, &be) || be.Kind != tc.kind || be.Site != "Amazon" {
					t.Fatalf("err = %v, want Amazon blocked with a %s", err, tc.kind)
				}
				if !strings.Contains(err.Error(), "Amazon") || !strings.Contains(err.Error(), tc.kind) {
					t.Errorf("message %q does not name the site and the block", err)
				}
				if len(scrapertest.Succeeded(items)) != 0 {
					t.Errorf("items %v", items)
				}
				return
			}
			// the cards are still results, the block is reported beside them
			if err != nil {
				t.Fatal(err)
			}
			if len(scrapertest.Succeeded(items)) != 2 || !out.Partial {
				t.Errorf("%d results, partial %v", len(scrapertest.Succeeded(items)), out.Partial)
			}
			f := scrapertest.Failed(items)
			if len(f) != 1 || !strings.Contains(f[0]["error"].(string), "captcha") {
				t.Errorf("failures %v", f)
			}
			for _, it := range scrapertest.Succeeded(items) {
				if e, _ := it["details_error"].(string); !strings.Contains(e, "captcha") {
					t.Errorf("details_error %v", it["details_error"])
				}
			}
		})
	}
}

func TestScrapeBlockedAfterSomeResults(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 4, 5
	captcha := serveFile(t, http.StatusOK, "captcha.html")
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "2" {
			captcha(w)
			return true
		}
		return false
	}
	err, out, items := s.run(context.Background(), t, `{"search_terms":["x","y"],"max_items":20}`)
	if err != nil {
		t.Fatalf("err = %v; results before the block should be returned", err)
	}
	if len(scrapertest.Succeeded(items)) != 5 || !out.Partial {
		t.Errorf("%d results (partial %v), want page 1 of the first term", len(scrapertest.Succeeded(items)), out.Partial)
	}
	if f := scrapertest.Failed(items); len(f) != 1 || !strings.Contains(f[0]["error"].(string), "Amazon blocked") || !strings.Contains(f[0]["url"].(string), "page=2") {
		t.Errorf("failures %v", f)
	}
	if got := s.requests.WithPrefix("/s?k=y"); len(got) != 0 {
		t.Errorf("kept searching after the block: %v", got)
	}
}

func TestScrapeDeadlineGivesPartialResult(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 3, 5
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "2" {
			select { // the site hangs
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
	err, out, items := s.run(ctx, t, `{"search_terms":["x"],"max_items":15}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("took %v after the deadline", time.Since(start))
	}
	if len(items) != 5 || !out.Partial {
		t.Errorf("%d items (partial %v), want page 1's 5", len(items), out.Partial)
	}
}

func TestScrapeCancelStopsRequests(t *testing.T) {
	s := newStandIn(t)
	s.pages, s.perPage = 1, 8
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/dp/") {
			cancel(scrapers.ErrCancelled)
			<-r.Context().Done()
			return true
		}
		return false
	}
	err, _, items := s.run(ctx, t, `{"search_terms":["x"],"include_details":true}`)
	if !errors.Is(err, scrapers.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancel and its cause", err)
	}
	if got := len(s.requests.WithPrefix("/dp/")); got > workers {
		t.Errorf("%d product pages requested after the cancel, at most %d were in flight", got, workers)
	}
	for _, it := range items {
		if it["details_error"] == nil {
			t.Errorf("card %v has neither details nor details_error", it)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if got := len(s.requests.WithPrefix("/dp/")); got > workers {
		t.Errorf("requests went on after the call returned: %d", got)
	}
}

func TestScrapeSiteDown(t *testing.T) {
	s := newStandIn(t)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "down", http.StatusBadGateway)
		return true
	}
	err, _, items := s.run(context.Background(), t, `{"search_terms":["x"]}`)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != http.StatusBadGateway || !strings.Contains(err.Error(), "Amazon") {
		t.Fatalf("err = %v, want a site error naming Amazon and 502", err)
	}
	if len(scrapertest.Succeeded(items)) != 0 {
		t.Errorf("items %v", items)
	}
}

func TestScrapeLayoutChanged(t *testing.T) {
	s := newStandIn(t)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		fmt.Fprint(w, `<html><body><div id="new-layout">results live here now</div></body></html>`)
		return true
	}
	err, _, _ := s.run(context.Background(), t, `{"search_terms":["x"]}`)
	if err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("err = %v, want one saying the layout changed", err)
	}
}

func TestScrapeNoResults(t *testing.T) {
	s := newStandIn(t)
	s.pages = 0
	err, out, items := s.run(context.Background(), t, `{"search_terms":["qwzxqwzx"]}`)
	if err != nil || len(items) != 0 || out.Partial {
		t.Errorf("err %v, %d items, partial %v: a search with no results is an empty answer", err, len(items), out.Partial)
	}
}

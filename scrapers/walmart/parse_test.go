package walmart

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseProductRealPage(t *testing.T) {
	p, err := parseProduct(scrapertest.Fixture(t, "walmart/product-page.html"), "https://www.walmart.com/ip/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz/10450114")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"url", p.URL, "https://www.walmart.com/ip/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz/10450114"},
		{"id", p.ID, "10450114"},
		{"name", p.Name, "Great Value Whole Vitamin D Milk, Gallon, 128 fl oz"},
		{"brand", p.Brand, "Great Value"},
		{"price", deref(p.Price), 3.74},
		{"currency", p.Currency, "USD"},
		{"availability", p.Availability, "In stock"},
		{"seller", p.Seller, "Walmart.com"},
		{"rating", deref(p.Rating), 2.9},
		{"review_count", deref(p.ReviewCount), 5153},
		{"upc", p.UPC, "078742351865"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if len(p.Images) < 2 || !strings.HasPrefix(p.Images[0], "https://i5.walmartimages.com/") || p.Image == "" {
		t.Errorf("images %q, image %q", p.Images, p.Image)
	}
	if want := []string{"Food", "Dairy & Eggs", "Milk", "Dairy Milk", "Whole Milk"}; !reflect.DeepEqual(p.Breadcrumbs, want) {
		t.Errorf("breadcrumbs %q", p.Breadcrumbs)
	}
	var brand string
	for _, s := range p.Specifications {
		if s.Name == "Brand" {
			brand = s.Value
		}
	}
	if len(p.Specifications) < 3 || brand != "Great Value" {
		t.Errorf("specifications %v", p.Specifications)
	}
	if !strings.Contains(p.Description, "- Added vitamin D") || strings.Contains(p.Description, "<li>") {
		t.Errorf("description is not Markdown: %q", p.Description)
	}
	if !strings.HasPrefix(p.ShortDescription, "Enjoy the wholesome goodness") {
		t.Errorf("short_description %q", p.ShortDescription)
	}
	if p.Highlights != nil {
		t.Errorf("highlights %v: the page has none", p.Highlights)
	}
}

func TestParseProductShapes(t *testing.T) {
	page := func(data string) []byte {
		return []byte(`<html><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"initialData":{"data":` + data + `}}}}</script></html>`)
	}
	p, err := parseProduct(page(`{"product":{"usItemId":"5","name":"Thing","priceInfo":{"currentPrice":{"priceString":"$1,299.00"},"wasPrice":{"price":1499}},"availabilityStatus":"LIMITED_STOCK","sellerName":"Acme"},
		"idml":{"productHighlights":[{"name":"Color","value":"Red","iconURL":"x"},"Just text",{"name":"Size","text":"L"},{}],"shortDescription":"<p>Short <b>one</b></p>"},
		"reviews":{"roundedAverageOverallRating":4.5,"totalReviewCount":"77"}}`), "https://www.walmart.com/ip/5")
	if err != nil {
		t.Fatal(err)
	}
	if deref(p.Price) != 1299.0 || deref(p.ListPrice) != 1499.0 || p.Currency != "USD" || p.Availability != "Limited stock" || p.Seller != "Acme" ||
		deref(p.Rating) != 4.5 || deref(p.ReviewCount) != 77 || p.ShortDescription != "Short **one**" {
		b, _ := json.Marshal(p)
		t.Errorf("product %s", b)
	}
	if want := []Spec{{"Color", "Red"}, {"", "Just text"}, {"Size", "L"}}; !reflect.DeepEqual(p.Highlights, want) {
		t.Errorf("highlights %v, want %v", p.Highlights, want)
	}
	for _, bad := range []string{`{}`, `{"product":null}`, `{"product":"x"}`, `{"product":{"name":"no price info, no id"}}`, `[]`} {
		if _, err := parseProduct(page(bad), "u"); err == nil {
			t.Errorf("%s parsed as a product", bad)
		}
	}
	if _, err := parseProduct([]byte(`<html>no data</html>`), "u"); err != errNoData {
		t.Errorf("err = %v, want errNoData", err)
	}
}

func TestParseSearchPage(t *testing.T) {
	page, err := parseSearch(scrapertest.Testdata(t, "search.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !page.Results || page.MaxPage != 25 || len(page.Items) != 3 {
		t.Fatalf("results %v, max page %d, %d items; want true, 25, 3 (the ad tile and the tile without an id skipped)", page.Results, page.MaxPage, len(page.Items))
	}
	milk := page.Items[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"id", milk.ID, "10450114"},
		{"product_id", milk.ProductID, "3H34WSS08ANB"},
		{"url", milk.URL, "https://www.walmart.com/ip/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz/10450114"},
		{"name", milk.Name, "Great Value Whole Vitamin D Milk, Gallon, 128 fl oz"},
		{"price", deref(milk.Price), 3.74},
		{"currency", milk.Currency, "USD"},
		{"rating", deref(milk.Rating), 2.9},
		{"review_count", deref(milk.ReviewCount), 5153},
		{"image", milk.Image, "https://i5.walmartimages.com/seo/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz_bb4d3810.jpeg"},
		{"seller", milk.Seller, "Walmart.com"},
		{"availability", milk.Availability, "In stock"},
		{"sponsored", deref(milk.Sponsored), false},
		{"list_price", milk.ListPrice, (*float64)(nil)},
		{"ad sponsored", deref(page.Items[1].Sponsored), true},
		{"ad list_price", deref(page.Items[1].ListPrice), 5.48},
		{"ad url", page.Items[1].URL, "https://www.walmart.com/ip/fairlife-Lactose-Free-2-Reduced-Fat-Ultra-Filtered-Milk-52-fl-oz/656712366"},
		{"no price", page.Items[2].Price, (*float64)(nil)},
		{"no price currency", page.Items[2].Currency, ""},
		{"no rating", page.Items[2].Rating, (*float64)(nil)},
		{"out of stock", page.Items[2].Availability, "Out of stock"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestParseSearchAppData(t *testing.T) {
	page, err := parseSearch(scrapertest.Testdata(t, "search-appdata.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.MaxPage != 1 {
		t.Fatalf("%+v", page)
	}
	it := page.Items[0]
	if it.ID != "44391605" || deref(it.Price) != 3.68 || deref(it.Rating) != 4.4 || deref(it.ReviewCount) != 1203 ||
		it.Availability != "In stock" || it.Image != "https://i5.walmartimages.com/asr/2percent.jpeg" ||
		it.URL != "https://www.walmart.com/ip/Great-Value-2-Reduced-Fat-Milk-1-Gallon-128-Fl-Oz/44391605" {
		b, _ := json.Marshal(it)
		t.Errorf("item %s", b)
	}
}

func TestParseSearchNotSearch(t *testing.T) {
	page, err := parseSearch(scrapertest.Fixture(t, "walmart/product-page.html"))
	if err != nil || page.Results || len(page.Items) != 0 {
		t.Errorf("a product page read as search: %+v, %v", page, err)
	}
	if _, err := parseSearch([]byte("<html></html>")); err != errNoData {
		t.Errorf("err = %v", err)
	}
}

func TestParseReviews(t *testing.T) {
	page, err := parseReviews(scrapertest.Testdata(t, "reviews.html"), "10450114", "https://www.walmart.com/reviews/product/10450114")
	if err != nil {
		t.Fatal(err)
	}
	if !page.Results || !page.Paged || page.LastPage != 3 || !page.HasNext || deref(page.Total) != 5153 {
		t.Errorf("page %+v", page)
	}
	if len(page.Reviews) != 3 {
		t.Fatalf("%d reviews, want 3 (one empty skipped)", len(page.Reviews))
	}
	r := page.Reviews[0]
	want := Review{
		URL: "https://www.walmart.com/reviews/product/10450114", ItemID: "10450114", ReviewID: "292593328",
		Title: "The milk really taste good.", Text: "This milk really tastes good. My children love it.",
		Rating: ptr(5.0), Author: "Good", Date: "2022-11-21", HelpfulVotes: ptr(11), UnhelpfulVotes: ptr(2), VerifiedPurchase: true,
	}
	if !reflect.DeepEqual(r, want) {
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(want)
		t.Errorf("review\n got %s\nwant %s", a, b)
	}
	r = page.Reviews[1]
	if r.Date != "2023-02-03" || r.VerifiedPurchase || len(r.Photos) != 1 || r.Response != "We're sorry to hear this. Please contact us." || r.Title != "" {
		b, _ := json.Marshal(r)
		t.Errorf("review with photo and response: %s", b)
	}
	r = page.Reviews[2]
	if r.Date != "recently" || r.HelpfulVotes != nil || r.Author != "" || deref(r.Rating) != 4.0 {
		b, _ := json.Marshal(r)
		t.Errorf("sparse review: %s", b)
	}
}

func TestParseReviewsFromProductPage(t *testing.T) {
	// a product page carries a few reviews in the same shape
	page, err := parseReviews(scrapertest.Fixture(t, "walmart/product-page.html"), "10450114", "u")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Reviews) == 0 || page.Reviews[0].ReviewID == "" || page.Reviews[0].Rating == nil {
		t.Errorf("reviews %+v", page.Reviews)
	}
}

func TestProductURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		reviews bool
		id      string
	}{
		{"https://www.walmart.com/ip/Great-Value-Whole-Vitamin-D-Milk-Gallon-128-fl-oz/10450114", false, "10450114"},
		{"https://walmart.com/ip/10450114?athbdg=L1600#x", false, "10450114"},
		{"https://www.walmart.com/ip/seort/Some-Name/656712366/", false, "656712366"},
		{"https://www.walmart.com/reviews/product/10450114", false, ""},
		{"https://www.walmart.com/reviews/product/10450114", true, "10450114"},
		{"https://www.walmart.com/search?q=milk", true, ""},
		{"https://www.walmart.ca/ip/10450114", false, ""},
		{"https://www.walmart.com.evil.com/ip/10450114", false, ""},
		{"https://www.walmart.com/ip/Name-Only", false, ""},
		{"javascript:alert(1)", false, ""},
	} {
		_, id, ok := productURL(tc.in, tc.reviews)
		if id != tc.id || ok != (tc.id != "") {
			t.Errorf("productURL(%q, %v) = %q, %v; want %q", tc.in, tc.reviews, id, ok, tc.id)
		}
	}
}

func TestDetectBlock(t *testing.T) {
	blockedURL := mustParse("https://www.walmart.com/blocked?url=L3NlYXJjaD9xPW1pbGs=&uuid=b5e6c8a0")
	okURL := mustParse("https://www.walmart.com/search?q=milk")
	for _, tc := range []struct {
		name    string
		final   string
		body    []byte
		blocked bool
	}{
		{"robot page", okURL.String(), scrapertest.Testdata(t, "robot.html"), true},
		{"redirected to /blocked", blockedURL.String(), []byte("<html></html>"), true},
		{"search", okURL.String(), scrapertest.Testdata(t, "search.html"), false},
		{"reviews", okURL.String(), scrapertest.Testdata(t, "reviews.html"), false},
	} {
		r := &scrapers.Response{Request: &scrapers.Request{URL: "https://www.walmart.com/search?q=milk"}, URL: mustParse(tc.final), StatusCode: 200, Body: tc.body}
		be := detectBlock(r)
		if (be != nil) != tc.blocked {
			t.Errorf("%s: %v", tc.name, be)
		}
		if be != nil && (be.Site != "Walmart" || be.Kind != scrapers.BlockRobotCheck || be.URL != "https://www.walmart.com/search?q=milk") {
			t.Errorf("%s: %+v", tc.name, be)
		}
	}
	r := &scrapers.Response{Request: &scrapers.Request{URL: "x"}, URL: okURL, StatusCode: 200, Body: scrapertest.Fixture(t, "walmart/product-page.html")}
	if be := detectBlock(r); be != nil {
		t.Errorf("the real product page: %v", be)
	}
}

// FuzzParseData feeds the page readers arbitrary JSON inside
// __NEXT_DATA__: whatever its shape, they must not panic, and what they
// return must encode.
func FuzzParseData(f *testing.F) {
	for _, name := range []string{"search.html", "search-appdata.html", "reviews.html"} {
		for _, id := range []string{"__NEXT_DATA__", "__APP_DATA__"} {
			if raw, ok := scriptJSON(scrapertest.Testdata(f, name), id); ok {
				f.Add(string(raw))
			}
		}
	}
	if b, err := scrapertest.ReadFixture("walmart/product-page.html"); err == nil {
		raw, _ := scriptJSON(b, "__NEXT_DATA__")
		f.Add(string(raw))
	}
	f.Add(`{"searchResult":{"itemStacks":[{"items":[{"usItemId":"1","price":"NaN","priceInfo":{"wasPrice":[1]},"rating":[]}]}],"paginationV2":{"maxPage":1e300}}}`)
	f.Add(`{"data":{"product":{"usItemId":7,"priceInfo":{"currentPrice":{"price":-1}},"imageInfo":{"allImages":[null,1,{"url":2}]}},"idml":{"productHighlights":"x"}}}`)
	f.Fuzz(func(t *testing.T, data string) {
		page := []byte(`<script id="__NEXT_DATA__" type="application/json">` + data + `</script>`)
		if sp, err := parseSearch(page); err == nil {
			for _, it := range sp.Items {
				if !itemIDArg.MatchString(it.ID) || !strings.HasPrefix(it.URL, "https://www.walmart.com/") {
					t.Fatalf("bad item %+v", it)
				}
				if _, err := json.Marshal(it); err != nil {
					t.Fatal(err)
				}
			}
		}
		if p, err := parseProduct(page, "u"); err == nil {
			if _, err := json.Marshal(p); err != nil {
				t.Fatal(err)
			}
		}
		if rp, err := parseReviews(page, "1", "u"); err == nil {
			if _, err := json.Marshal(rp.Reviews); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func BenchmarkParseProduct(b *testing.B) {
	body := scrapertest.Fixture(b, "walmart/product-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseProduct(body, "https://www.walmart.com/ip/10450114"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScriptJSON(b *testing.B) {
	body := scrapertest.Fixture(b, "walmart/product-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, ok := scriptJSON(body, "__NEXT_DATA__"); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkParseReviewsProductPage(b *testing.B) {
	body := scrapertest.Fixture(b, "walmart/product-page.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if p, err := parseReviews(body, "10450114", "u"); err != nil || len(p.Reviews) == 0 {
			b.Fatal(err)
		}
	}
}

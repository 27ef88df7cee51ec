package amazon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseSearchRealSponsoredCard(t *testing.T) {
	page, err := parseSearch(scrapertest.Fixture(t, "amazon/search-card-sponsored-laptop_0.html"), "amazon.in")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Cards) != 1 {
		t.Fatalf("got %d cards, want 1", len(page.Cards))
	}
	c := page.Cards[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"asin", c.ASIN, "B0BQJ68HHC"},
		{"url", c.URL, "https://www.amazon.in/dp/B0BQJ68HHC"},
		{"price", deref(c.Price), 33990.0},
		{"currency", c.Currency, "INR"},
		{"list_price", deref(c.ListPrice), 61817.0},
		{"rating", deref(c.Rating), 3.7},
		{"review_count", deref(c.ReviewCount), 771},
		{"image", c.Image, "https://m.media-amazon.com/images/I/71TcPkUibVL._AC_UY218_.jpg"},
		{"sponsored", deref(c.Sponsored), true},
		{"prime", deref(c.Prime), false},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if !strings.HasPrefix(c.Name, "Dell [Smartchoice 15 Thin & Light Laptop, 12th Gen Intel Core i3-1215U") {
		t.Errorf("title = %q", c.Name)
	}
}

func TestParseSearchRealOrganicCard(t *testing.T) {
	page, err := parseSearch(scrapertest.Fixture(t, "amazon/search-card-organic-laptop_7.html"), "amazon.in")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Cards) != 1 {
		t.Fatalf("got %d cards, want 1", len(page.Cards))
	}
	c := page.Cards[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"asin", c.ASIN, "B08N5W4NNB"},
		{"url", c.URL, "https://www.amazon.in/dp/B08N5W4NNB"},
		{"price", deref(c.Price), 66990.0},
		{"currency", c.Currency, "INR"},
		{"list_price", deref(c.ListPrice), 92900.0},
		{"rating", deref(c.Rating), 4.6},
		{"review_count", deref(c.ReviewCount), 5086},
		{"image", c.Image, "https://m.media-amazon.com/images/I/71jG+e7roXL._AC_UY218_.jpg"},
		{"sponsored", deref(c.Sponsored), false},
		{"prime", deref(c.Prime), false},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	if !strings.HasPrefix(c.Name, "Apple MacBook Air Laptop M1 chip, 13.3-inch/33.74 cm Retina Display") || !strings.HasSuffix(c.Name, "Space Grey") {
		t.Errorf("title = %q", c.Name)
	}
	if page.HasNext {
		t.Error("a lone card has no next page")
	}
}

func TestParseSearchPage(t *testing.T) {
	page, err := parseSearch(scrapertest.Testdata(t, "search.html"), "amazon.com")
	if err != nil {
		t.Fatal(err)
	}
	if !page.Results || !page.HasNext || page.NoPager {
		t.Errorf("Results, HasNext, NoPager = %v, %v, %v; want true, true, false", page.Results, page.HasNext, page.NoPager)
	}
	var asins []string
	for _, c := range page.Cards {
		asins = append(asins, c.ASIN)
	}
	// the info bar and the brand widget have no ASIN; the repeated card is
	// kept here and dropped by the search loop
	if got, want := strings.Join(asins, ","), "B0CX23V2ZK,B09XS7JWHH,B0D1XD1ZV3,B0D1XD1ZV3"; got != want {
		t.Fatalf("ASINs = %s, want %s", got, want)
	}

	ad := page.Cards[0]
	if ad.URL != "https://www.amazon.com/dp/B0CX23V2ZK" || deref(ad.Price) != 39.99 || deref(ad.ListPrice) != 59.99 ||
		ad.Currency != "USD" || deref(ad.Rating) != 4.5 || deref(ad.ReviewCount) != 38211 ||
		deref(ad.Sponsored) != true || deref(ad.Prime) != true || !strings.HasPrefix(ad.Name, "Soundcore by Anker Q20i") {
		b, _ := json.Marshal(ad)
		t.Errorf("sponsored card: %s", b)
	}

	sony := page.Cards[1]
	if sony.Name != "Sony WH-1000XM5 The Best Wireless Noise Canceling Headphones, Black" || sony.Brand != "Sony" ||
		deref(sony.Price) != 1298.0 || deref(sony.Rating) != 4.0 || deref(sony.ReviewCount) != 24500 ||
		deref(sony.Sponsored) != false || deref(sony.Prime) != false || sony.ListPrice != nil {
		b, _ := json.Marshal(sony)
		t.Errorf("organic card with split price and short count: %s", b)
	}

	bare := page.Cards[2]
	if bare.Name != "Apple AirPods 4 Wireless Earbuds" || bare.Price != nil || bare.Rating != nil || bare.ReviewCount != nil || bare.Image != "" {
		b, _ := json.Marshal(bare)
		t.Errorf("card without price or rating: %s", b)
	}
}

func TestParseSearchNotASearchPage(t *testing.T) {
	for _, body := range []string{"", "<html><body><h1>Hello</h1></body></html>", "\x00\xff<div", string(scrapertest.Testdata(t, "captcha.html"))} {
		page, err := parseSearch([]byte(body), "amazon.com")
		if err != nil {
			t.Fatalf("parseSearch(%.20q): %v", body, err)
		}
		if len(page.Cards) != 0 || page.Results || page.HasNext {
			t.Errorf("parseSearch(%.20q) = %+v, want nothing", body, page)
		}
	}
	empty := `<div class="s-main-slot s-result-list s-search-results sg-row"><div data-component-type="s-messaging-widget-results-header"><span>No results for </span><span>qwzx</span></div></div>`
	page, _ := parseSearch([]byte(empty), "amazon.com")
	if !page.Results || len(page.Cards) != 0 {
		t.Errorf("an empty results page: %+v; want Results and no cards", page)
	}
}

func TestParseSearchOldPager(t *testing.T) {
	html := `<div class="s-main-slot s-result-list"><div data-asin="B000000001" data-component-type="s-search-result"><h2><a href="/dp/B000000001"><span>One</span></a></h2></div></div>
<ul class="a-pagination"><li class="a-selected"><a href="/s?k=x&page=1">1</a></li><li class="a-last"><a href="/s?k=x&page=2">Next</a></li></ul>`
	page, _ := parseSearch([]byte(html), "amazon.co.uk")
	if !page.HasNext || page.NoPager || len(page.Cards) != 1 || page.Cards[0].URL != "https://www.amazon.co.uk/dp/B000000001" {
		t.Errorf("old pager: %+v", page)
	}
	last := strings.Replace(html, `<li class="a-last"><a href="/s?k=x&page=2">Next</a></li>`, `<li class="a-disabled a-last">Next</li>`, 1)
	page, _ = parseSearch([]byte(last), "amazon.co.uk")
	if page.HasNext {
		t.Error("a disabled Next is no next page")
	}
}

func TestParseCardASINFromLink(t *testing.T) {
	html := `<div data-component-type="s-search-result"><h2><a href="/Some-Thing/dp/B0ABCDEFGH/ref=sr_1_1"><span>Thing</span></a></h2></div>
<div data-asin="not-an-asin" data-component-type="s-search-result"><h2><span>Bad</span></h2></div>`
	page, _ := parseSearch([]byte(html), "amazon.de")
	if len(page.Cards) != 1 || page.Cards[0].ASIN != "B0ABCDEFGH" || page.Cards[0].URL != "https://www.amazon.de/dp/B0ABCDEFGH" {
		t.Errorf("cards = %+v", page.Cards)
	}
}

// FuzzParseSearch feeds the card parser arbitrary pages: it must never
// panic, and every card it returns must have a valid ASIN and a URL on the
// domain.
func FuzzParseSearch(f *testing.F) {
	for _, name := range []string{"search-card-sponsored-laptop_0.html", "search-card-organic-laptop_7.html"} {
		if b, err := scrapertest.ReadFixture("amazon/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add(scrapertest.Testdata(f, "search.html"))
	f.Add([]byte(`<div data-asin="B000000001" data-component-type="s-search-result"><span class="a-price"><span class="a-offscreen">$1,2,3.4.5</span></span><span class="a-icon-alt">9 out of 5</span><a href="/sspa/click?url=%zz">x</a></div>`))
	f.Add([]byte(`<div data-component-type="s-search-result"><a href="/dp/B000000002">`))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := parseSearch(body, "amazon.com")
		if err != nil {
			return
		}
		for _, c := range page.Cards {
			if !validASIN(c.ASIN) || c.URL != "https://www.amazon.com/dp/"+c.ASIN {
				t.Fatalf("bad card %+v", c)
			}
			if c.Rating != nil && (*c.Rating < 0 || *c.Rating > 5) {
				t.Fatalf("rating out of range: %v", *c.Rating)
			}
			if _, err := json.Marshal(c); err != nil {
				t.Fatalf("card does not encode: %v", err)
			}
		}
	})
}

func BenchmarkParseSearchCard(b *testing.B) {
	body := scrapertest.Fixture(b, "amazon/search-card-sponsored-laptop_0.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if page, err := parseSearch(body, "amazon.in"); err != nil || len(page.Cards) != 1 {
			b.Fatal(err, len(page.Cards))
		}
	}
}

func BenchmarkParseSearchCardOrganic(b *testing.B) {
	body := scrapertest.Fixture(b, "amazon/search-card-organic-laptop_7.html")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if page, err := parseSearch(body, "amazon.in"); err != nil || len(page.Cards) != 1 {
			b.Fatal(err, len(page.Cards))
		}
	}
}

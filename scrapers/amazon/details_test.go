package amazon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestParseProduct(t *testing.T) {
	p, err := parseProduct(scrapertest.Testdata(t, "product.html"), "https://www.amazon.com/dp/B09XS7JWHH?th=1", "www.amazon.com")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"url", p.URL, "https://www.amazon.com/dp/B09XS7JWHH?th=1"},
		{"asin", p.ASIN, "B09XS7JWHH"},
		{"name", p.Name, "Sony WH-1000XM5 The Best Wireless Noise Canceling Headphones with Auto Noise Canceling Optimizer, Black"},
		{"brand", p.Brand, "Sony"},
		{"price", deref(p.Price), 322.0},
		{"list_price", deref(p.ListPrice), 399.99},
		{"currency", p.Currency, "USD"},
		{"rating", deref(p.Rating), 4.0},
		{"review_count", deref(p.ReviewCount), 24517},
		{"availability", p.Availability, "In Stock"},
		{"image", p.Image, "https://m.media-amazon.com/images/I/51aXvjzcukL._AC_SL1500_.jpg"},
		{"description", p.Description, "From airplane noise to people's voices, the WH-1000XM5 keep out more noise than ever before."},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	wantImages := []string{
		"https://m.media-amazon.com/images/I/51aXvjzcukL._AC_SL1500_.jpg",
		"https://m.media-amazon.com/images/I/31second._AC_.jpg",
		"https://m.media-amazon.com/images/I/71third._AC_SL1500_.jpg",
	}
	if !reflect.DeepEqual(p.Images, wantImages) {
		t.Errorf("images = %q, want %q", p.Images, wantImages)
	}
	if want := []string{"Electronics", "Headphones, Earbuds & Accessories", "Headphones & Earbuds"}; !reflect.DeepEqual(p.Breadcrumbs, want) {
		t.Errorf("breadcrumbs = %q, want %q", p.Breadcrumbs, want)
	}
	if len(p.FeatureBullets) != 3 || !strings.HasPrefix(p.FeatureBullets[0], "THE BEST NOISE CANCELING") {
		t.Errorf("feature_bullets = %q", p.FeatureBullets)
	}
	for k, want := range map[string]string{
		"Brand":                "Sony",
		"Item Weight":          "8.8 ounces",
		"ASIN":                 "B09XS7JWHH",
		"Customer Reviews":     "4.0 out of 5 stars 4.0 out of 5 stars",
		"Date First Available": "May 12, 2022",
		"Color":                "Black",
		"Ear Placement":        "Over Ear",
	} {
		if got := p.Details[k]; got != want {
			t.Errorf("details[%q] = %q, want %q", k, got, want)
		}
	}
}

func TestParseProductOlderLayoutJapan(t *testing.T) {
	p, err := parseProduct(scrapertest.Testdata(t, "product-jp.html"), "https://www.amazon.co.jp/gp/product/B098RKWHHZ", "www.amazon.co.jp")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"asin", p.ASIN, "B098RKWHHZ"},
		{"name", p.Name, "Nintendo Switch（有機ELモデル） Joy-Con(L)/(R) ホワイト"},
		{"brand", p.Brand, "任天堂"},
		{"price", deref(p.Price), 37980.0},
		{"currency", p.Currency, "JPY"},
		{"rating", deref(p.Rating), 4.6},
		{"review_count", deref(p.ReviewCount), 12345},
		{"availability", p.Availability, "在庫あり。"},
		{"image", p.Image, "https://m.media-amazon.com/images/I/61jp._AC_SX679_.jpg"},
		{"details 発売日", p.Details["発売日"], "2021/10/8"},
		{"details 製品サイズ", p.Details["製品サイズ"], "10.2 x 24.2 x 1.39 cm; 420 g"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if p.ListPrice != nil {
		t.Errorf("list_price = %v, want none", *p.ListPrice)
	}
	if want := []string{"ゲーム", "Nintendo Switch"}; !reflect.DeepEqual(p.Breadcrumbs, want) {
		t.Errorf("breadcrumbs = %q", p.Breadcrumbs)
	}
}

func TestParseProductNotAProduct(t *testing.T) {
	for name, body := range map[string][]byte{
		"empty":   nil,
		"captcha": scrapertest.Testdata(t, "captcha.html"),
		"dogs":    scrapertest.Testdata(t, "dogs-503.html"),
		"search":  scrapertest.Testdata(t, "search.html"),
	} {
		if p, err := parseProduct(body, "https://www.amazon.com/s?k=x", "www.amazon.com"); err == nil {
			b, _ := json.Marshal(p)
			t.Errorf("%s: parsed as a product: %s", name, b)
		}
	}
}

func TestMergeDetails(t *testing.T) {
	card, err := parseSearch(scrapertest.Testdata(t, "search.html"), "amazon.com")
	if err != nil {
		t.Fatal(err)
	}
	c := card.Cards[1]
	c.Position, c.SearchTerm = 2, "headphones"
	d, err := parseProduct(scrapertest.Testdata(t, "product.html"), c.URL, "www.amazon.com")
	if err != nil {
		t.Fatal(err)
	}
	c.mergeDetails(&d)
	if c.URL != "https://www.amazon.com/dp/B09XS7JWHH" || c.Position != 2 || c.SearchTerm != "headphones" || deref(c.Sponsored) != false {
		t.Errorf("the card lost its own fields: %+v", c)
	}
	if deref(c.Price) != 322.0 || c.Availability != "In Stock" || len(c.FeatureBullets) != 3 || c.Details["Item Weight"] != "8.8 ounces" || len(c.Images) != 3 {
		t.Errorf("the page's fields were not merged: %+v", c)
	}
	if c.Image != "https://m.media-amazon.com/images/I/51example2L._AC_UL320_.jpg" {
		t.Errorf("the card's image was replaced: %q", c.Image)
	}
}

func TestProductURL(t *testing.T) {
	for _, tc := range []struct {
		in, asin string
	}{
		{"https://www.amazon.com/dp/B09XS7JWHH", "B09XS7JWHH"},
		{"https://www.amazon.co.jp/Nintendo/dp/B098RKWHHZ/ref=sr_1_1?th=1", "B098RKWHHZ"},
		{"https://amazon.in/gp/product/B08N5W4NNB", "B08N5W4NNB"},
		{"http://smile.amazon.de/gp/aw/d/B000000001#x", "B000000001"},
		{"https://www.amazon.com/s?k=laptop", ""},
		{"https://www.example.com/dp/B09XS7JWHH", ""},
		{"https://amazon.evil.com/dp/B09XS7JWHH", ""},
		{"https://www.amazon.com.br/dp/B09XS7JWHH", "B09XS7JWHH"},
		{"ftp://www.amazon.com/dp/B09XS7JWHH", ""},
		{"https://www.amazon.com/dp/b09xs7jwhh", ""},
		{"not a url", ""},
		{"https://www.amazon.com/dp/B09XS7JWHHX", ""},
	} {
		_, asin, ok := productURL(tc.in)
		if asin != tc.asin || ok != (tc.asin != "") {
			t.Errorf("productURL(%q) = %q, %v; want %q", tc.in, asin, ok, tc.asin)
		}
	}
}

// FuzzParseProduct: any page either parses to a product with a title or an
// ASIN, or gives an error; never a panic.
func FuzzParseProduct(f *testing.F) {
	f.Add(scrapertest.Testdata(f, "product.html"))
	f.Add(scrapertest.Testdata(f, "product-jp.html"))
	f.Add([]byte(`<span id="productTitle">x</span><script>'colorImages': { 'initial': [{"hiRes":5},null,"x"]}</script><img id="landingImage" data-a-dynamic-image='{"https://a/b.jpg":[1e99,-1]}'>`))
	f.Add([]byte(`'colorImages':{'initial':[{"main":{"https://x":[1,2,3]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseProduct(body, "https://www.amazon.com/dp/B000000001", "www.amazon.com")
		if err != nil {
			return
		}
		if p.Name == "" && !validASIN(p.ASIN) {
			t.Fatalf("a product with neither title nor ASIN: %+v", p)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	})
}

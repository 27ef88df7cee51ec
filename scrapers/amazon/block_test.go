package amazon

import (
	"net/http"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestDetectBlock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   []byte
		kind   string // "" for no block
	}{
		{"captcha 200", 200, scrapertest.Testdata(t, "captcha.html"), scrapers.BlockCaptcha},
		{"captcha 503", 503, scrapertest.Testdata(t, "captcha.html"), scrapers.BlockCaptcha},
		{"dogs 503", 503, scrapertest.Testdata(t, "dogs-503.html"), scrapers.BlockRateLimited},
		{"dogs on a 404 are a missing page", 404, scrapertest.Testdata(t, "dogs-503.html"), ""},
		{"a 429 is retried by the fetcher, not a block page", 429, []byte("slow down"), ""},
		{"product", 200, scrapertest.Testdata(t, "product.html"), ""},
		{"search", 200, scrapertest.Testdata(t, "search.html"), ""},
		{"plain 503", 503, []byte("Service Unavailable"), ""},
	} {
		r := &scrapers.Response{Request: &scrapers.Request{URL: "https://www.amazon.com/s?k=x"}, StatusCode: tc.status, Header: http.Header{}, Body: tc.body}
		be := detectBlock(r)
		switch {
		case tc.kind == "" && be != nil:
			t.Errorf("%s: blocked (%v), want no block", tc.name, be)
		case tc.kind != "" && be == nil:
			t.Errorf("%s: no block, want %s", tc.name, tc.kind)
		case be != nil && (be.Kind != tc.kind || be.Site != "Amazon" || be.URL != "https://www.amazon.com/s?k=x"):
			t.Errorf("%s: %+v, want kind %s naming Amazon and the URL", tc.name, be, tc.kind)
		}
	}
}

func TestDetectBlockRealCardsAreNotBlocks(t *testing.T) {
	for _, name := range []string{"search-card-sponsored-laptop_0.html", "search-card-organic-laptop_7.html"} {
		r := &scrapers.Response{Request: &scrapers.Request{URL: "https://www.amazon.in/s?k=laptop"}, StatusCode: 200, Body: scrapertest.Fixture(t, "amazon/"+name)}
		if be := detectBlock(r); be != nil {
			t.Errorf("%s: %v", name, be)
		}
	}
}

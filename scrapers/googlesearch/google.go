package googlesearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// googleSite is Google Search for the fetcher. The consent cookies (SOCS,
// CONSENT) answer the EU consent interstitial in advance.
func googleSite() scrapers.Site {
	return scrapers.Site{
		ID:     pluginID,
		Name:   siteName,
		Origin: "https://www.google.com",
		Domains: []string{
			"google.", // www.google.com, google.de, google.co.uk, …
		},
		Cookies: []*http.Cookie{
			{Name: "SOCS", Value: "CAESHAgBEhJnd3NfMjAyNDA5MjQtMF9SQzEaAmVuIAEaBgiA_LG4Bg"},
			{Name: "CONSENT", Value: "YES+cb.20240924-00-p0.en+FX+410"},
		},
		DetectBlock:   detectBlock,
		MaxConcurrent: 3,
	}
}

// googleProvider searches Google itself.
type googleProvider struct {
	fetch *scrapers.Fetcher
}

func (g *googleProvider) name() string { return "google" }

// googleSearchURL is the public Google URL of the results page at start.
func googleSearchURL(a *searchArgs, q string, start int) string {
	v := url.Values{}
	v.Set("q", a.query(q))
	if a.LanguageCode != "" {
		v.Set("hl", a.LanguageCode)
	}
	if a.CountryCode != "" {
		v.Set("gl", strings.ToLower(a.CountryCode))
	}
	if start > 0 {
		v.Set("start", strconv.Itoa(start))
	}
	if a.perPage != 10 {
		v.Set("num", strconv.Itoa(a.perPage))
	}
	v.Set("pws", "0") // no personalisation
	return "https://www.google.com/search?" + v.Encode()
}

func (g *googleProvider) searchURL(a *searchArgs, q string, _, start int) string {
	return googleSearchURL(a, q, start)
}

func (g *googleProvider) search(ctx context.Context, a *searchArgs, q string, page, start int) (*pageResult, error) {
	u := googleSearchURL(a, q, start)
	req := &scrapers.Request{URL: u}
	if a.LanguageCode != "" {
		lang := strings.ReplaceAll(a.LanguageCode, "_", "-")
		req.Header = http.Header{"Accept-Language": {lang + "," + strings.SplitN(lang, "-", 2)[0] + ";q=0.9,en;q=0.5"}}
	}
	resp, err := g.fetch.Do(ctx, req)
	if err != nil {
		var se *scrapers.SiteError
		if errors.As(err, &se) && se.Status == http.StatusTooManyRequests {
			return nil, &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRateLimited, URL: u}
		}
		return nil, err
	}
	end := scrapers.Extraction(ctx, "search results")
	serp, err := Extract(resp.Body)
	end()
	if err != nil {
		return nil, &scrapers.SiteError{Site: siteName, URL: u, Err: fmt.Errorf("the page could not be read: %w", err)}
	}
	if !serp.IsResultsPage && len(serp.Organic) == 0 {
		return nil, &scrapers.SiteError{Site: siteName, URL: u, Err: errors.New("the answer was not a results page")}
	}
	return &pageResult{url: u, serp: serp}, nil
}

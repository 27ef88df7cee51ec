package amazon

import (
	"net/url"
	"regexp"
	"strings"
)

// Product is one item the scrape tool returns: a search-result card, a
// product page, or a card merged with its product page (include_details).
// Fields the page did not show are left out.
type Product struct {
	// URL names where the item came from: the product URL given, or for a
	// search result the product's /dp/ URL on the searched domain.
	URL            string            `json:"url"`
	ASIN           string            `json:"asin,omitempty"`
	Name           string            `json:"name,omitempty"`
	Brand          string            `json:"brand,omitempty"`
	Price          *float64          `json:"price,omitempty"`
	Currency       string            `json:"currency,omitempty"`
	ListPrice      *float64          `json:"list_price,omitempty"`
	Rating         *float64          `json:"rating,omitempty"`
	ReviewCount    *int              `json:"review_count,omitempty"`
	Availability   string            `json:"availability,omitempty"`
	Image          string            `json:"image,omitempty"`
	Images         []string          `json:"images,omitempty"`
	FeatureBullets []string          `json:"feature_bullets,omitempty"`
	Breadcrumbs    []string          `json:"breadcrumbs,omitempty"`
	Details        map[string]string `json:"details,omitempty"`
	Description    string            `json:"description,omitempty"`
	// Sponsored and Prime are known for search results only.
	Sponsored *bool `json:"sponsored,omitempty"`
	Prime     *bool `json:"prime,omitempty"`
	// SearchTerm and Position (1-based, across pages) place a search result.
	SearchTerm string `json:"search_term,omitempty"`
	Position   int    `json:"position,omitempty"`
	// DetailsError says why the product page of a search result could not
	// be merged (include_details).
	DetailsError string `json:"details_error,omitempty"`
}

// mergeDetails fills p, a search result, with what its product page d says.
// The page wins for the fields it has (its price is the current one); the
// card keeps its URL, position and ad flags.
func (p *Product) mergeDetails(d *Product) {
	if d.ASIN != "" {
		p.ASIN = d.ASIN
	}
	if d.Name != "" {
		p.Name = d.Name
	}
	if d.Brand != "" {
		p.Brand = d.Brand
	}
	if d.Price != nil {
		p.Price, p.Currency = d.Price, d.Currency
	}
	if d.ListPrice != nil {
		p.ListPrice = d.ListPrice
	}
	if d.Rating != nil {
		p.Rating = d.Rating
	}
	if d.ReviewCount != nil {
		p.ReviewCount = d.ReviewCount
	}
	if d.Availability != "" {
		p.Availability = d.Availability
	}
	if len(d.Images) > 0 {
		p.Images = d.Images
		if p.Image == "" {
			p.Image = d.Images[0]
		}
	}
	p.FeatureBullets = d.FeatureBullets
	p.Breadcrumbs = d.Breadcrumbs
	p.Details = d.Details
	p.Description = d.Description
}

// asinPath finds the ASIN in a product path: /dp/ASIN, /gp/product/ASIN,
// /gp/aw/d/ASIN, with or without a title slug before it.
var asinPath = regexp.MustCompile(`/(?:dp|gp/product|gp/aw/d|exec/obidos/ASIN|o/ASIN)/([A-Z0-9]{10})(?:[/?#]|$)`)

// asinFromURL returns the ASIN in a product URL or path, or "".
func asinFromURL(raw string) string {
	if m := asinPath.FindStringSubmatch(raw); m != nil {
		return m[1]
	}
	return ""
}

// amazonHost matches the hosts of Amazon's marketplaces, as the domain
// argument does ("amazon.co.jp", "www.amazon.de").
var amazonHost = regexp.MustCompile(`^(?:www\.|smile\.|m\.)?amazon\.[a-z.]+$`)

// productURL checks a product URL given by the user (on a known Amazon
// marketplace) and returns its ASIN.
func productURL(raw string) (*url.URL, string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, "", false
	}
	host := strings.ToLower(u.Hostname())
	if (u.Scheme != "http" && u.Scheme != "https") || !amazonHost.MatchString(host) || domainCurrency(siteHost(host)) == "" {
		return nil, "", false
	}
	asin := asinFromURL(u.EscapedPath())
	if asin == "" {
		return nil, "", false
	}
	u.Fragment = ""
	return u, asin, true
}

// siteHost returns the marketplace domain of host without "www." or
// "smile.": www.amazon.co.jp → amazon.co.jp.
func siteHost(host string) string {
	host = strings.ToLower(host)
	for _, p := range []string{"www.", "smile.", "m."} {
		host = strings.TrimPrefix(host, p)
	}
	return host
}

package amazon

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// searchPage is what one page of Amazon search results holds.
type searchPage struct {
	Cards []Product
	// HasNext reports a "Next" link that is not disabled. NoPager reports
	// that the page shows no pagination strip at all.
	HasNext, NoPager bool
	// Results reports that the page is a search results page (it has the
	// results container or says nothing matched), so that zero cards is an
	// answer and not a layout Amazon changed.
	Results bool
}

// parseSearch reads a search results page of the marketplace domain
// (amazon.in): every card div[data-component-type=s-search-result] with an
// ASIN, in page order.
func parseSearch(body []byte, domain string) (searchPage, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return searchPage{}, err
	}
	var page searchPage
	doc.Find(`div[data-component-type="s-search-result"]`).Each(func(_ int, card *goquery.Selection) {
		if p, ok := parseCard(card, domain); ok {
			page.Cards = append(page.Cards, p)
		}
	})
	page.Results = len(page.Cards) > 0 ||
		doc.Find(`.s-main-slot, .s-search-results, .s-result-list`).Length() > 0
	next := doc.Find(`.s-pagination-next`)
	switch {
	case next.Length() == 0:
		page.NoPager = doc.Find(`.s-pagination-strip, .a-pagination`).Length() == 0
		// the older pager: <li class="a-last"><a href=…>Next</a></li>
		page.HasNext = doc.Find(`.a-pagination li.a-last a[href]`).Length() > 0
	default:
		page.HasNext = !next.First().HasClass("s-pagination-disabled") && next.First().Is("a[href]")
	}
	return page, nil
}

// parseCard reads one search-result card. It needs an ASIN (the card's
// data-asin or its product link); everything else is optional.
func parseCard(card *goquery.Selection, domain string) (Product, bool) {
	origin := "https://www." + domain
	asin := strings.TrimSpace(attr(card, "data-asin"))
	link, ad := productLink(card)
	if asin == "" {
		asin = asinFromURL(link)
	}
	if !validASIN(asin) {
		return Product{}, false
	}
	p := Product{ASIN: asin, URL: origin + "/dp/" + asin}

	// Name: the longest h2 of the title block (newer layouts put the brand
	// in an h2 of its own above the title).
	var heads []string
	titleBlock := card.Find(`[data-cy="title-recipe"]`)
	if titleBlock.Length() == 0 {
		titleBlock = card
	}
	titleBlock.Find("h2").Each(func(_ int, h *goquery.Selection) {
		t := clean(h.Text())
		if t == "" {
			t = clean(attr(h, "aria-label"))
		}
		if t != "" {
			heads = append(heads, t)
		}
	})
	for i, h := range heads {
		if len(h) > len(p.Name) {
			p.Name = h
			if i > 0 && p.Brand == "" {
				p.Brand = heads[0]
			}
		}
	}
	p.Name = strings.TrimPrefix(p.Name, "Sponsored Ad - ")
	if p.Name == "" {
		p.Name = strings.TrimPrefix(clean(attr(card.Find("img.s-image").First(), "alt")), "Sponsored Ad - ")
	}

	priceBlock := card.Find(`[data-cy="price-recipe"]`)
	if priceBlock.Length() == 0 {
		priceBlock = card
	}
	if txt := priceText(priceBlock.Find(".a-price").Not(".a-text-price").First()); txt != "" {
		if v, ok := parsePrice(txt); ok {
			p.Price = &v
			p.Currency = currencyOf(txt, domain)
		}
	}
	if txt := priceText(priceBlock.Find(`.a-price.a-text-price`).First()); txt != "" {
		if v, ok := parsePrice(txt); ok {
			p.ListPrice = &v
			if p.Currency == "" {
				p.Currency = currencyOf(txt, domain)
			}
		}
	}

	if v, ok := cardRating(card); ok {
		p.Rating = &v
	}
	if n, ok := cardReviews(card); ok {
		p.ReviewCount = &n
	}
	if src := attr(card.Find("img.s-image").First(), "src"); src != "" {
		p.Image = src
	}
	sponsored := card.HasClass("AdHolder") ||
		card.Find(`.puis-sponsored-label-text, .s-sponsored-label-text, [data-component-type="sp-sponsored-result"], .puis-sponsored-label-info-icon`).Length() > 0 ||
		ad ||
		card.Find(".a-color-secondary").FilterFunction(func(_ int, s *goquery.Selection) bool {
			return clean(s.Text()) == "Sponsored"
		}).Length() > 0
	prime := card.Find(`i.a-icon-prime, i[class*="a-icon-prime"], [aria-label="Amazon Prime"], .s-prime`).Length() > 0
	p.Sponsored, p.Prime = &sponsored, &prime
	return p, true
}

// productLink returns the path of the card's first product link, unwrapping
// the ad redirect /sspa/click?url=<path> (ad is then true).
func productLink(card *goquery.Selection) (link string, ad bool) {
	card.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		href := attr(a, "href")
		if strings.Contains(href, "/sspa/click") {
			if u, err := url.Parse(href); err == nil {
				if inner := u.Query().Get("url"); asinFromURL(inner) != "" {
					link, ad = inner, true
					return false
				}
			}
		}
		if asinFromURL(href) != "" {
			link = href
			return false
		}
		return true
	})
	return link, ad
}

func cardRating(card *goquery.Selection) (float64, bool) {
	for _, sel := range []string{`i[class*="a-star"] .a-icon-alt`, `.a-icon-alt`} {
		if t := clean(card.Find(sel).First().Text()); t != "" {
			if v, ok := parseRating(t); ok {
				return v, true
			}
		}
	}
	var v float64
	var found bool
	card.Find("span[aria-label]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		l := attr(s, "aria-label")
		if strings.Contains(l, "out of") || strings.Contains(l, "von 5") || strings.Contains(l, "sur 5") {
			v, found = parseRating(l)
			return !found
		}
		return true
	})
	return v, found
}

func cardReviews(card *goquery.Selection) (int, bool) {
	block := card.Find(`[data-cy="reviews-block"]`)
	if block.Length() == 0 {
		block = card
	}
	if t := clean(block.Find(`a[href*="customerReviews"]`).First().Text()); t != "" {
		if n, ok := parseCount(t); ok {
			return n, true
		}
	}
	if t := clean(block.Find(`span.s-underline-text`).First().Text()); t != "" {
		if n, ok := parseCount(t); ok {
			return n, true
		}
	}
	var n int
	var found bool
	block.Find("span[aria-label]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		l := attr(s, "aria-label")
		if strings.Contains(l, "out of") || strings.Contains(l, "stars") || strings.Contains(l, "Sterne") {
			return true
		}
		n, found = parseCount(l)
		return !found
	})
	return n, found
}

// priceText returns the text of an .a-price element: its off-screen copy,
// or the visible symbol, whole and fraction parts put together.
func priceText(price *goquery.Selection) string {
	if price.Length() == 0 {
		return ""
	}
	if t := clean(price.Find(".a-offscreen").First().Text()); t != "" {
		return t
	}
	if price.HasClass("a-offscreen") {
		if t := clean(price.Text()); t != "" {
			return t
		}
	}
	whole := clean(price.Find(".a-price-whole").First().Text())
	if whole == "" {
		return clean(price.Text())
	}
	return clean(price.Find(".a-price-symbol").First().Text()) + whole + clean(price.Find(".a-price-fraction").First().Text())
}

// validASIN reports whether s looks like an ASIN: ten letters or digits.
func validASIN(s string) bool {
	if len(s) != 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.Attr(name)
	return v
}

// clean collapses runs of white space and drops the direction marks Amazon
// sprinkles in its detail lists.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\u200e', '\u200f', '\u200b', '\ufeff':
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

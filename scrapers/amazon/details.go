package amazon

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// errNoProduct says a page was fetched but holds no product.
var errNoProduct = errors.New("the page holds no Amazon product (no product name and no ASIN); the ASIN may not exist on this marketplace or Amazon changed its layout")

// Selectors tried in order; the first that yields a value wins.
var (
	priceSelectors = []string{
		`#corePriceDisplay_desktop_feature_div .priceToPay`,
		`#corePriceDisplay_desktop_feature_div .a-price:not(.a-text-price)`,
		`#corePrice_feature_div .a-price:not(.a-text-price)`,
		`#corePrice_desktop .a-price:not(.a-text-price)`,
		`#apex_desktop .a-price:not(.a-text-price)`,
		`#priceblock_dealprice`, `#priceblock_ourprice`, `#priceblock_saleprice`,
		`#price_inside_buybox`, `#newBuyBoxPrice`, `#tp_price_block_total_price_ww`,
		`#buybox .a-price:not(.a-text-price)`,
	}
	listPriceSelectors = []string{
		`#corePriceDisplay_desktop_feature_div .basisPrice .a-price`,
		`#corePriceDisplay_desktop_feature_div .a-text-price[data-a-strike="true"]`,
		`#corePrice_desktop .a-text-price[data-a-strike="true"]`,
		`#corePrice_desktop .a-text-price`,
		`#priceblock_listprice`, `#listPrice`,
	}
	detailRows = `#productDetails_techSpec_section_1 tr, #productDetails_techSpec_section_2 tr, ` +
		`#productDetails_detailBullets_sections1 tr, #productDetails_feature_div table.prodDetTable tr, ` +
		`#technicalSpecifications_section_1 tr`
)

// parseProduct reads a product page. host is the marketplace the page belongs
// to (www.amazon.co.jp), for the currency; pageURL is where it came from, for
// the ASIN when the page does not state it.
func parseProduct(body []byte, pageURL, host string) (Product, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return Product{}, err
	}
	// Scripts would leak into the text of the elements below; the image
	// data some of them carry is read from the raw body.
	doc.Find("script, style, noscript").Remove()
	p := Product{URL: pageURL}
	p.Name = clean(doc.Find("#productTitle").First().Text())
	if p.Name == "" {
		p.Name = clean(doc.Find("#title").First().Text())
	}
	p.ASIN = strings.TrimSpace(attr(doc.Find(`input#ASIN, input[name="ASIN"]`).First(), "value"))
	if !validASIN(p.ASIN) {
		p.ASIN = asinFromURL(pageURL)
	}

	p.Brand = brandOf(clean(doc.Find("#bylineInfo").First().Text()))

	for _, sel := range priceSelectors {
		if txt := priceText(doc.Find(sel).First()); txt != "" {
			if v, ok := parsePrice(txt); ok {
				p.Price, p.Currency = &v, currencyOf(txt, host)
				break
			}
		}
	}
	for _, sel := range listPriceSelectors {
		if txt := priceText(doc.Find(sel).First()); txt != "" {
			if v, ok := parsePrice(txt); ok {
				p.ListPrice = &v
				if p.Currency == "" {
					p.Currency = currencyOf(txt, host)
				}
				break
			}
		}
	}

	avail := doc.Find("#availability").First()
	p.Availability = clean(avail.Find("span").First().Text())
	if p.Availability == "" {
		p.Availability = clean(avail.Text())
	}
	if p.Availability == "" {
		p.Availability = clean(doc.Find("#outOfStock .a-color-price").First().Text())
	}

	for _, get := range []func() string{
		func() string { return attr(doc.Find("#acrPopover").First(), "title") },
		func() string { return doc.Find("#acrPopover .a-icon-alt").First().Text() },
		func() string { return doc.Find("#averageCustomerReviews .a-icon-alt").First().Text() },
		func() string { return doc.Find(`[data-hook="rating-out-of-text"]`).First().Text() },
	} {
		if v, ok := parseRating(clean(get())); ok {
			p.Rating = &v
			break
		}
	}
	for _, sel := range []string{"#acrCustomerReviewText", `[data-hook="total-review-count"]`} {
		if n, ok := parseCount(clean(doc.Find(sel).First().Text())); ok {
			p.ReviewCount = &n
			break
		}
	}

	bullets := doc.Find("#feature-bullets li, #featurebullets_feature_div li")
	bullets.Not("#replacementPartsFitmentBullet").Each(func(_ int, li *goquery.Selection) {
		if t := clean(li.Text()); t != "" {
			p.FeatureBullets = append(p.FeatureBullets, t)
		}
	})

	p.Images = productImages(doc, body)
	if len(p.Images) > 0 {
		p.Image = p.Images[0]
	}

	doc.Find("#wayfinding-breadcrumbs_feature_div li").Not(".a-breadcrumb-divider").Each(func(_ int, li *goquery.Selection) {
		if t := clean(li.Text()); t != "" && t != "›" {
			p.Breadcrumbs = append(p.Breadcrumbs, t)
		}
	})

	p.Details = productDetails(doc)
	if p.Brand == "" {
		p.Brand = p.Details["Brand"]
	}
	if !validASIN(p.ASIN) && validASIN(p.Details["ASIN"]) {
		p.ASIN = p.Details["ASIN"]
	}
	p.Description = clean(doc.Find("#productDescription").First().Text())

	if p.Name == "" && !validASIN(p.ASIN) {
		return Product{}, errNoProduct
	}
	if p.Name == "" && p.Price == nil && len(p.Details) == 0 {
		return Product{}, errNoProduct
	}
	return p, nil
}

// brandOf cleans the byline: "Visit the Sony Store" → Sony, "Brand: Sony" →
// Sony.
func brandOf(byline string) string {
	if b, ok := strings.CutPrefix(byline, "Visit the "); ok {
		return strings.TrimSpace(strings.TrimSuffix(b, " Store"))
	}
	for _, p := range []string{"Brand: ", "Marke: ", "Marque : ", "Marque: ", "Marca: ", "ブランド: "} {
		if b, ok := strings.CutPrefix(byline, p); ok {
			return strings.TrimSpace(b)
		}
	}
	return byline
}

// productDetails reads the technical and detail tables and the detail
// bullets into one map, first value wins.
func productDetails(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	put := func(k, v string) {
		k = strings.TrimSpace(strings.TrimRight(clean(k), ": "))
		v = clean(v)
		if k == "" || v == "" {
			return
		}
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	doc.Find(detailRows).Each(func(_ int, tr *goquery.Selection) {
		put(tr.Find("th").First().Text(), tr.Find("td").First().Text())
	})
	doc.Find("#detailBullets_feature_div li").Each(func(_ int, li *goquery.Selection) {
		item := li.Find(".a-list-item").First()
		if item.Length() == 0 {
			item = li
		}
		key := item.Find(".a-text-bold").First()
		if key.Length() == 0 {
			return
		}
		k := key.Text()
		all := item.Text()
		put(k, strings.Replace(all, k, "", 1))
	})
	doc.Find("#productOverview_feature_div tr").Each(func(_ int, tr *goquery.Selection) {
		tds := tr.Find("td")
		if tds.Length() >= 2 {
			put(tds.First().Text(), tds.Last().Text())
		}
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// colorImagesStart finds the gallery data of a product page:
// 'colorImages': { 'initial': [ … ] } in a script.
var colorImagesStart = regexp.MustCompile(`['"]colorImages['"]\s*:\s*\{\s*['"]initial['"]\s*:\s*`)

// productImages returns the product's gallery, largest version of each
// image: the colorImages data when the page has it, else the landing image
// (its data-a-dynamic-image sizes or data-old-hires).
func productImages(doc *goquery.Document, body []byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		u = strings.TrimSpace(u)
		if u != "" && !seen[u] && (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) {
			seen[u] = true
			out = append(out, u)
		}
	}
	if loc := colorImagesStart.FindIndex(body); loc != nil {
		var imgs []struct {
			HiRes *string `json:"hiRes"`
			Large *string `json:"large"`
			Main  map[string]json.RawMessage
		}
		if err := json.NewDecoder(bytes.NewReader(body[loc[1]:])).Decode(&imgs); err == nil {
			for _, im := range imgs {
				switch {
				case im.HiRes != nil && *im.HiRes != "":
					add(*im.HiRes)
				case im.Large != nil:
					add(*im.Large)
				default:
					add(largest(im.Main))
				}
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	img := doc.Find("#landingImage, #imgBlkFront, #main-image").First()
	add(attr(img, "data-old-hires"))
	if dyn := attr(img, "data-a-dynamic-image"); dyn != "" {
		var sizes map[string]json.RawMessage
		if json.Unmarshal([]byte(dyn), &sizes) == nil {
			add(largest(sizes))
		}
	}
	if len(out) == 0 {
		add(attr(img, "src"))
	}
	return out
}

// largest picks the URL with the largest area from {"url":[w,h],…}.
func largest(sizes map[string]json.RawMessage) string {
	type cand struct {
		url  string
		area int
	}
	var cs []cand
	for u, raw := range sizes {
		var wh []int
		_ = json.Unmarshal(raw, &wh)
		a := 0
		if len(wh) == 2 {
			a = wh[0] * wh[1]
		}
		cs = append(cs, cand{u, a})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].area != cs[j].area {
			return cs[i].area > cs[j].area
		}
		return cs[i].url < cs[j].url
	})
	if len(cs) == 0 {
		return ""
	}
	return cs[0].url
}

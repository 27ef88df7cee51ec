package walmart

import "github.com/surfsense/pluginhost/scrapers/jsonval"

// searchPage is what one page of Walmart search results holds.
type searchPage struct {
	Items []Product
	// MaxPage is the last page Walmart offers for the query, 0 when the
	// page does not say.
	MaxPage int
	// Results reports that the page's data has a search result at all, so
	// that no items is an answer and not a page Walmart changed.
	Results bool
}

// parseSearch reads a search page (/search?q=…) from its __NEXT_DATA__:
// props.pageProps.initialData.searchResult.itemStacks[].items, or the same
// searchResult inside __APP_DATA__.
func parseSearch(body []byte) (searchPage, error) {
	root, err := pageData(body)
	if err != nil {
		return searchPage{}, err
	}
	sr := first(root,
		[]any{"props", "pageProps", "initialData", "searchResult"},
		[]any{"initialData", "searchResult"},
		[]any{"searchResult"})
	if jsonval.Get(sr, "itemStacks") == nil {
		sr = find(root, "searchResult", 8)
	}
	if sr == nil {
		return searchPage{}, nil
	}
	page := searchPage{Results: true}
	if n := intPtr(first(sr, []any{"paginationV2", "maxPage"}, []any{"pagination", "maxPage"})); n != nil {
		page.MaxPage = *n
	}
	for _, stack := range jsonval.List(jsonval.Get(sr, "itemStacks")) {
		for _, it := range jsonval.List(jsonval.Get(stack, "items")) {
			if p, ok := searchItem(it); ok {
				page.Items = append(page.Items, p)
			}
		}
	}
	return page, nil
}

// searchItem reads one search result. Tiles without an item number (ads
// placeholders, banners) are skipped.
func searchItem(it any) (Product, bool) {
	id := str(jsonval.Get(it, "usItemId"))
	if id == "" || !itemIDArg.MatchString(id) {
		return Product{}, false
	}
	p := Product{
		ID:        id,
		ProductID: str(jsonval.Get(it, "id")),
		Name:      str(jsonval.Get(it, "name")),
		Brand:     str(jsonval.Get(it, "brand")),
		Seller:    str(jsonval.Get(it, "sellerName")),
	}
	p.URL = absURL(str(jsonval.Get(it, "canonicalUrl")))
	if p.URL == "" || !itemPath.MatchString(mustParse(p.URL).Path) {
		p.URL = origin + "/ip/" + id
	}

	pi := jsonval.Get(it, "priceInfo")
	p.Price = numPtr(first(it, []any{"price"}, []any{"priceInfo", "currentPrice", "price"}))
	if p.Price == nil {
		for _, k := range []string{"linePrice", "linePriceDisplay", "itemPrice", "priceString"} {
			if p.Price = numPtr(jsonval.Get(pi, k)); p.Price != nil {
				break
			}
		}
	}
	if p.Price != nil {
		p.Currency = str(jsonval.Get(pi, "currentPrice", "currencyUnit"))
		if p.Currency == "" {
			p.Currency = "USD"
		}
	}
	if was := jsonval.Get(pi, "wasPrice"); was != nil {
		if p.ListPrice = numPtr(was); p.ListPrice == nil {
			p.ListPrice = numPtr(jsonval.Get(was, "price"))
		}
	}
	p.UnitPrice = str(jsonval.Get(pi, "unitPrice"))

	p.Rating = numPtr(first(it, []any{"averageRating"}, []any{"rating", "averageRating"}))
	p.ReviewCount = intPtr(first(it, []any{"numberOfReviews"}, []any{"rating", "numberOfReviews"}))
	p.Image = str(first(it, []any{"imageInfo", "thumbnailUrl"}, []any{"image"}))
	p.Availability = str(first(it, []any{"availabilityStatusV2", "display"}, []any{"availabilityStatusDisplayValue"}))
	if p.Availability == "" {
		p.Availability = availability(first(it, []any{"availabilityStatusV2", "value"}, []any{"availabilityStatus"}))
	}
	sponsored := jsonval.Bool(jsonval.Get(it, "isSponsoredFlag")) || jsonval.Get(it, "sponsoredProduct") != nil
	p.Sponsored = &sponsored
	return p, true
}

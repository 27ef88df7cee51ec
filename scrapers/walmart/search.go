package walmart

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
		[]string{"props", "pageProps", "initialData", "searchResult"},
		[]string{"initialData", "searchResult"},
		[]string{"searchResult"})
	if get(sr, "itemStacks") == nil {
		sr = find(root, "searchResult", 8)
	}
	if sr == nil {
		return searchPage{}, nil
	}
	page := searchPage{Results: true}
	if n := intPtr(first(sr, []string{"paginationV2", "maxPage"}, []string{"pagination", "maxPage"})); n != nil {
		page.MaxPage = *n
	}
	for _, stack := range list(get(sr, "itemStacks")) {
		for _, it := range list(get(stack, "items")) {
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
	id := str(get(it, "usItemId"))
	if id == "" || !itemIDArg.MatchString(id) {
		return Product{}, false
	}
	p := Product{
		ID:        id,
		ProductID: str(get(it, "id")),
		Title:     str(get(it, "name")),
		Brand:     str(get(it, "brand")),
		Seller:    str(get(it, "sellerName")),
	}
	p.URL = absURL(str(get(it, "canonicalUrl")))
	if p.URL == "" || !itemPath.MatchString(mustParse(p.URL).Path) {
		p.URL = origin + "/ip/" + id
	}

	pi := get(it, "priceInfo")
	p.Price = numPtr(first(it, []string{"price"}, []string{"priceInfo", "currentPrice", "price"}))
	if p.Price == nil {
		for _, k := range []string{"linePrice", "linePriceDisplay", "itemPrice", "priceString"} {
			if p.Price = numPtr(get(pi, k)); p.Price != nil {
				break
			}
		}
	}
	if p.Price != nil {
		p.Currency = str(get(pi, "currentPrice", "currencyUnit"))
		if p.Currency == "" {
			p.Currency = "USD"
		}
	}
	if was := get(pi, "wasPrice"); was != nil {
		if p.ListPrice = numPtr(was); p.ListPrice == nil {
			p.ListPrice = numPtr(get(was, "price"))
		}
	}
	p.UnitPrice = str(get(pi, "unitPrice"))

	p.Rating = numPtr(first(it, []string{"averageRating"}, []string{"rating", "averageRating"}))
	p.ReviewsCount = intPtr(first(it, []string{"numberOfReviews"}, []string{"rating", "numberOfReviews"}))
	p.Image = str(first(it, []string{"imageInfo", "thumbnailUrl"}, []string{"image"}))
	p.Availability = str(first(it, []string{"availabilityStatusV2", "display"}, []string{"availabilityStatusDisplayValue"}))
	if p.Availability == "" {
		p.Availability = availability(first(it, []string{"availabilityStatusV2", "value"}, []string{"availabilityStatus"}))
	}
	sponsored := boolean(get(it, "isSponsoredFlag")) || get(it, "sponsoredProduct") != nil
	p.Sponsored = &sponsored
	return p, true
}

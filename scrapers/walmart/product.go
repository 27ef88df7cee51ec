package walmart

import (
	"errors"
	"net/url"
	"regexp"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/PuerkitoBio/goquery"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// Product is one item the scrape tool returns: a search result or a product
// page. Fields the page did not show are left out.
type Product struct {
	// URL names where the item came from: the product URL given, or for a
	// search result the product's page on walmart.com.
	URL string `json:"url"`
	// ID is Walmart's item number (usItemId), the number in /ip/…/<id>
	// URLs and what the reviews tool takes as item_ids.
	ID string `json:"id,omitempty"`
	// ProductID is Walmart's catalog id (3H34WSS08ANB).
	ProductID        string   `json:"product_id,omitempty"`
	Name             string   `json:"name,omitempty"`
	Brand            string   `json:"brand,omitempty"`
	Price            *float64 `json:"price,omitempty"`
	Currency         string   `json:"currency,omitempty"`
	ListPrice        *float64 `json:"list_price,omitempty"`
	UnitPrice        string   `json:"unit_price,omitempty"`
	Availability     string   `json:"availability,omitempty"`
	Seller           string   `json:"seller,omitempty"`
	Rating           *float64 `json:"rating,omitempty"`
	ReviewCount      *int     `json:"review_count,omitempty"`
	Image            string   `json:"image,omitempty"`
	Images           []string `json:"images,omitempty"`
	Highlights       []Spec   `json:"highlights,omitempty"`
	Specifications   []Spec   `json:"specifications,omitempty"`
	Description      string   `json:"description,omitempty"`
	ShortDescription string   `json:"short_description,omitempty"`
	Breadcrumbs      []string `json:"breadcrumbs,omitempty"`
	UPC              string   `json:"upc,omitempty"`
	Model            string   `json:"model,omitempty"`
	// Sponsored, SearchTerm and Position (1-based, across pages) are set
	// for search results only.
	Sponsored  *bool  `json:"sponsored,omitempty"`
	SearchTerm string `json:"search_term,omitempty"`
	Position   int    `json:"position,omitempty"`
}

// Spec is one named value: a product highlight or specification.
type Spec struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

const origin = "https://www.walmart.com"

// errNoProduct says a page's data holds no product.
var errNoProduct = errors.New("the page's data holds no product; the item may no longer exist or Walmart changed its pages")

// parseProduct reads a product page (/ip/…) from its __NEXT_DATA__:
// props.pageProps.initialData.data.product, with .idml for highlights,
// specifications and descriptions. pageURL becomes the item's url.
func parseProduct(body []byte, pageURL string) (Product, error) {
	root, err := pageData(body)
	if err != nil {
		return Product{}, err
	}
	data := first(root,
		[]any{"props", "pageProps", "initialData", "data"},
		[]any{"initialData", "data"},
		[]any{"data"})
	prod := jsonval.Get(data, "product")
	if !isProduct(prod) {
		prod = find(root, "product", 8)
	}
	if !isProduct(prod) {
		return Product{}, errNoProduct
	}
	idml := jsonval.Get(data, "idml")

	p := Product{
		URL:       pageURL,
		ID:        str(jsonval.Get(prod, "usItemId")),
		ProductID: str(jsonval.Get(prod, "id")),
		Name:      str(jsonval.Get(prod, "name")),
		Brand:     str(jsonval.Get(prod, "brand")),
		UPC:       str(jsonval.Get(prod, "upc")),
		Model:     str(jsonval.Get(prod, "model")),
	}
	pi := jsonval.Get(prod, "priceInfo")
	p.Price = numPtr(first(pi, []any{"currentPrice", "price"}, []any{"priceRange", "minPrice"}))
	if p.Price == nil {
		p.Price = numPtr(jsonval.Get(pi, "currentPrice", "priceString"))
	}
	if p.Price != nil {
		p.Currency = str(jsonval.Get(pi, "currentPrice", "currencyUnit"))
		if p.Currency == "" {
			p.Currency = "USD"
		}
	}
	p.ListPrice = numPtr(first(pi, []any{"wasPrice", "price"}, []any{"listPrice", "price"}))
	p.UnitPrice = str(jsonval.Get(pi, "unitPrice", "priceString"))
	p.Availability = availability(jsonval.Get(prod, "availabilityStatus"))
	p.Seller = str(first(prod, []any{"sellerDisplayName"}, []any{"sellerName"}))

	p.Rating = numPtr(jsonval.Get(prod, "averageRating"))
	if p.Rating == nil {
		p.Rating = numPtr(jsonval.Get(data, "reviews", "roundedAverageOverallRating"))
	}
	p.ReviewCount = intPtr(jsonval.Get(prod, "numberOfReviews"))
	if p.ReviewCount == nil {
		p.ReviewCount = intPtr(jsonval.Get(data, "reviews", "totalReviewCount"))
	}

	for _, im := range jsonval.List(jsonval.Get(prod, "imageInfo", "allImages")) {
		if u := str(jsonval.Get(im, "url")); u != "" {
			p.Images = append(p.Images, u)
		}
	}
	p.Image = str(jsonval.Get(prod, "imageInfo", "thumbnailUrl"))
	if p.Image == "" && len(p.Images) > 0 {
		p.Image = p.Images[0]
	}

	p.Highlights = specs(jsonval.Get(idml, "productHighlights"))
	p.Specifications = specs(jsonval.Get(idml, "specifications"))
	p.Description = markdown(str(jsonval.Get(idml, "longDescription")))
	p.ShortDescription = markdown(str(first(idml, []any{"shortDescription"})))
	if p.ShortDescription == "" {
		p.ShortDescription = markdown(str(jsonval.Get(prod, "shortDescription")))
	}

	crumbs := jsonval.List(jsonval.Get(data, "seoItemMetaData", "breadCrumbs"))
	if len(crumbs) == 0 {
		crumbs = jsonval.List(jsonval.Get(prod, "category", "path"))
	}
	for _, c := range crumbs {
		if n := str(jsonval.Get(c, "name")); n != "" {
			p.Breadcrumbs = append(p.Breadcrumbs, n)
		}
	}
	return p, nil
}

// isProduct reports whether v looks like Walmart's product object.
func isProduct(v any) bool {
	return str(jsonval.Get(v, "usItemId")) != "" || str(jsonval.Get(v, "name")) != "" && jsonval.Get(v, "priceInfo") != nil
}

// specs reads [{name, value}] (or plain strings) into Specs.
func specs(v any) []Spec {
	var out []Spec
	for _, x := range jsonval.List(v) {
		if s := str(x); s != "" {
			out = append(out, Spec{Value: s})
			continue
		}
		name, value := str(jsonval.Get(x, "name")), str(jsonval.Get(x, "value"))
		if value == "" {
			// highlights sometimes carry their text under other keys
			value = str(first(x, []any{"text"}, []any{"description"}))
		}
		if name != "" || value != "" {
			out = append(out, Spec{Name: name, Value: value})
		}
	}
	return out
}

// availability turns Walmart's status codes into words: IN_STOCK → In
// stock; a display text is kept as it is.
func availability(v any) string {
	s := str(v)
	switch s {
	case "":
		return ""
	case "IN_STOCK":
		return "In stock"
	case "OUT_OF_STOCK":
		return "Out of stock"
	case "LIMITED_STOCK":
		return "Limited stock"
	case "NOT_AVAILABLE":
		return "Not available"
	}
	if strings.ToUpper(s) == s && strings.Contains(s, "_") {
		s = strings.ReplaceAll(strings.ToLower(s), "_", " ")
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// markdown turns a description's HTML into Markdown; text without tags is
// returned as it is.
func markdown(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || !strings.Contains(s, "<") {
		return s
	}
	if md, err := htmltomarkdown.ConvertString(s); err == nil {
		return strings.TrimSpace(md)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	return strings.Join(strings.Fields(doc.Text()), " ")
}

// itemPath finds the item number in a product path: /ip/<slug>/<id> or
// /ip/<id>; reviewsPath in /reviews/product/<id>.
var (
	itemPath    = regexp.MustCompile(`^/ip/(?:[^/]+/)*?(\d{1,20})/?$`)
	reviewsPath = regexp.MustCompile(`^/reviews/product/(\d{1,20})/?$`)
	walmartHost = regexp.MustCompile(`^(?:www\.)?walmart\.com$`)
	itemIDArg   = regexp.MustCompile(`^\d{1,20}$`)
)

// productURL checks a product URL given by the user and returns it without
// its fragment, and its item number.
func productURL(raw string, reviews bool) (*url.URL, string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !walmartHost.MatchString(strings.ToLower(u.Hostname())) {
		return nil, "", false
	}
	u.Fragment = ""
	if m := itemPath.FindStringSubmatch(u.Path); m != nil {
		return u, m[1], true
	}
	if reviews {
		if m := reviewsPath.FindStringSubmatch(u.Path); m != nil {
			return u, m[1], true
		}
	}
	return nil, "", false
}

// absURL makes a Walmart path absolute on walmart.com without its query
// (tracking parameters).
func absURL(path string) string {
	u, err := url.Parse(path)
	if err != nil || path == "" {
		return ""
	}
	u = mustParse(origin).ResolveReference(u)
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

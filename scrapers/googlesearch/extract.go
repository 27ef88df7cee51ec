package googlesearch

import (
	"bytes"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Organic is one organic (unpaid) result.
type Organic struct {
	// Position is the result's rank, counted from 1 across pages.
	Position     int    `json:"position"`
	Title        string `json:"title"`
	URL          string `json:"url"`
	DisplayedURL string `json:"displayed_url,omitempty"`
	Description  string `json:"description,omitempty"`
	// Date is the date Google shows before the description ("Mar 3, 2024",
	// "2 days ago"), as shown.
	Date string `json:"date,omitempty"`
}

// RelatedQuery is one of the searches Google suggests beside the results.
type RelatedQuery struct {
	Query string `json:"query"`
	URL   string `json:"url,omitempty"`
}

// Question is one "People also ask" entry. Google loads most answers only
// when a question is opened, so Answer and URL are often empty.
type Question struct {
	Question string `json:"question"`
	Answer   string `json:"answer,omitempty"`
	URL      string `json:"url,omitempty"`
	Title    string `json:"title,omitempty"`
}

// SERP is what one results page holds.
type SERP struct {
	Organic       []Organic
	Related       []RelatedQuery
	PeopleAlsoAsk []Question
	// TotalResults is "About N results" when the page shows it.
	TotalResults *int64
	// NextStart is the start offset of the next page as the page's own
	// "Next" link gives it, or -1 when no such link was found.
	NextStart int
	// IsResultsPage is false for a page that has none of the marks of a
	// Google results page (an interstitial, an error page): an empty Organic
	// then means "not understood", not "no results".
	IsResultsPage bool
}

// googleOrigin resolves the page's relative links: results name Google's
// public URLs whatever origin the page was fetched from.
var googleOrigin = &url.URL{Scheme: "https", Host: "www.google.com"}

// Extract reads a Google results page: the desktop (JavaScript) layout, the
// mobile layout and the basic-HTML (no JavaScript) layout. It relies on the
// page's structure (links with a heading in the results column, /url?q=
// redirects, data-q questions, #result-stats) more than on Google's
// generated class names, which it uses only as hints.
func Extract(page []byte) (*SERP, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return nil, err
	}
	s := &SERP{Organic: []Organic{}, Related: []RelatedQuery{}, PeopleAlsoAsk: []Question{}, NextStart: -1}
	s.IsResultsPage = doc.Find("#search, #rso, #res, #result-stats, #botstuff, #center_col").Length() > 0 ||
		doc.Find("#main a[href^='/url?']").Length() > 0 ||
		doc.Find("form[action='/search'] input[name=q]").Length() > 0
	s.Organic = organicResults(doc)
	s.Related = relatedQueries(doc)
	s.PeopleAlsoAsk = peopleAlsoAsk(doc)
	s.TotalResults = totalResults(doc.Find("#result-stats").First().Text())
	s.NextStart = nextStart(doc)
	return s, nil
}

// resultsRoot is the results column: #rso on the JavaScript layouts, #main
// on the basic one.
func resultsRoot(doc *goquery.Document) *goquery.Selection {
	for _, sel := range []string{"#rso", "#search", "#center_col", "#main"} {
		if r := doc.Find(sel).First(); r.Length() > 0 {
			return r
		}
	}
	return doc.Find("body")
}

// skipAreas hold links with headings that are not organic results: ads,
// "People also ask" answers, knowledge panels and carousels.
const skipAreas = "#tads, #tadsb, #bottomads, [data-text-ad], .commercial-unit-desktop-top, .related-question-pair, " +
	"#rhs, g-scrolling-carousel, g-section-with-header, [data-initq], .kp-wholepage, #botstuff"

// headingSel finds a result's title inside its link.
const headingSel = "h3, [role=heading]"

func organicResults(doc *goquery.Document) []Organic {
	root := resultsRoot(doc)
	var links []*goquery.Selection
	root.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		if a.Find(headingSel).Length() == 0 || a.Closest(skipAreas).Length() > 0 {
			return
		}
		links = append(links, a)
	})
	isLink := map[*html.Node]bool{}
	for _, a := range links {
		isLink[a.Get(0)] = true
	}
	out := []Organic{}
	seen := map[string]bool{}
	for _, a := range links {
		href, _ := a.Attr("href")
		target := resultURL(href)
		if target == "" || seen[target] {
			continue
		}
		title := clean(a.Find(headingSel).First().Text())
		if title == "" {
			continue
		}
		seen[target] = true
		block := resultBlock(a, root, isLink)
		o := Organic{Position: len(out) + 1, Title: title, URL: target}
		o.DisplayedURL = displayedURL(a, block, title)
		o.Date, o.Description = splitDate(description(a, block, title, o.DisplayedURL))
		out = append(out, o)
	}
	return out
}

// resultURL turns a result link into the page it leads to: /url?q= and
// /url?url= redirects are unwrapped; relative links (Google's own pages),
// Google's search and ad links and anything not http(s) are not results.
func resultURL(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if u.Path == "/url" && (u.Host == "" || isGoogleHost(u.Hostname())) {
		q := u.Query()
		t := q.Get("q")
		if t == "" {
			t = q.Get("url")
		}
		if u, err = url.Parse(t); err != nil {
			return ""
		}
	}
	if !u.IsAbs() {
		return "" // Google's own pages (/search, /aclk ads, #): results link out
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ""
	}
	if isGoogleHost(u.Hostname()) && (u.Path == "/search" || strings.HasPrefix(u.Path, "/aclk") || strings.HasPrefix(u.Path, "/sorry/")) {
		return ""
	}
	return u.String()
}

func isGoogleHost(h string) bool {
	h = strings.ToLower(h)
	return h == "google.com" || strings.HasPrefix(h, "www.google.") || strings.HasPrefix(h, "google.")
}

// resultBlock is the largest element around link a that holds no other
// result link: the result's own box, with its snippet.
func resultBlock(a, root *goquery.Selection, isLink map[*html.Node]bool) *goquery.Selection {
	block := a
	rootNode := root.Get(0)
	for n := a.Get(0).Parent; n != nil && n != rootNode; n = n.Parent {
		if containsOtherLink(n, a.Get(0), isLink) {
			break
		}
		block = goquery.NewDocumentFromNode(n).Selection
	}
	return block
}

func containsOtherLink(n, self *html.Node, isLink map[*html.Node]bool) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c != self && isLink[c] {
			return true
		}
		if c != self && c.Type == html.ElementNode && containsOtherLink(c, self, isLink) {
			return true
		}
	}
	return false
}

// displayedURL is the green URL line: a cite, else what the link shows
// beside its title (the basic layout).
func displayedURL(a, block *goquery.Selection, title string) string {
	if c := clean(block.Find("cite").First().Text()); c != "" {
		return c
	}
	// The innermost match: an outer box may run the site's name into it.
	var shown string
	a.Find("*").Each(func(_ int, s *goquery.Selection) {
		if t := clean(s.Text()); t != title && urlish.MatchString(t) && (shown == "" || len(t) < len(shown)) {
			shown = t
		}
	})
	return shown
}

// urlish is a displayed URL: a URL or a host name, perhaps with " › path".
var urlish = regexp.MustCompile(`(?i)^(?:https?://[^\s›]+|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})(?: › .{1,200})?$`)

// descriptionHints are the snippet's boxes in the layouts seen so far.
const descriptionHints = ".VwiC3b, .IsZvec, .s3v9rd, [data-sncf] [style*=line-clamp], .lEBKkf, .yDYNvb, [data-content-feature]"

// description is the result's snippet: a known snippet box outside the
// link, else the longest text in the block outside the link.
func description(a, block *goquery.Selection, title, displayed string) string {
	var best string
	block.Find(descriptionHints).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if contains(a, s) || contains(s, a) {
			return true
		}
		if t := clean(s.Text()); t != "" && t != title && t != displayed {
			best = t
			return false
		}
		return true
	})
	if best != "" {
		return best
	}
	block.Find("div, span").Each(func(_ int, s *goquery.Selection) {
		if contains(s, a) || contains(a, s) {
			return
		}
		if t := clean(s.Text()); len(t) > len(best) && t != title && t != displayed {
			best = t
		}
	})
	if len(best) < 20 {
		return ""
	}
	return best
}

// contains reports whether s is an ancestor of (or is) el.
func contains(s, el *goquery.Selection) bool {
	n := el.Get(0)
	for p := n; p != nil; p = p.Parent {
		if p == s.Get(0) {
			return true
		}
	}
	return false
}

// datePrefix is the date Google puts before a snippet, followed by a dash.
var datePrefix = regexp.MustCompile(`^((?:[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4})|(?:\d{1,2} [A-Z][a-z]{2,8}\.? \d{4})|(?:\d{4}-\d{2}-\d{2})|(?:\d+ (?:second|minute|hour|day|week|month|year)s? ago))\s*[—–·-]\s*`)

// splitDate takes a leading date off a snippet.
func splitDate(desc string) (date, rest string) {
	if m := datePrefix.FindStringSubmatchIndex(desc); m != nil {
		return desc[m[2]:m[3]], strings.TrimSpace(desc[m[1]:])
	}
	return "", desc
}

// relatedHints are the related-search links of the layouts seen so far.
const relatedHints = "a.k8XOCe, a.Q71vJc, a.ngTNl, a.EASEnb"

var relatedHeadings = []string{"related searches", "people also search for", "searches related to"}

func relatedQueries(doc *goquery.Document) []RelatedQuery {
	out := []RelatedQuery{}
	seen := map[string]bool{}
	add := func(a *goquery.Selection) {
		href, _ := a.Attr("href")
		u, err := url.Parse(href)
		if err != nil {
			return
		}
		u = googleOrigin.ResolveReference(u)
		q := u.Query()
		if u.Path != "/search" || q.Get("q") == "" || q.Has("tbm") || q.Has("start") || q.Has("uds") || q.Has("si") || q.Has("stick") {
			return
		}
		text := clean(a.Text())
		if text == "" {
			text = q.Get("q")
		}
		if seen[strings.ToLower(text)] {
			return
		}
		seen[strings.ToLower(text)] = true
		out = append(out, RelatedQuery{Query: text, URL: u.String()})
	}
	doc.Find(relatedHints).Each(func(_ int, a *goquery.Selection) { add(a) })
	// By heading: the links in the box that a "Related searches" heading
	// opens. The heading is found by its text node, so that no element's
	// whole text has to be built.
	for _, n := range headingNodes(doc.Get(0)) {
		h := goquery.NewDocumentFromNode(n).Selection
		if h.Closest("#rhs, .kp-wholepage").Length() > 0 {
			continue
		}
		box := h
		for i := 0; i < 6; i++ {
			if box = box.Parent(); box.Length() == 0 {
				break
			}
			if links := box.Find("a[href*='/search?']"); links.Length() > 0 {
				links.Each(func(_ int, a *goquery.Selection) { add(a) })
				break
			}
		}
	}
	return out
}

// headingNodes are the elements whose first text starts a related-searches
// heading ("Related searches", "Searches related to …").
func headingNodes(root *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode && n.Parent != nil && len(n.Data) < 200 {
			t := strings.ToLower(clean(n.Data))
			for _, p := range relatedHeadings {
				if strings.HasPrefix(t, p) {
					out = append(out, n.Parent)
					break
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func peopleAlsoAsk(doc *goquery.Document) []Question {
	out := []Question{}
	seen := map[string]bool{}
	doc.Find("[data-q]").Each(func(_ int, s *goquery.Selection) {
		q := clean(s.AttrOr("data-q", ""))
		if q == "" || seen[q] {
			return
		}
		seen[q] = true
		item := Question{Question: q}
		if ans := s.Find("[data-attrid='wa:/description'], .hgKElc, .wDYxhc [data-md]").First(); ans.Length() > 0 {
			item.Answer = clean(ans.Text())
		}
		s.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
			if a.Find("h3").Length() == 0 {
				return true
			}
			if u := resultURL(a.AttrOr("href", "")); u != "" {
				item.URL, item.Title = u, clean(a.Find("h3").First().Text())
				return false
			}
			return true
		})
		out = append(out, item)
	})
	return out
}

// totalResults reads "About 25,150,000,000 results (0.62 seconds)" in any
// of the digit groupings locales use (1,234 1.234 1 234).
func totalResults(stats string) *int64 {
	stats = clean(stats)
	if i := strings.Index(stats, "("); i >= 0 {
		stats = stats[:i]
	}
	var digits strings.Builder
	started := false
	for i, r := range stats {
		switch {
		case unicode.IsDigit(r) && r < 128:
			digits.WriteRune(r)
			started = true
		case started && (r == ',' || r == '.' || r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\''):
			// a separator only when a digit follows
			if j := i + len(string(r)); j >= len(stats) || stats[j] < '0' || stats[j] > '9' {
				goto done
			}
		case started:
			goto done
		}
	}
done:
	if digits.Len() == 0 {
		return nil
	}
	n, err := strconv.ParseInt(digits.String(), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// nextLinks are the "Next page" / "More results" links of the layouts seen.
const nextLinks = "a#pnnext, a[aria-label='Next page'], a[aria-label='More results'], a[aria-label='More search results'], a[aria-label='Next']"

// nextStart reads the start offset of the page's own next-page link.
func nextStart(doc *goquery.Document) int {
	next := -1
	doc.Find(nextLinks).EachWithBreak(func(_ int, a *goquery.Selection) bool {
		u, err := url.Parse(a.AttrOr("href", ""))
		if err != nil {
			return true
		}
		if n, err := strconv.Atoi(u.Query().Get("start")); err == nil && n > 0 {
			next = n
			return false
		}
		return true
	})
	return next
}

// clean collapses whitespace.
func clean(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

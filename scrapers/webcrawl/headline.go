package webcrawl

import (
	"net/url"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The headline a page shows. A page names itself several times: its
// <title> (for the browser's tab and search results, often with the
// site's name), og:title and twitter:title (for the card a share shows,
// often a teaser), its JSON-LD headline (for search engines), and the <h1>
// its readers see. The title is the one the page shows (see pageTitle).

// maxH1s is how many <h1> elements are read for the headline.
const maxH1s = 32

// headlineMatch is the share of the longer name's words that two names of
// the page must share to be the same headline.
const headlineMatch = 0.6

// pageH1s are the texts of the page's <h1> elements (the first maxH1s)
// that may be its headline: not empty, not in its navigation, and not the
// site's logo (an <h1> holding only a link to the site's home page, or
// the site's name).
func pageH1s(body *html.Node, m pageMeta, pageURL *url.URL) []string {
	var out []string
	seen := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && seen < maxH1s; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Nav:
				continue
			case atom.H1:
				seen++
				t := clean(nodeText(c, 1024))
				if t != "" && !siteLogo(c, t, m, pageURL) {
					out = append(out, t)
				}
				continue
			}
			walk(c)
		}
	}
	walk(body)
	return out
}

// siteLogo says whether an <h1> is the site's logo or name rather than the
// page's headline.
func siteLogo(h1 *html.Node, text string, m pageMeta, pageURL *url.URL) bool {
	if name := clean(m.siteName); name != "" && strings.EqualFold(name, text) {
		return true
	}
	// An <h1> whose text is one link to the site's home page.
	var link *html.Node
	links := 0
	unlinkWhere(h1, func(*html.Node) bool { return false }, func(c *html.Node) bool {
		if c.DataAtom == atom.A {
			links++
			link = c
		}
		return true
	})
	if links != 1 || clean(nodeText(link, 1024)) != text {
		return false
	}
	href := strings.TrimSpace(attrOf(link, "href"))
	if pageURL == nil || href == "" {
		return false
	}
	u, err := pageURL.Parse(href)
	return err == nil && strings.EqualFold(u.Host, pageURL.Host) && strings.Trim(u.Path, "/") == "" && u.RawQuery == ""
}

// headlineWords are a name's words, lower-cased: runs of letters and
// digits (a run of CJK text is one word).
func headlineWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// sameHeadline says whether two of a page's names are the same headline:
// they share headlineMatch of the longer one's words, or the longer begins
// with the shorter ("Story" and "Story | Site"), which is at least
// headlinePrefix of it.
func sameHeadline(a, b string) bool {
	wa, wb := headlineWords(a), headlineWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	count := map[string]int{}
	for _, w := range wb {
		count[w]++
	}
	common := 0
	for _, w := range wa {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	if float64(common) >= headlineMatch*float64(len(wb)) {
		return true
	}
	// "Story" and "Story | The Site's Name", also in scripts written
	// without spaces: the longer begins with the shorter, which is not a
	// mere word of it.
	sa, sb := strings.Join(wa, " "), strings.Join(wb, " ")
	if len(sa) > len(sb) {
		sa, sb = sb, sa
	}
	return strings.HasPrefix(sb, sa) && float64(len(sa)) >= headlinePrefix*float64(len(sb))
}

// headlinePrefix is the share of the longer name the shorter must be when
// the longer begins with it.
const headlinePrefix = 0.4

// titleSeparators split a <title> into its parts ("Story | Site").
var titleSeparators = []string{" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " » ", " / ", " ~ "}

// titleParts are a <title>'s parts between separators.
func titleParts(title string) []string {
	parts := []string{title}
	for _, sep := range titleSeparators {
		var next []string
		for _, p := range parts {
			next = append(next, strings.Split(p, sep)...)
		}
		parts = next
	}
	return parts
}

// titlePart says whether h is the same headline as one of title's parts,
// or as the title less its first or last part ("Story – Subtitle | Site").
func titlePart(h, title string) bool {
	parts := titleParts(title)
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if sameWords(h, p) {
			return true
		}
	}
	return false
}

// sameWords says whether two names have the same words in the same order.
func sameWords(a, b string) bool {
	wa, wb := headlineWords(a), headlineWords(b)
	return len(wa) > 0 && slices.Equal(wa, wb)
}

// siteNamePart drops from a <title> its first or last part when that
// names the site: its og:site_name, or its host's name ("WRAL" on
// wral.com, "AustinTexas.gov" on www.austintexas.gov). "" when no part
// does.
func siteNamePart(title, siteName string, pageURL *url.URL) string {
	title = clean(title)
	var host string
	if pageURL != nil {
		host = strings.TrimPrefix(strings.ToLower(pageURL.Hostname()), "www.")
	}
	isSite := func(part string) bool {
		w := strings.Join(headlineWords(part), "")
		if w == "" {
			return false
		}
		if siteName != "" && w == strings.Join(headlineWords(siteName), "") {
			return true
		}
		if host == "" {
			return false
		}
		label, _, _ := strings.Cut(host, ".")
		return w == strings.Join(headlineWords(host), "") || w == label
	}
	for _, sep := range titleSeparators {
		if i := strings.LastIndex(title, sep); i > 0 && isSite(title[i+len(sep):]) {
			return strings.TrimSpace(title[:i])
		}
		if i := strings.Index(title, sep); i > 0 && isSite(title[:i]) {
			return strings.TrimSpace(title[i+len(sep):])
		}
	}
	return ""
}

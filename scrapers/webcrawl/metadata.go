package webcrawl

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageTitle is the headline the page shows its readers, by this rule:
//  1. the first of its <h1> elements that its metadata confirms: one that
//     is the same headline (sameHeadline) as its JSON-LD headline, its
//     <title> (whole, without the site's name, or one of its parts between
//     separators: titlePart) or its og:title or twitter:title;
//  2. on a page of one thing (an article, a product, a thread: see
//     kindOf), its one <h1> of two words or more, though its metadata
//     says otherwise: a <title> or og:title is often a teaser written for
//     search results and shares, and the <h1> is what its reader sees (a
//     page with several <h1>, none confirmed, has no one headline, and a
//     service's or a section's page whose <h1> says "Welcome" is named by
//     its <title>);
//  3. its JSON-LD headline (the headline as the publisher states it; when
//     it was cut short, the <title> or og:title it begins);
//  4. its <title> without the site's name (the part that names it:
//     og:site_name or the host's name, else as Readability cleans it:
//     siteNamePart, cleanTitle), else og:title or twitter:title, else its
//     first <h1>.
//
// An <h1> that is the site's logo is not read (one that is empty, or only
// a link to the site's home page, or the site's name, og:site_name), nor
// one in its navigation (pageH1s).
func pageTitle(m pageMeta, body *html.Node, kind pageKind, pageURL *url.URL) string {
	h1s := pageH1s(body, m, pageURL)
	ld := ldString(m.jsonLD, ldHeadline)
	title, og := cleanTitle(m.title), clean(m.ogTitle)
	if t := siteNamePart(m.title, m.siteName, pageURL); t != "" {
		title = t
	}
	for _, ref := range []string{ld, title, clean(m.title), og} {
		if ref == "" {
			continue
		}
		for _, h := range h1s {
			if sameHeadline(h, ref) || ref == clean(m.title) && titlePart(h, ref) {
				return h
			}
		}
	}
	if kind != kindOther && len(h1s) == 1 && len(headlineWords(h1s[0])) >= 2 {
		return h1s[0]
	}
	if ld != "" {
		// A JSON-LD headline cut short (search engines ask for 110
		// characters at most) is the <title> or og:title it begins.
		for _, t := range []string{title, og} {
			if cutShort(ld) && len(t) > len(ld) && strings.HasPrefix(strings.Join(headlineWords(t), " "), strings.Join(headlineWords(ld), " ")) {
				return t
			}
		}
		return ld
	}
	if title != "" {
		return title
	}
	if og != "" {
		return og
	}
	if h1 := findElement(body, atom.H1); h1 != nil {
		return clean(nodeText(h1, 1024))
	}
	return ""
}

// cutShort says whether a JSON-LD headline looks cut at a length: it ends
// in an ellipsis, or is about as long as search engines ask (110).
func cutShort(ld string) bool {
	return strings.HasSuffix(ld, "…") || strings.HasSuffix(ld, "...") || utf8.RuneCountInString(ld) >= 100
}

var (
	ldHeadline   = regexp.MustCompile(`"headline"\s*:\s*("(?:[^"\\]|\\.){1,1000}")`)
	ldAuthorName = regexp.MustCompile(`"author"\s*:\s*\[?\s*(?:\{[^{}]{0,1000}?"name"\s*:\s*)?("(?:[^"\\]|\\.){1,256}")`)
)

// ldString is the first JSON string re captures in a page's JSON-LD, decoded.
func ldString(jsonLD string, re *regexp.Regexp) string {
	m := re.FindStringSubmatch(jsonLD)
	if m == nil {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(m[1]), &s) != nil {
		return ""
	}
	return clean(html.UnescapeString(s))
}

// ldAuthor is the author a page's JSON-LD names (a name, not an address).
func ldAuthor(jsonLD string) string {
	a := ldString(jsonLD, ldAuthorName)
	if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") || len(a) > 100 {
		return ""
	}
	return a
}

// Title and byline, as Mozilla's Readability finds them.

var (
	titleSeparator  = regexp.MustCompile(` [\|\-–—\\/>»] `)
	hierarchicalSep = regexp.MustCompile(` [\\/>»] `)
	anySeparators   = regexp.MustCompile(`[\|\-–—\\/>»]+`)
	firstSeparated  = regexp.MustCompile(`^[^\|\-–—\\/>»]*[\|\-–—\\/>»]`)
)

// cleanTitle drops a site name from a <title> the way Readability does:
// "Story | Site" is "Story", unless what is left is too short to be a title.
func cleanTitle(orig string) string {
	orig = clean(orig)
	cur := orig
	hierarchical := false
	if locs := titleSeparator.FindAllStringIndex(orig, -1); len(locs) > 0 {
		hierarchical = hierarchicalSep.MatchString(orig)
		cur = orig[:locs[len(locs)-1][0]]
		if wordCount(cur) < 3 {
			cur = firstSeparated.ReplaceAllString(orig, "")
		}
	}
	cur = clean(cur)
	if n := wordCount(cur); n <= 4 && (!hierarchical || n != wordCount(anySeparators.ReplaceAllString(orig, ""))-1) {
		return orig
	}
	return cur
}

func wordCount(s string) int { return len(strings.Fields(s)) }

var bylineHints = newNameHints("byline", "author", "dateline", "writtenby", "p-author")

// findByline is the first element that names the author with a short
// text: marked as such (rel=author, itemprop=author) first, else one with a
// byline-like class or id.
func findByline(n *html.Node) string {
	if b := findAuthor(n, func(c *html.Node) bool {
		return attrOf(c, "rel") == "author" || strings.Contains(attrOf(c, "itemprop"), "author")
	}); b != "" {
		return b
	}
	return findAuthor(n, func(c *html.Node) bool { return bylineHints.of(c) })
}

func findAuthor(n *html.Node, is func(*html.Node) bool) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if is(c) {
			if name := findAttr(c, "itemprop", "name"); name != nil {
				c = name
			}
			if t := clean(nodeText(c, 256)); t != "" && len(t) < 100 {
				return t
			}
		}
		if b := findAuthor(c, is); b != "" {
			return b
		}
	}
	return ""
}

// findAttr is the first element under n whose attribute key is val.
func findAttr(n *html.Node, key, val string) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if attrOf(c, key) == val {
				return c
			}
			if f := findAttr(c, key, val); f != nil {
				return f
			}
		}
	}
	return nil
}

package webcrawl

import (
	"encoding/json"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageTitle is the page's title by this rule: the <title> without the
// site's name (as Readability cleans it), which is what the page names
// itself in a browser's tab; when there is none, the headline the page
// shows to people who share it (og:title or twitter:title), then its
// JSON-LD headline, then its first <h1>.
func pageTitle(m pageMeta, body *html.Node) string {
	if t := cleanTitle(m.title); t != "" {
		return t
	}
	if t := clean(m.ogTitle); t != "" {
		return t
	}
	if t := ldString(m.jsonLD, ldHeadline); t != "" {
		return t
	}
	if h1 := findElement(body, atom.H1); h1 != nil {
		return clean(nodeText(h1, 1024))
	}
	return ""
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

var bylineHints = []string{"byline", "author", "dateline", "writtenby", "p-author"}

// findByline is the first element that names the author with a short
// text: marked as such (rel=author, itemprop=author) first, else one with a
// byline-like class or id.
func findByline(n *html.Node) string {
	if b := findAuthor(n, func(c *html.Node) bool {
		return attrOf(c, "rel") == "author" || strings.Contains(attrOf(c, "itemprop"), "author")
	}); b != "" {
		return b
	}
	return findAuthor(n, func(c *html.Node) bool { return hasHint(classAndID(c), bylineHints) })
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

package webcrawl

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ctaPhrases are the labels of links and buttons that lead elsewhere
// without saying anything of their own: a card's "Read more", a section's
// "Learn more", a banner's "Get started". Standing alone on their line they
// are the page's furniture, not its content (the card's title and summary
// say what it is).
var ctaPhrases = map[string]bool{
	"read more": true, "learn more": true, "see more": true, "view more": true, "find out more": true, "more": true,
	"read the story": true, "read their story": true, "read blog": true, "read case study": true, "watch demo": true,
	"get started": true, "contact us": true, "know more": true, "continue reading": true, "view all": true,
	"see all": true, "explore": true, "discover more": true, "read article": true, "download": true,
	"register now": true, "apply now": true, "book now": true, "view details": true, "details": true,
	"request a demo": true, "get a quote": true, "start free trial": true, "sign up": true, "subscribe": true,
	"share": true, "show more": true, "shop now": true, "add to cart": true, "add a comment": true, "embed": true,
	"get in touch": true, "download now": true, "book a consultation": true, "see case studies": true, "compare plans": true,
	"get started today": true, "load more": true, "show all": true, "see details": true, "read full story": true,
	"read the full story": true, "read the report": true, "watch video": true, "watch now": true, "view profile": true,
	"view company profile": true, "compare": true, "close": true, "toggle caption": true, "read full article": true,
	"shop all": true, "see all results": true,
}

// ctaLabel is s lower-cased, its words alone (no arrows, no punctuation).
func ctaLabel(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	return strings.Join(f, " ")
}

// dropCallsToAction unlinks, under root, the links, buttons and small
// blocks (a span or div styled as a button) whose whole label is a call to
// action (ctaPhrases) and that stand alone in their block: a "Read more" at
// the end of a sentence stays. It runs after dropMenus, which counts a
// menu's short links, these among them.
func dropCallsToAction(root *html.Node) {
	unlinkWhere(root, func(c *html.Node) bool {
		switch c.DataAtom {
		case atom.A, atom.Button, atom.Span, atom.Div, atom.P, atom.Li:
			l := ctaLabel(nodeText(c, 64))
			return ctaPhrases[l] && alone(c, l)
		}
		return false
	}, func(c *html.Node) bool { return c.DataAtom != atom.Pre && c.DataAtom != atom.Code })
}

// alone says whether the block around n holds no words but label (n's).
func alone(n *html.Node, label string) bool {
	b := n.Parent
	for b != nil && b.Type == html.ElementNode && inline(b) {
		b = b.Parent
	}
	return b == nil || ctaLabel(nodeText(b, 128)) == label
}

package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Small readers of the parsed page that the content choice (region.go,
// asides.go) and the metadata use.

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// nameHints are fragments of class names and ids (lower-cased) that say
// what an element is wherever they are in its class or id ("entry-content",
// "post-controls"), indexed to be found in one pass over each.
type nameHints struct{ ix phraseIndex }

func newNameHints(names ...string) nameHints { return nameHints{newPhraseIndex(names)} }

// of says whether n's class or id, lower-cased, holds one of the hints.
func (h nameHints) of(n *html.Node) bool {
	for _, a := range n.Attr {
		if (a.Key == "class" || a.Key == "id") && a.Val != "" && h.ix.contains(strings.ToLower(a.Val)) {
			return true
		}
	}
	return false
}

// textLen counts a text node's characters with runs of white space as one.
func textLen(s string) int {
	n, space := 0, false
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' {
			if !space {
				n++
			}
			space = true
			continue
		}
		space = false
		n++
	}
	return n
}

// nodeText is up to limit bytes of n's text.
func nodeText(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && b.Len() < limit; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				walk(c)
			}
		}
	}
	walk(n)
	return truncateBytes(b.String(), limit)
}

// findElement is the first element with tag a under n, depth first.
func findElement(n *html.Node, a atom.Atom) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if c.DataAtom == a {
				return c
			}
			if f := findElement(c, a); f != nil {
				return f
			}
		}
	}
	return nil
}

// unlinkWhere unlinks, under n, every element drop says to, and looks into
// the others, those into says (nil: all of them).
func unlinkWhere(n *html.Node, drop, into func(c *html.Node) bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch {
			case drop(c):
				n.RemoveChild(c)
			case into == nil || into(c):
				unlinkWhere(c, drop, into)
			}
		}
		c = next
	}
}

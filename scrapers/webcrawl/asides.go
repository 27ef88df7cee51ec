package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Sections a page titles as being about something else: products or
// stories it recommends, what others viewed, newsletters, share bars, and,
// on an article, its comments. They are found by their heading's words,
// since their markup is the same as the content's: the words are each
// language's asides and articleAsides (furniture_tables.go).

// asideHeading says whether a heading's text titles such a section.
func asideHeading(text string, article bool) bool {
	t := strings.ToLower(clean(text))
	if len(t) > asideHeadingMax {
		return false
	}
	return asideTitle(t, article)
}

// asideHeadingMax is the longest heading (bytes, lower-cased and cleaned)
// that may title an aside.
const asideHeadingMax = 80

// asideTitle is asideHeading of a heading's text lower-cased and cleaned.
func asideTitle(t string, article bool) bool {
	if t == "" {
		return false
	}
	if noCommentsHeading(t) {
		return true
	}
	// A count before the words ("0 Kommentare", "12 Responses") is not
	// part of them.
	if u := strings.TrimLeft(t, "0123456789 "); u != t && u != "" {
		t = u
	}
	return furniturePhrases.asides.has(t) || article && furniturePhrases.articleAsides.has(t)
}

// noCommentsHeading says whether a heading's text (lower-cased) says there
// are no comments yet: it titles a comment form, not comments, and the
// box it sits in may hold the article too (a blog's post and its "No
// Response so far" share a div), so only it and what follows it go.
func noCommentsHeading(t string) bool {
	return furniturePhrases.noComments.has(t)
}

// dropAsides unlinks, under n, the sections titled by such headings: the
// heading's parent when that holds little of the content (a box of its
// own), else the heading and what follows it up to the next heading.
func dropAsides(n *html.Node, article bool, sizes textSizes) {
	clear(sizes)
	total := measureText(n, sizes)
	var found []*html.Node
	var line lineText
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		for d := c.FirstChild; d != nil; d = d.NextSibling {
			if d.Type != html.ElementNode {
				continue
			}
			if heading(d) || leafBlock(d) && sizes[d] <= 80 {
				line.reset(asideHeadingMax)
				readText(d, 256, &line)
				if t, ok := line.plain(); ok && asideTitle(t, article) {
					found = append(found, d)
				}
				continue
			}
			walk(d)
		}
	}
	walk(n)
	for _, h := range found {
		if !under(h, n) {
			continue // gone with an earlier section
		}
		// The title's own wrappers (a div around a span) are the title.
		for h.Parent != n && 2*sizes[h.Parent] <= 3*sizes[h] {
			h = h.Parent
		}
		none := noCommentsHeading(strings.ToLower(clean(nodeText(h, 256))))
		if p := h.Parent; p != n && !none && 10*sizes[p] <= 3*total {
			p.Parent.RemoveChild(p)
			continue
		}
		if !heading(h) {
			h.Parent.RemoveChild(h)
			continue
		}
		level := headingLevel(h)
		for s := h.NextSibling; s != nil; {
			next := s.NextSibling
			if s.Type == html.ElementNode && heading(s) && headingLevel(s) <= level {
				break
			}
			h.Parent.RemoveChild(s)
			s = next
		}
		h.Parent.RemoveChild(h)
	}
}

func heading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func headingLevel(n *html.Node) int { return int(n.Data[1] - '0') }

// under says whether c is still in n's tree.
func under(c, n *html.Node) bool {
	for a := c.Parent; a != nil; a = a.Parent {
		if a == n {
			return true
		}
	}
	return false
}

package webcrawl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Calls to action are the labels of links and buttons that lead elsewhere
// without saying anything of their own: a card's "Read more", a section's
// "Learn more", a banner's "Get started", an article's "Print" or "Back to
// top". Standing alone on their line they are the page's furniture, not its
// content (the card's title and summary say what it is). Their words are
// each language's labels (furniture_tables.go).

// ctaLabel is s lower-cased, its words alone (no arrows, no punctuation).
func ctaLabel(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	return strings.Join(f, " ")
}

// dropCallsToAction unlinks, under root, the links, buttons, form labels and small
// blocks (a span or div styled as a button) whose whole label is a call to
// action (a label of furniturePhrases) and that stand alone in their block: a "Read more" at
// the end of a sentence stays. It runs after dropMenus, which counts a
// menu's short links, these among them.
func dropCallsToAction(root *html.Node) {
	var label labelText
	unlinkWhere(root, func(c *html.Node) bool {
		switch c.DataAtom {
		case atom.A, atom.Button, atom.Span, atom.Div, atom.P, atom.Li, atom.Label:
			label.reset(furniturePhrases.labelMax)
			readText(c, 64, &label)
			if label.over || !furniturePhrases.labels[string(label.b)] {
				return false
			}
			return alone(c, string(label.b))
		}
		return false
	}, func(c *html.Node) bool { return c.DataAtom != atom.Pre && c.DataAtom != atom.Code })
}

// labelText builds a label in ctaLabel's form from the text of nodes, into
// a buffer used again for every element, and stops once it is longer than
// any label: most elements asked are not calls to action.
type labelText struct {
	b    []byte
	max  int
	gap  bool // a character that is not a letter was read since the last letter
	over bool
}

func (l *labelText) reset(max int) {
	l.b, l.max, l.gap, l.over = l.b[:0], max, false, false
}

func (l *labelText) full() bool { return l.over }

func (l *labelText) text(s string) {
	for _, r := range s {
		if l.over {
			return
		}
		r = unicode.ToLower(r)
		if !unicode.IsLetter(r) {
			l.gap = true
			continue
		}
		if l.gap && len(l.b) > 0 {
			l.b = append(l.b, ' ')
		}
		l.gap = false
		l.b = utf8.AppendRune(l.b, r)
		l.over = len(l.b) > l.max
	}
}

// alone says whether n stands alone: the block around it holds no words
// but label (n's), or no words of a sentence touch it (a row of buttons,
// "Print" and "Share" side by side, is not a sentence: "To learn more,
// call" is).
func alone(n *html.Node, label string) bool {
	b := n.Parent
	for b != nil && b.Type == html.ElementNode && inline(b) {
		b = b.Parent
	}
	if b == nil || ctaLabel(nodeText(b, 128)) == label {
		return true
	}
	for c := n; c != b; c = c.Parent {
		if wordBeside(c.PrevSibling, true) || wordBeside(c.NextSibling, false) {
			return false
		}
	}
	return true
}

// wordBeside says whether the text nodes next to a node (its siblings from
// s on, backwards when back) hold a word before the next element.
func wordBeside(s *html.Node, back bool) bool {
	for ; s != nil && s.Type != html.ElementNode; s = next(s, back) {
		if s.Type == html.TextNode && ctaLabel(s.Data) != "" {
			return true
		}
	}
	return false
}

func next(s *html.Node, back bool) *html.Node {
	if back {
		return s.PrevSibling
	}
	return s.NextSibling
}

package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A news article's lead (its standfirst: the paragraph or two under the
// headline that sums it up) is often outside the element its software
// names as the text: in the header, beside the headline and the date. When
// the content was narrowed to a block that leaves it out, the lead is taken
// too, before it: the first element after the page's <h1> and before the
// chosen block whose class or id names a lead, holding a sentence or a few.

// leadWords are the class and id words that name a lead, in the languages
// sites name their classes in.
var leadWords = map[string]bool{
	"lead": true, "leadin": true, "intro": true, "introduction": true, "abstract": true, "teaser": true,
	"standfirst": true, "summary": true, "deck": true, "dek": true, "subtitle": true, "subheadline": true,
	"subhead": true, "excerpt": true, "description": true, "strapline": true,
	// German, French, Spanish, Italian, Polish
	"vorspann": true, "anreisser": true, "einleitung": true, "chapo": true, "chapeau": true, "entradilla": true,
	"bajada": true, "sumario": true, "catenaccio": true, "sommario": true, "lid": true, "zajawka": true,
}

// The text (bytes) a lead holds.
const (
	leadMin = 40
	leadMax = 1500
	// leadWalk bounds the elements looked at between the headline and the
	// chosen block.
	leadWalk = 2000
)

// leadBefore is the lead of the page (see above) that region holds before
// chosen and chosen does not hold, or nil.
func leadBefore(region, chosen *html.Node) *html.Node {
	if chosen == region {
		return nil
	}
	h1 := findElement(region, atom.H1)
	seen := h1 == nil
	if h1 != nil && under(chosen, h1) {
		return nil
	}
	steps := 0
	var found *html.Node
	held := ""                       // chosen's text, words joined by one space, read once when needed
	var walk func(n *html.Node) bool // false: stop
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if steps++; steps > leadWalk || c == chosen {
				return false
			}
			if c == h1 {
				seen = true
				continue
			}
			if seen && !under(chosen, c) && (classTokens(c, func(w string) bool { return leadWords[w] }) || standfirst(c, h1)) {
				t := strings.TrimSpace(nodeText(c, leadMax+1))
				if len(t) >= leadMin && len(t) <= leadMax && held == "" {
					held = strings.Join(strings.Fields(nodeText(chosen, leadHeldMax)), " ")
				}
				if len(t) >= leadMin && len(t) <= leadMax && !strings.Contains(held, strings.Join(strings.Fields(t), " ")) {
					found = c
					return false
				}
			}
			if !walk(c) {
				return false
			}
		}
		return true
	}
	walk(region)
	return found
}

// leadHeldMax bounds the text of the chosen block a lead is looked for in
// (bytes): a site that repeats its lead repeats it first. A lead is held
// only when the text holds it whole (a first paragraph that only begins
// alike is not the lead).
const leadHeldMax = 64 << 10

// standfirst says whether c, with no class naming a lead, is one by its
// place: the paragraph or subheading right after the headline, a sentence
// or more long (leadSentence), with no link.
func standfirst(c, h1 *html.Node) bool {
	if h1 == nil || c.Parent != h1.Parent || c.DataAtom != atom.P && c.DataAtom != atom.H2 {
		return false
	}
	prev := c.PrevSibling
	for prev != nil && prev.Type != html.ElementNode {
		prev = prev.PrevSibling
	}
	return prev == h1 && findElement(c, atom.A) == nil && textLen(nodeText(c, leadMax)) >= leadSentence
}

// leadSentence is the text (bytes) from which a paragraph after the
// headline is a lead, not a kicker or a date.
const leadSentence = 100

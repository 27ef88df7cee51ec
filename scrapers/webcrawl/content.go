package webcrawl

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main-content selection, after Mozilla's Readability (the scoring of
// paragraphs into their ancestors, the sibling rule, the conditional
// cleaning), done in place on the one tree: nothing is cloned, and the parts
// judged not to be content are unlinked rather than copied around.

// unlikely class or id fragments mark page furniture; maybe ones rescue an
// element that has both (Readability's lists, plus a few of MediaWiki's).
var (
	unlikelyHints = []string{"-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap",
		"disqus", "extra", "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss",
		"shoutbox", "sidebar", "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate", "pagination",
		"pager", "popup", "yom-remote", "editsection", "navbox", "catlinks", "printfooter", "jump-to-nav", "share", "cookie"}
	maybeHints    = []string{"and", "article", "body", "column", "content", "main", "shadow"}
	negativeHints = []string{"-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr", "masthead",
		"media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor",
		"shopping", "tags", "widget", "editsection", "navbox"}
	positiveHints = []string{"article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "pagination",
		"post", "text", "blog", "story"}
	unlikelyRoles = map[string]bool{"menu": true, "menubar": true, "complementary": true, "navigation": true,
		"alert": true, "alertdialog": true, "dialog": true}
)

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasHint(s string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// hintSet is a hint list as a set of class words.
func hintSet(hints []string) map[string]bool {
	m := make(map[string]bool, len(hints))
	for _, h := range hints {
		m[strings.Trim(h, "-")] = true
	}
	return m
}

var (
	unlikelyWords = hintSet(unlikelyHints)
	maybeWords    = hintSet(maybeHints)
	negativeWords = hintSet(negativeHints)
	positiveWords = hintSet(positiveHints)
)

// hasWord says whether one of v's words (split at '-', '_' and spaces) is in set.
func hasWord(v string, set map[string]bool) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '-' || r == '_' || r == ' ' || r == '\t' || r == '\n' }) {
		if set[w] || set[strings.TrimSuffix(w, "s")] {
			return true
		}
	}
	return false
}

// classAndID is an element's class and id, lower-cased, for the hint lists.
func classAndID(n *html.Node) string {
	c, id := attrOf(n, "class"), attrOf(n, "id")
	if c == "" && id == "" {
		return ""
	}
	return strings.ToLower(c + " " + id)
}

// classWeight is Readability's: ±25 for each of class and id that look like
// content or furniture.
func classWeight(n *html.Node) float64 {
	w := 0.0
	for _, v := range []string{attrOf(n, "class"), attrOf(n, "id")} {
		if v == "" {
			continue
		}
		if hasWord(v, negativeWords) {
			w -= 25
		}
		if hasWord(v, positiveWords) {
			w += 25
		}
	}
	return w
}

// stats are the counts Readability's rules read, for one element and all it
// holds, computed in one pass.
type stats struct {
	text, link, commas int
	p, img, li, input  int
	embed, headingText int
}

type scorer struct {
	st     map[*html.Node]*stats
	pool   []stats // where st's entries live: one allocation, not one per element
	scores map[*html.Node]float64
	order  []*html.Node // candidates in the order first scored
}

// measure fills the stats of n and everything under it.
func (sc *scorer) measure(n *html.Node, inLink bool) *stats {
	if len(sc.pool) == cap(sc.pool) {
		sc.pool = make([]stats, 0, max(256, cap(sc.pool)))
	}
	sc.pool = sc.pool[:len(sc.pool)+1]
	s := &sc.pool[len(sc.pool)-1]
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			l := textLen(c.Data)
			s.text += l
			if inLink {
				s.link += l
			}
			s.commas += commas(c.Data)
		case html.ElementNode:
			cs := sc.measure(c, inLink || c.DataAtom == atom.A)
			s.text += cs.text
			s.link += cs.link
			s.commas += cs.commas
			s.p += cs.p
			s.img += cs.img
			s.li += cs.li
			s.input += cs.input
			s.embed += cs.embed
			s.headingText += cs.headingText
			switch c.DataAtom {
			case atom.P:
				s.p++
			case atom.Img:
				s.img++
			case atom.Li:
				s.li++
			case atom.Input, atom.Select, atom.Textarea:
				s.input++
			case atom.Object, atom.Embed, atom.Iframe:
				s.embed++
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				s.headingText += cs.text
			}
		}
	}
	sc.st[n] = s
	return s
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

func commas(s string) int {
	return strings.Count(s, ",") + strings.Count(s, "，") + strings.Count(s, "、")
}

func (sc *scorer) linkDensity(n *html.Node) float64 {
	s := sc.st[n]
	if s == nil || s.text == 0 {
		return 0
	}
	return float64(s.link) / float64(s.text)
}

// removeUnlikely unlinks page furniture by class, id, role and tag before
// scoring, as Readability's first pass does.
func removeUnlikely(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			if unlikely(c) {
				n.RemoveChild(c)
			} else if !keepWhole(c) {
				removeUnlikely(c)
			}
		}
		c = next
	}
}

func keepWhole(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Pre, atom.Code:
		return true
	}
	return false
}

func unlikely(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer:
		return true
	case atom.Body, atom.A, atom.Article, atom.Main:
		return false
	}
	if unlikelyRoles[attrOf(n, "role")] {
		return true
	}
	m := classAndID(n)
	return m != "" && hasWord(m, unlikelyWords) && !hasWord(m, maybeWords)
}

func isScored(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Td, atom.Section, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote:
		return true
	case atom.Div:
		// A div holding text of its own, not only blocks, reads as a paragraph.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && textLen(strings.TrimSpace(c.Data)) >= 25 {
				return true
			}
		}
	}
	return false
}

func (sc *scorer) initCandidate(n *html.Node) {
	if _, ok := sc.scores[n]; ok {
		return
	}
	s := 0.0
	switch n.DataAtom {
	case atom.Div:
		s = 5
	case atom.Pre, atom.Td, atom.Blockquote:
		s = 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		s = -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		s = -5
	}
	sc.scores[n] = s + classWeight(n)
	sc.order = append(sc.order, n)
}

// score gives every paragraph's points to its ancestors.
func (sc *scorer) score(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if isScored(c) {
			st := sc.st[c]
			if st != nil && st.text >= 25 && c.Parent != nil {
				points := 1 + float64(st.commas) + float64(min(st.text/100, 3))
				level := 0
				for a := c.Parent; a != nil && a.Type == html.ElementNode && level < 5; a = a.Parent {
					sc.initCandidate(a)
					div := 1.0
					switch level {
					case 0:
					case 1:
						div = 2
					default:
						div = float64(level * 3)
					}
					sc.scores[a] += points / div
					level++
				}
			}
		}
		sc.score(c)
	}
}

// mainContent picks the page's main content under body and cleans it,
// returning the nodes to convert, in document order.
func mainContent(body *html.Node) []*html.Node {
	removeUnlikely(body)
	sc := &scorer{st: make(map[*html.Node]*stats, 1024), scores: make(map[*html.Node]float64, 256)}
	sc.measure(body, false)
	sc.score(body)
	var top *html.Node
	best := 0.0
	for _, n := range sc.order {
		if n.DataAtom == atom.Html || n.DataAtom == atom.Body {
			continue
		}
		s := sc.scores[n] * (1 - sc.linkDensity(n))
		sc.scores[n] = s
		if top == nil || s > best {
			top, best = n, s
		}
	}
	if top == nil {
		sc.clean(body)
		return []*html.Node{body}
	}
	// The only child of its parent: take the parent, as Readability does.
	for top.Parent != nil && top.Parent.DataAtom != atom.Body && top.Parent.Type == html.ElementNode && onlyElementChild(top) {
		top = top.Parent
	}
	nodes := sc.withSiblings(top, best)
	for _, n := range nodes {
		sc.clean(n)
	}
	return nodes
}

func onlyElementChild(n *html.Node) bool {
	for c := n.Parent.FirstChild; c != nil; c = c.NextSibling {
		if c != n && (c.Type == html.ElementNode || c.Type == html.TextNode && strings.TrimSpace(c.Data) != "") {
			return false
		}
	}
	return true
}

// withSiblings adds the top candidate's siblings that read as content too.
func (sc *scorer) withSiblings(top *html.Node, best float64) []*html.Node {
	if top.Parent == nil {
		return []*html.Node{top}
	}
	threshold := max(10, best*0.2)
	class := attrOf(top, "class")
	var out []*html.Node
	for s := top.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s == top {
			out = append(out, s)
			continue
		}
		if s.Type != html.ElementNode {
			continue
		}
		bonus := 0.0
		if class != "" && attrOf(s, "class") == class {
			bonus = best * 0.2
		}
		score, scored := sc.scores[s]
		keep := scored && score+bonus >= threshold
		if !keep && s.DataAtom == atom.P {
			st := sc.st[s]
			ld := sc.linkDensity(s)
			keep = st != nil && (st.text > 80 && ld < 0.25 || st.text > 0 && st.text <= 80 && ld == 0 && strings.Contains(nodeText(s, 200), ". "))
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// clean unlinks, inside content, what Readability's conditional cleaning
// drops: blocks that are mostly links, images without text, forms.
func (sc *scorer) clean(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch {
			case c.DataAtom == atom.Table && sc.isDataTable(c), c.DataAtom == atom.Pre, c.DataAtom == atom.Code:
				// kept whole
			case sc.dropConditionally(c), c.DataAtom == atom.A && emptyLink(c):
				n.RemoveChild(c)
			default:
				sc.clean(c)
			}
		}
		c = next
	}
}

func (sc *scorer) dropConditionally(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2:
		return classWeight(n) < 0
	case atom.Table, atom.Ul, atom.Ol, atom.Div, atom.Section, atom.Header, atom.Fieldset:
	default:
		return false
	}
	st := sc.st[n]
	if st == nil {
		return false
	}
	weight := classWeight(n)
	if weight+sc.scores[n] < 0 {
		return true
	}
	if st.commas >= 10 {
		return false
	}
	isList := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol
	ld := sc.linkDensity(n)
	headingDensity := 0.0
	if st.text > 0 {
		headingDensity = float64(st.headingText) / float64(st.text)
	}
	switch {
	case st.img > 1 && float64(st.p)/float64(st.img) < 0.5 && !inFigure(n):
		return true
	case !isList && st.li-100 > st.p:
		return true
	case st.input > st.p/3:
		return true
	case !isList && headingDensity < 0.9 && st.text < 25 && (st.img == 0 || st.img > 2) && ld > 0:
		return true
	case !isList && weight < 25 && ld > 0.2:
		return true
	case weight >= 25 && ld > 0.5:
		return true
	case st.embed == 1 && st.text < 75 || st.embed > 1:
		return true
	}
	return false
}

func inFigure(n *html.Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.DataAtom == atom.Figure {
			return true
		}
	}
	return false
}

// isDataTable is Readability's guess that a table holds data, not layout.
func (sc *scorer) isDataTable(t *html.Node) bool {
	if strings.EqualFold(attrOf(t, "role"), "presentation") {
		return false
	}
	rows, cols := 0, 0
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Caption, atom.Th, atom.Thead, atom.Tfoot, atom.Colgroup, atom.Col:
				return true
			case atom.Table:
				continue // a nested table is layout's sign; its own rows are not ours
			case atom.Tr:
				rows++
				n := 0
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.DataAtom == atom.Td || d.DataAtom == atom.Th {
						n++
					}
				}
				cols = max(cols, n)
			}
			if walk(c) {
				return true
			}
		}
		return false
	}
	if walk(t) {
		return true
	}
	return rows >= 10 || cols > 4 || rows*cols > 10
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

// emptyLink is an anchor with neither text nor image: a jump target.
func emptyLink(a *html.Node) bool {
	return strings.TrimSpace(nodeText(a, 64)) == "" && findElement(a, atom.Img) == nil
}

package webcrawl

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Formulas. A page writes its math in one of a few shapes, and each becomes
// TeX between dollars ($…$ inline, $$…$$ for a displayed formula) where the
// page holds the TeX, else a readable linear form of its MathML:
//   - MathML (<math>), as arXiv's LaTeXML papers, Wikipedia, KaTeX and
//     MathJax 3's assistive copy write it: the TeX of its annotation
//     (<annotation encoding="application/x-tex">), else its alttext when
//     that is TeX, else the linear form (mfrac → a/b, msup → a^b, msub →
//     a_b, msqrt → √(x), …). display="block" makes it a displayed formula.
//   - MathJax 2's source, <script type="math/tex"> (mode=display for a
//     displayed one): its TeX. The output MathJax 2 writes before it (its
//     "-Frame" spans, previews and display divs) is skipped, so that the
//     formula is read once.
//   - Wikipedia's fallback image (class mwe-math-fallback-image-…): its alt,
//     the TeX, only where the MathML beside it was not read.
// MathJax 3's and KaTeX's visual output is aria-hidden, and skipped with
// the other hidden elements; Wikipedia's MathML, hidden for its image, is
// read. The scan reads a formula as it goes (mathCapture) and writes it
// into the reduced page as one element holding its text: a TeX formula is
// marked data-wc-tex (an attribute the scan never copies from a page), and
// the Markdown converter writes it between dollars as it is (renderTeX).

// Bounds on one formula: elements read, nesting followed, and bytes of text
// kept. Past them the formula is read no further (a capped formula is still
// written, as far as it was read).
const (
	maxMathNodes = 4096
	maxMathDepth = 64
	maxMathText  = 16 << 10
)

// mathNode is one MathML element of a formula being read.
type mathNode struct {
	tag    string
	attrs  []mathAttr
	text   strings.Builder // the text directly inside the element
	kids   []*mathNode
	parent *mathNode
}

type mathAttr struct{ key, val string }

func (n *mathNode) attr(key string) string {
	for _, a := range n.attrs {
		if a.key == key {
			return a.val
		}
	}
	return ""
}

// mathCapture is a formula the scan is reading: a <math> element's tree, or
// the TeX of a MathJax 2 script.
type mathCapture struct {
	root    *mathNode
	cur     *mathNode
	depth   int // open elements below root
	over    int // open elements not kept (past maxMathDepth or maxMathNodes)
	nodes   int
	textLen int
	script  bool // a <script type="math/tex">: root's text is the TeX
	display bool
	cut     bool // a bound was reached: the formula was read no further
}

func newMathCapture(tag string, attrs []mathAttr) *mathCapture {
	root := &mathNode{tag: tag, attrs: attrs}
	return &mathCapture{root: root, cur: root, nodes: 1}
}

// open starts an element inside the formula.
func (m *mathCapture) open(tag string, attrs []mathAttr, void bool) {
	if m.over > 0 || m.depth >= maxMathDepth || m.nodes >= maxMathNodes {
		if !void {
			m.over++
		}
		m.cut = true
		return
	}
	n := &mathNode{tag: tag, attrs: attrs, parent: m.cur}
	m.cur.kids = append(m.cur.kids, n)
	m.nodes++
	if !void {
		m.cur = n
		m.depth++
	}
}

// close ends the innermost open element named tag, and those inside it.
func (m *mathCapture) close(tag string) {
	if m.over > 0 {
		m.over--
		return
	}
	for n, d := m.cur, m.depth; n != m.root && n != nil; n, d = n.parent, d-1 {
		if n.tag == tag {
			m.cur, m.depth = n.parent, d-1
			return
		}
	}
}

// addText adds text to the element being read, within maxMathText.
func (m *mathCapture) addText(t []byte) {
	if m.over > 0 {
		return
	}
	room := maxMathText - m.textLen
	if len(t) > room {
		m.cut = true
		t = t[:runeStart(t, max(room, 0))]
	}
	m.textLen += len(t)
	m.cur.text.Write(t)
}

// formula is what the capture reads as: TeX (tex true) or a linear form,
// and whether it is displayed.
func (m *mathCapture) formula() (s string, tex, display bool) {
	if m.script {
		return cleanTeX(m.root.text.String()), true, m.display
	}
	display = strings.EqualFold(strings.TrimSpace(m.root.attr("display")), "block") || strings.EqualFold(m.root.attr("mode"), "display")
	if t := annotationTeX(m.root, 0); t != "" {
		return cleanTeX(t), true, display
	}
	if alt := m.root.attr("alttext"); texLike(alt) {
		return cleanTeX(alt), true, display
	}
	var b strings.Builder
	linear(&b, m.root, 0)
	return clean(b.String()), false, display
}

// annotationTeX is the text of the first TeX annotation under n (a
// <semantics> element's <annotation encoding="application/x-tex">).
func annotationTeX(n *mathNode, depth int) string {
	if depth > maxMathDepth {
		return ""
	}
	for _, c := range n.kids {
		if c.tag == "annotation" && texEncoding(c.attr("encoding")) {
			if t := strings.TrimSpace(c.text.String()); t != "" {
				return t
			}
		}
		if t := annotationTeX(c, depth+1); t != "" {
			return t
		}
	}
	return ""
}

// texEncoding says whether an annotation's encoding names TeX or LaTeX
// (application/x-tex, TeX, application/x-latex, text/x-tex).
func texEncoding(enc string) bool {
	e := strings.ToLower(enc)
	return strings.Contains(e, "tex")
}

// texLike says whether a <math> element's alttext is TeX rather than words
// for a screen reader ("x squared plus one"): it uses TeX's marks, or it is
// not a phrase of several words.
func texLike(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	if strings.ContainsAny(s, `\^_{}`) {
		return true
	}
	words := 0
	for _, w := range strings.Fields(s) {
		if utf8.RuneCountInString(w) > 1 && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			words++
		}
	}
	return words < 3
}

// cleanTeX is a formula's TeX as Markdown may carry it between dollars: on
// one line (TeX reads a line break as a space), without Wikipedia's
// {\displaystyle …} wrapper, without control characters, with a dollar
// sign that TeX's own \$ does not escape escaped, and within maxMathText.
func cleanTeX(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = clean(s)
	for _, style := range []string{`{\displaystyle`, `{\textstyle`} {
		if rest, ok := strings.CutPrefix(s, style); ok && strings.HasSuffix(rest, "}") && balanced(rest[:len(rest)-1]) {
			s = strings.TrimSpace(rest[:len(rest)-1])
			break
		}
	}
	if strings.Contains(s, "$") {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '$' && (i == 0 || s[i-1] != '\\') {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	s = truncateBytes(s, maxMathText)
	// A lone backslash at the end would escape the closing dollar.
	if strings.HasSuffix(s, `\`) && !strings.HasSuffix(s, `\\`) {
		s = strings.TrimSpace(s[:len(s)-1])
	}
	return s
}

// balanced says whether s's braces (other than TeX's \{ and \}) close as
// they open.
func balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			d++
		case '}':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// linear writes MathML as a line of text a reader can follow: a/b, a^b,
// a_b, √(x), matrices as [a, b; c, d], operators spaced.
func linear(b *strings.Builder, n *mathNode, depth int) {
	if depth > maxMathDepth {
		return
	}
	kid := func(i int) string {
		if i >= len(n.kids) {
			return ""
		}
		var kb strings.Builder
		linear(&kb, n.kids[i], depth+1)
		return strings.TrimSpace(kb.String())
	}
	switch n.tag {
	case "mi", "mn", "mtext", "ms":
		b.WriteString(mathToken(n))
	case "mo":
		op := strings.TrimSpace(mathToken(n))
		switch {
		case op == "" || op == "\u2061" || op == "\u2062" || op == "\u2063" || op == "\u2064":
		case op == "," || op == ";":
			b.WriteString(op + " ")
		case spacedOperator(op) && !prefixPosition(b.String()):
			b.WriteString(" " + op + " ")
		default:
			b.WriteString(op)
		}
	case "mspace":
		b.WriteByte(' ')
	case "annotation", "annotation-xml", "mphantom", "none", "mprescripts", "malignmark", "maligngroup":
	case "semantics":
		if len(n.kids) > 0 {
			linear(b, n.kids[0], depth+1)
		}
	case "mfrac":
		b.WriteString(group(kid(0)) + "/" + group(kid(1)))
	case "msup", "mover":
		b.WriteString(group(kid(0)) + "^" + group(kid(1)))
	case "msub", "munder":
		b.WriteString(group(kid(0)) + "_" + group(kid(1)))
	case "msubsup", "munderover":
		b.WriteString(group(kid(0)) + "_" + group(kid(1)) + "^" + group(kid(2)))
	case "msqrt":
		var kb strings.Builder
		for _, c := range n.kids {
			linear(&kb, c, depth+1)
		}
		b.WriteString("√" + paren(clean(kb.String())))
	case "mroot":
		b.WriteString("√[" + kid(1) + "]" + paren(kid(0)))
	case "mfenced":
		open, close, seps := "(", ")", ","
		for _, a := range n.attrs {
			switch a.key {
			case "open":
				open = a.val
			case "close":
				close = a.val
			case "separators":
				seps = strings.TrimSpace(a.val)
			}
		}
		b.WriteString(open)
		for i := range n.kids {
			if i > 0 && seps != "" {
				r, _ := utf8.DecodeRuneInString(seps)
				b.WriteString(string(r) + " ")
			}
			b.WriteString(kid(i))
		}
		b.WriteString(close)
	case "mtable":
		b.WriteByte('[')
		for i := range n.kids {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(kid(i))
		}
		b.WriteByte(']')
	case "mtr", "mlabeledtr":
		for i := range n.kids {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(kid(i))
		}
	default: // math, mrow, mstyle, mpadded, menclose, merror, mtd, maction, mmultiscripts …
		b.WriteString(n.text.String())
		for _, c := range n.kids {
			linear(b, c, depth+1)
		}
	}
}

// mathToken is a token element's text, white space collapsed.
func mathToken(n *mathNode) string {
	var b strings.Builder
	b.WriteString(n.text.String())
	for _, c := range n.kids { // <mglyph>, or markup a page put inside a token
		b.WriteString(c.text.String())
	}
	return clean(b.String())
}

// spacedOperator says whether an operator reads with spaces around it
// (relations and binary operators).
func spacedOperator(op string) bool {
	switch op {
	case "=", "+", "-", "−", "<", ">", "≤", "≥", "≠", "±", "∓", "×", "÷", "·", "⋅", "→", "←", "↔", "⇒", "⇐", "⇔",
		"∈", "∉", "⊂", "⊆", "⊃", "⊇", "≈", "≡", "∼", "≅", "∝", "∪", "∩", "∧", "∨", ":=", "≔", "↦", "∘", "⊕", "⊗":
		return true
	}
	return false
}

// prefixPosition says whether an operator written after text is a sign
// (−b, +1) rather than a binary one: nothing or an opening bracket or
// another operator comes before it.
func prefixPosition(before string) bool {
	before = strings.TrimRight(before, " ")
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune("([{,;=+-−<>≤≥±×÷", r)
}

// group parenthesises a part of a fraction or a script unless it is one
// name or number.
func group(s string) string {
	if oneTerm(s) {
		return s
	}
	return "(" + s + ")"
}

// paren parenthesises s unless it is one character.
func paren(s string) string {
	if utf8.RuneCountInString(s) == 1 {
		return s
	}
	return "(" + s + ")"
}

// oneTerm says whether s is one character, one name (letters) or one
// number: a fraction's or a script's part that needs no brackets.
func oneTerm(s string) bool {
	if s == "" {
		return false
	}
	if utf8.RuneCountInString(s) == 1 {
		return true
	}
	letters, digits := true, true
	for _, r := range s {
		letters = letters && unicode.IsLetter(r)
		digits = digits && (unicode.IsDigit(r) || r == '.')
	}
	return letters || digits
}

// mathJaxOutput says whether an element is MathJax 2's output for a formula
// whose source (<script type="math/tex">, read instead) follows it: a
// "MathJax-Element-N-Frame", a preview, or a displayed formula's div.
func mathJaxOutput(class, id string) bool {
	if strings.HasPrefix(id, "MathJax-Element-") && strings.HasSuffix(id, "-Frame") {
		return true
	}
	if !strings.Contains(class, "MathJax") {
		return false
	}
	for _, c := range strings.Fields(class) {
		switch c {
		case "MathJax_Preview", "MathJax_Display", "MathJax_SVG_Display", "MathJax_CHTML_Display", "MathJax_PHTML_Display":
			return true
		}
	}
	return false
}

// texScript says whether a script's type is MathJax 2's TeX source
// ("math/tex", "math/tex; mode=display"), and whether it is displayed.
func texScript(typ string) (ok, display bool) {
	t := strings.ToLower(strings.TrimSpace(typ))
	if !strings.HasPrefix(t, "math/tex") {
		return false, false
	}
	return true, strings.Contains(t, "mode=display")
}

// wikiMathHidden says whether a hidden element is Wikipedia's MathML,
// hidden for the image beside it (class mwe-math-mathml-a11y): it is read.
func wikiMathHidden(class string) bool {
	return strings.Contains(class, "mwe-math-mathml")
}

// wikiMathImage says whether an image is Wikipedia's picture of a formula
// (its alt is the TeX), and whether it is a displayed one.
func wikiMathImage(class string) (ok, display bool) {
	if !strings.Contains(class, "mwe-math-fallback-image") {
		return false, false
	}
	return true, strings.Contains(class, "mwe-math-fallback-image-display")
}

// writeFormula writes a formula into the reduced page: TeX as a span (a
// div when displayed) marked data-wc-tex, a linear form as a plain span.
func writeFormula(w *bytes.Buffer, s string, tex, display bool) {
	tag := "span"
	if display {
		tag = "div"
	}
	w.WriteByte('<')
	w.WriteString(tag)
	if tex {
		if display {
			w.WriteString(` data-wc-tex="block"`)
		} else {
			w.WriteString(` data-wc-tex="inline"`)
		}
	}
	w.WriteByte('>')
	escapeString(w, s)
	w.WriteString("</")
	w.WriteString(tag)
	w.WriteByte('>')
}

// mathAttrs are the attributes of a MathML element the formula reads.
func (a *attrs) mathAttrs() []mathAttr {
	var out []mathAttr
	for _, kv := range [...]mathAttr{{"display", a.display}, {"alttext", a.alttext}, {"encoding", a.encoding},
		{"open", a.open}, {"close", a.close}, {"separators", a.separators}} {
		if kv.val != "" {
			out = append(out, kv)
		}
	}
	return out
}

// formulaStart handles a start tag that begins or stands for a formula
// (void: it has no content, or is written self-closing), and says whether
// it did: a <math> element or a MathJax 2 script is read
// into s.math (unless hidden), MathJax 2's output is skipped, and
// Wikipedia's fallback image is written as its TeX or skipped.
func (s *scanner) formulaStart(name string, hidden, void bool) bool {
	a := &s.a
	switch {
	case name == "math" && void: // <math/>: an empty formula, not one holding what follows
		return true
	case name == "math" && !hidden:
		s.math = newMathCapture(name, a.mathAttrs())
	case name == "script" && !hidden:
		ok, display := texScript(a.typ)
		if !ok {
			return false
		}
		if void {
			return true
		}
		s.math = newMathCapture(name, nil)
		s.math.script, s.math.display = true, display
	case name == "img":
		ok, display := wikiMathImage(a.class)
		if !ok {
			return false
		}
		if s.formulas == s.wikiMath { // the MathML beside it was not read
			if t := cleanTeX(a.alt); t != "" {
				s.writeFormula(t, true, display)
			}
		}
		return true
	case !void && mathJaxOutput(a.class, a.id):
	default:
		if strings.Contains(a.class, "mwe-math-element") {
			s.wikiMath = s.formulas
		}
		return false
	}
	if !void {
		s.skipLevel = len(s.stack)
		s.push(open{name: name})
	}
	return true
}

// finishMath writes the formula s.math has read.
func (s *scanner) finishMath() {
	m := s.math
	s.math = nil
	s.mathCut = s.mathCut || m.cut
	f, tex, display := m.formula()
	s.writeFormula(f, tex, display)
}

// writeFormula writes a formula as one element of the reduced page, under
// the page's element and text limits.
func (s *scanner) writeFormula(f string, tex, display bool) {
	if f == "" || s.stopped || s.overflow > 0 || s.textFull {
		return
	}
	if s.elements >= s.lim.MaxElements {
		s.stopped = true
		return
	}
	s.elements++
	if room := s.lim.MaxTextBytes - s.textBytes; len(f) > room {
		f = truncateBytes(f, room)
		s.textFull, s.cutText = true, true
	}
	s.textBytes += len(f)
	for i := 0; i < len(f); i++ {
		if f[i] > ' ' {
			s.inkBytes++
		}
	}
	s.formulas++
	writeFormula(&s.out, f, tex, display)
}

// textDollar stands, in the content being converted, for a dollar sign of
// the page's text on a page with TeX formulas: it is written \$ so that a
// reader does not take "$5 and $10" for a formula. (A private-use
// character, which the page's own text may not bring in: see markFormulas.)
const textDollar = '\uE024'

// markFormulas prepares content holding formulas for the converter:
// LaTeXML's equation tables (class ltx_equation, ltx_eqn_table: a row of
// padding cells around a displayed formula and its number) become a block
// per row, and, when a TeX formula is there, the dollar signs of the text
// outside code become textDollar. It says whether a TeX formula is there.
func markFormulas(root *html.Node) bool {
	var tables, dollars []*html.Node
	hasTeX := false
	var walk func(n *html.Node, code bool)
	walk = func(n *html.Node, code bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if strings.ContainsRune(c.Data, textDollar) {
					c.Data = strings.ReplaceAll(c.Data, string(textDollar), "\uFFFD")
				}
				if !code && strings.Contains(c.Data, "$") {
					dollars = append(dollars, c)
				}
			case html.ElementNode:
				switch {
				case attrOf(c, "data-wc-tex") != "":
					hasTeX = true
					continue
				case c.DataAtom == atom.Table && equationTable(c):
					tables = append(tables, c)
				}
				walk(c, code || c.DataAtom == atom.Pre || c.DataAtom == atom.Code)
			}
		}
	}
	walk(root, false)
	for _, t := range tables {
		unwrapEquationTable(t)
	}
	if hasTeX {
		for _, t := range dollars {
			t.Data = strings.ReplaceAll(t.Data, "$", string(textDollar))
		}
	}
	return hasTeX
}

// equationTable says whether a table is LaTeXML's layout of a displayed
// formula (or an aligned group of them) with its number.
func equationTable(n *html.Node) bool {
	c := attrOf(n, "class")
	return strings.Contains(c, "ltx_equation") || strings.Contains(c, "ltx_eqn_table")
}

// unwrapEquationTable puts a div in the table's place holding a div per
// row, with the row's cells' content one after the other.
func unwrapEquationTable(t *html.Node) {
	if t.Parent == nil {
		return
	}
	box := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	var rows func(n *html.Node)
	rows = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom != atom.Tr {
				rows(c) // tbody, thead
				continue
			}
			row := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
			for cell := c.FirstChild; cell != nil; cell = cell.NextSibling {
				if cell.Type != html.ElementNode || cell.FirstChild == nil {
					continue
				}
				if row.FirstChild != nil {
					row.AppendChild(&html.Node{Type: html.TextNode, Data: " "})
				}
				for k := cell.FirstChild; k != nil; {
					next := k.NextSibling
					cell.RemoveChild(k)
					row.AppendChild(k)
					k = next
				}
			}
			box.AppendChild(row)
		}
	}
	rows(t)
	t.Parent.InsertBefore(box, t)
	t.Parent.RemoveChild(t)
}

func cutFormula() string {
	return fmt.Sprintf("formula: a formula past %d elements, %d levels of nesting or %d bytes of text was read up to there", maxMathNodes, maxMathDepth, maxMathText)
}

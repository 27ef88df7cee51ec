package document

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Layout turns a PDF's lines into Markdown blocks. The lines come in
// PDFium's text order, which follows the content; arrange (arrange.go)
// joins the pieces of a line cut at superscripts, reads a page with column
// gutters column by column and puts rotated text (a margin stamp) after the
// page's text. Lines are grouped into blocks where they follow each other
// closely at one type size; a block is a heading when its type is clearly
// larger than the body's (the most used size) or a short line wholly bold,
// unless it is a list of authors; a list item when it starts with a bullet
// or a number; a table when several lines in a row split into the same
// columns (wide gaps at the same places); else a paragraph, whose lines are
// kept as lines (CommonMark reads them as one paragraph), but for a word
// broken at a line's end, which is written whole (hyphen.go).

type laidOut struct {
	markdown string
	title    string // the largest text of the first page, else the first heading: for documents without a usable info Title
}

type block struct {
	lines   []textLine
	kind    blockKind
	level   int // heading level
	columns [][]string
}

type blockKind int

const (
	paragraph blockKind = iota
	heading
	listItem
	table
)

var (
	capsTitle  = regexp.MustCompile(`^([IVX]{1,5}|\d{1,2}(\.\d{1,2})*)\.?\s+\p{Lu}[\p{Lu}\d ,:;&'’\-–]{2,}$`)
	bulletRe   = regexp.MustCompile(`^([•●○◦▪■□‣∙·➢►▶✓✔❖◆◇\x{F0B7}\x{F0A7}\x{F0D8}\x{F076}\x{F0FC}]|[-–—*])\s+\S`)
	numberedRe = regexp.MustCompile(`^(\d{1,3}|[a-zA-Z])([.)])\s+\S`)
)

func layout(pages []pageLines) laidOut {
	body := bodySize(pages)
	levels := headingLevels(pages, body)
	words := newVocabulary(pages)
	var out laidOut
	var b strings.Builder
	// The title a reader sees: the largest text of the first page (not
	// rotated, not a few letters, not a list of authors), when it is set
	// larger than the body; else the first top-level heading of the first
	// two pages (a cover's running text is often set smaller), else the
	// first heading (of four letters or more, not a list of authors).
	var first, top, largest string
	largestSize := body * 1.15
	for pi, p := range pages {
		if pi > 0 || p.number > 1 {
			fmt.Fprintf(&b, "<!-- page %d -->\n\n", p.number)
		}
		for _, bl := range blocks(arrange(p.lines), body, levels) {
			if bl.kind == heading || p.number == 1 && bl.kind == paragraph {
				text := strings.Join(strings.Fields(strings.Join(mendLines(lineTexts(bl.lines), words), " ")), " ")
				like := titleLike(bl, text)
				if bl.kind == heading && first == "" && like {
					first = text
				}
				if bl.kind == heading && top == "" && bl.level == 1 && p.number <= 2 && like {
					top = text
				}
				if p.number == 1 && like && bl.lines[0].size > largestSize {
					largest, largestSize = text, bl.lines[0].size
				}
			}
			writeBlock(&b, bl, words)
			b.WriteString("\n\n")
		}
	}
	out.title = cmp.Or(largest, top, first)
	out.markdown = strings.TrimRight(b.String(), "\n") + "\n"
	return out
}

// titleLike says whether a block of the first page could be its title: set
// horizontally, four letters or more, at most 300 characters, not a list
// of authors.
func titleLike(bl block, text string) bool {
	first := bl.lines[0]
	if !first.placed || first.rotated || utf8.RuneCountInString(text) > 300 || authorList(text) {
		return false
	}
	letters := 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 4
}

// authorList says whether a block's text is a list of people's names, as
// under a paper's title ("Andreas Gal∗+, Brendan Eich∗, Mike Shaver∗",
// "Ada Lovelace1, Charles Babbage2 and Alan Turing"), or a piece of one
// (", Barlas Oguz"): it is not a heading. Names are two to four words that
// start in capitals (initials too: "Mohammad R. Haghighat"); a list has
// marks of affiliation (∗ † ‡ § ¶ # digits) on its names, or two names
// parted by a comma, or three or more ("Machine Learning and Deep
// Learning" stays a heading; so, the price, does "Ada Lovelace and
// Charles Babbage").
func authorList(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, ",") || strings.HasPrefix(t, ";") {
		return true
	}
	var parts []string
	for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ';' || r == '&' }) {
		parts = append(parts, strings.Split(p, " and ")...)
	}
	names, marked := 0, false
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if q := strings.TrimRightFunc(p, isAffiliationMark); q != p {
			marked = true
			p = strings.TrimSpace(q)
		}
		words := strings.Fields(p)
		if len(words) < 2 || len(words) > 4 {
			return false
		}
		for _, w := range words {
			r, _ := utf8.DecodeRuneInString(w)
			if !unicode.IsUpper(r) {
				return false
			}
		}
		names++
	}
	return marked && names >= 1 || names >= 3 || names == 2 && strings.ContainsAny(t, ",;")
}

func isAffiliationMark(r rune) bool {
	return strings.ContainsRune("∗*†‡§¶#$+⋆♠♣♥♦♮", r) || unicode.IsDigit(r) || unicode.Is(unicode.No, r) || r == ','
}

func lineTexts(lines []textLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

// bodySize is the type size most of the text is set in (by characters).
func bodySize(pages []pageLines) float64 {
	count := map[float64]int{}
	for _, p := range pages {
		for _, l := range p.lines {
			if l.size > 0 && !l.rotated {
				count[roundSize(l.size)] += utf8.RuneCountInString(l.text)
			}
		}
	}
	best, bestN := 0.0, -1
	for s, n := range count {
		if n > bestN || n == bestN && s < best {
			best, bestN = s, n
		}
	}
	return best
}

func roundSize(s float64) float64 { return math.Round(s*2) / 2 }

// headingLevels gives each type size clearly larger than the body's that
// sets short lines a heading level: the largest 1, the next 2, … at most 3;
// bold lines at body size come after them.
func headingLevels(pages []pageLines, body float64) map[float64]int {
	uses := map[float64]int{}
	for _, p := range pages {
		for _, l := range p.lines {
			if body > 0 && l.size >= body*1.15 && utf8.RuneCountInString(l.text) <= 150 && !l.rotated {
				uses[roundSize(l.size)]++
			}
		}
	}
	var sizes []float64
	for s := range uses {
		sizes = append(sizes, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	levels := map[float64]int{}
	for i, s := range sizes {
		levels[s] = min(i+1, 3)
	}
	return levels
}

// blocks groups a page's lines.
func blocks(lines []textLine, body float64, levels map[float64]int) []block {
	var out []block
	var cur *block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if rows := tableAt(lines[i:]); rows > 0 {
			tb := block{kind: table, lines: lines[i : i+rows]}
			for _, r := range tb.lines {
				tb.columns = append(tb.columns, r.cells)
			}
			out = append(out, tb)
			cur = nil
			i += rows - 1
			continue
		}
		if cur != nil && (l.rotated || !sameBlock(cur.lines[len(cur.lines)-1], l)) {
			cur = nil
		}
		startsItem := l.dingbat || bulletRe.MatchString(l.text) || numberedRe.MatchString(l.text) && (cur == nil || cur.kind == listItem)
		if cur != nil && startsItem {
			cur = nil
		}
		if cur == nil {
			out = append(out, block{kind: paragraph})
			cur = &out[len(out)-1]
			if startsItem {
				cur.kind = listItem
			}
		}
		cur.lines = append(cur.lines, l)
	}
	for i := range out {
		if out[i].kind != table {
			classify(&out[i], body, levels)
		}
	}
	return out
}

// tableAt is how many of the lines, from the first, are a table's rows:
// three or more in a row split into the same two or more cells (markCells);
// 0 when they are not a table.
func tableAt(lines []textLine) int {
	k := len(lines[0].cells)
	if k < 2 {
		return 0
	}
	n := 1
	for n < len(lines) && len(lines[n].cells) == k {
		n++
	}
	if n < 3 {
		return 0
	}
	return n
}

// sameBlock says whether line b continues a's block: the same type size, just
// below it (not above: that is a new column or region), without a gap of
// more than about a line.
func sameBlock(a, b textLine) bool {
	if !a.placed || !b.placed {
		return true
	}
	size := max(a.size, b.size, 1)
	if math.Abs(a.size-b.size) > 0.15*size {
		return false
	}
	if a.weighed && b.weighed && a.bold != b.bold && max(len(a.text), len(b.text)) < 120 {
		return false
	}
	gap := a.bottom - b.top // positive: b is below a (loose boxes touch at normal leading)
	if b.top > a.top+0.5*size {
		return false
	}
	return gap < 0.5*size
}

func classify(bl *block, body float64, levels map[float64]int) {
	first := bl.lines[0]
	text := joinText(bl.lines)
	n := utf8.RuneCountInString(text)
	if len(bl.lines) > 3 || n > 200 || n < 2 || !first.placed || first.rotated || body <= 0 || !hasLetter(text) || authorList(text) {
		return
	}
	if lvl, ok := levels[roundSize(first.size)]; ok && !bulletRe.MatchString(text) {
		bl.kind, bl.level = heading, lvl
		return
	}
	// A numbered title in capitals alone in its block ("II. RELATED WORK",
	// "3 RESULTS"): small caps set no weight or size apart.
	if len(bl.lines) == 1 && n <= 80 && capsTitle.MatchString(text) {
		bl.kind, bl.level = heading, min(len(levels)+1, 4)
		return
	}
	// A short line wholly in bold at the body's size, alone in its block:
	// a run-in section title ("1. Introduction", "Abstract").
	if allBold(bl.lines) && len(bl.lines) <= 2 && n <= 100 && math.Abs(first.size-body) <= 0.15*body &&
		!strings.HasSuffix(text, ".") && !strings.HasSuffix(text, ",") && !bulletRe.MatchString(text) {
		bl.kind, bl.level = heading, min(len(levels)+1, 4)
	}
}

func allBold(lines []textLine) bool {
	for _, l := range lines {
		if !l.bold {
			return false
		}
	}
	return true
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func joinText(lines []textLine) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = l.text
	}
	return strings.Join(parts, " ")
}

// writeBlock writes a block as Markdown; a word broken at a line's end is
// written whole (mendLines).
func writeBlock(b *strings.Builder, bl block, words vocabulary) {
	var lines []string
	if bl.kind != table {
		lines = mendLines(lineTexts(bl.lines), words)
	}
	switch bl.kind {
	case heading:
		b.WriteString(strings.Repeat("#", bl.level))
		b.WriteByte(' ')
		b.WriteString(escapeInline(strings.Join(strings.Fields(strings.Join(lines, " ")), " ")))
	case listItem:
		first := lines[0]
		if bulletRe.MatchString(first) || bl.lines[0].dingbat {
			_, size := utf8.DecodeRuneInString(first)
			b.WriteString("- ")
			b.WriteString(escapeLine(first[size:]))
		} else {
			// A numbered item keeps its number as text ("1\. Step"): an
			// ordered list's numbers would be markup, not the document's
			// words, and a reader would lose them.
			b.WriteString(escapeLine(first))
		}
		for _, l := range lines[1:] {
			b.WriteString("\n  ")
			b.WriteString(escapeLine(l))
		}
	case table:
		writeTable(b, bl.columns)
	default:
		for i, l := range lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(escapeLine(l))
		}
	}
}

func writeTable(b *strings.Builder, rows [][]string) {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte('|')
		for c := 0; c < cols; c++ {
			cell := ""
			if c < len(r) {
				cell = escapeCell(r[c])
			}
			b.WriteString(" " + cell + " |")
		}
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat(" --- |", cols))
		}
	}
}

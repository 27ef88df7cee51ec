package document

import (
	"math"
	"sort"
	"unicode"
	"unicode/utf8"
)

// arrange puts a page's lines in the order they are read, before they are
// grouped into blocks:
//
//   - pieces of one line that PDFium hands over as lines of their own, cut
//     where a superscript sits ("Andreas Gal∗" then ", Brendan Eich∗" on the
//     same baseline), are joined again (joinRowPieces);
//   - rotated text (arXiv's stamp up the left margin, a vertical label)
//     goes after the rest of the page, as lines of its own: it is kept
//     (it says which version of a paper this is) but never read into a
//     sentence, never a heading, never the title.
func arrange(lines []textLine) []textLine {
	if len(lines) > 0 && lines[0].sideways {
		return lines
	}
	lines = joinRowPieces(lines)
	out := make([]textLine, 0, len(lines))
	var rotated []textLine
	for _, l := range lines {
		if l.rotated {
			rotated = append(rotated, l)
			continue
		}
		out = append(out, l)
	}
	return append(readingOrder(out), rotated...)
}

// maxRowPieces is the length in bytes past which joinRowPieces joins no
// more pieces to a line: a row of thousands of pieces is no line cut at
// its superscripts, and joining it would copy it once a piece.
const maxRowPieces = 2000

// joinRowPieces joins a line to the one before it when it goes on along
// the same row: its box overlaps the other's height by half or more, and
// it starts where the other ends, within an em. A line split into table
// cells is left alone.
func joinRowPieces(lines []textLine) []textLine {
	out := make([]textLine, 0, len(lines))
	for _, l := range lines {
		if n := len(out); n > 0 && len(out[n-1].text) < maxRowPieces && sameRow(out[n-1], l) {
			a := &out[n-1]
			sep := " "
			if l.left-a.right < 0.1*max(a.size, l.size, 1) || startsWithPunct(l.text) {
				sep = ""
			}
			if utf8.RuneCountInString(l.text) > utf8.RuneCountInString(a.text) {
				a.size = l.size
			}
			a.text += sep + l.text
			a.right = max(a.right, l.right)
			a.bold = a.bold && l.bold
			a.weighed = a.weighed && l.weighed
			a.softBreak = l.softBreak
			continue
		}
		out = append(out, l)
	}
	return out
}

func sameRow(a, b textLine) bool {
	if !a.placed || !b.placed || a.rotated || b.rotated || a.cells != nil || b.cells != nil {
		return false
	}
	em := max(a.size, b.size, 1)
	overlap := min(a.top, b.top) - max(a.bottom, b.bottom)
	if overlap < 0.5*min(a.top-a.bottom, b.top-b.bottom) || overlap <= 0 {
		return false
	}
	gap := b.left - a.right
	return gap > -0.05*em && gap < em && !math.IsNaN(gap)
}

func startsWithPunct(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsPunct(r) && r != '(' && r != '[' && r != '{' && r != '"' && r != '“' && r != '‘'
}

// Columns. PDFium gives a page's lines in the order of its content, which
// is the reading order for most documents but not for all: a journal may
// draw each column's footnotes before its text, or a manual a column's
// second half before the next column's. readingOrder finds a page's column
// gutters and reads column by column, with the lines that span columns
// (a title, a running head, a wide figure's caption) in place between
// them:
//
//   - a gutter is an upright strip at least about an em wide that no line
//     of the page crosses (two may, or one in twenty: a title's line set
//     across), with lines of running text (four or more on each side, of
//     fifteen characters or more by the median) beside it on both sides,
//     side by side over half the shorter side's height or more;
//   - a line that crosses a gutter by a quarter of a column or more on
//     each side spans the columns; the spanning lines, and gaps across
//     the whole page of six ems or more (where a wide figure sits), or two
//     below a running head or above a footer (the first or last two
//     lines), cut the page into bands, read from the top;
//   - within a band, each column is read in turn (right to left on a page
//     of right-to-left script), and within a column the runs of lines
//     PDFium gives in a row going down are kept as they are, the runs put
//     in order from the top.
//
// A page without a gutter, or with a line whose place is unknown, keeps
// PDFium's order. Work is linear in the lines (but for sorting them), with
// the page's width sampled at no more than maxGutterBins points and at
// most maxGutterTries strips tried.

const maxGutterBins = 2048

// maxGutterTries is how many strips of a page are tried as gutters, each
// against all its lines.
const maxGutterTries = 32

func readingOrder(lines []textLine) []textLine {
	if len(lines) < 8 {
		return lines
	}
	minL, maxR := math.Inf(1), math.Inf(-1)
	var sizes []float64
	for _, l := range lines {
		if !l.placed || l.rotated || l.right < l.left || math.IsNaN(l.left) || math.IsInf(l.left, 0) || math.IsInf(l.right, 0) {
			return lines
		}
		minL, maxR = min(minL, l.left), max(maxR, l.right)
		sizes = append(sizes, l.size)
	}
	width := maxR - minL
	if width <= 0 || width > 1e5 {
		return lines
	}
	sort.Float64s(sizes)
	em := max(sizes[len(sizes)/2], 1)
	gutters := findGutters(lines, minL, width, em)
	if len(gutters) == 0 {
		return lines
	}
	// The columns' edges: column k lies between gutter k-1's right and
	// gutter k's left.
	edges := make([]float64, 0, 2*len(gutters)+2)
	edges = append(edges, minL)
	for _, g := range gutters {
		edges = append(edges, g[0], g[1])
	}
	edges = append(edges, maxR)
	rtl := rightToLeft(lines)
	type placed struct {
		line      textLine
		col, band int
		order     int // in PDFium's order
	}
	ps := make([]placed, len(lines))
	spanning := wideGaps(lines, em) // the middles of spanning lines and of wide gaps, from the top
	for i, l := range lines {
		ps[i] = placed{line: l, col: columnOf(l, edges), order: i}
		if ps[i].col < 0 {
			spanning = append(spanning, (l.top+l.bottom)/2)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(spanning)))
	for i := range ps {
		mid := (ps[i].line.top + ps[i].line.bottom) / 2
		// The band: how many spanning lines lie above the line.
		ps[i].band = sort.Search(len(spanning), func(k int) bool { return spanning[k] <= mid })
		if ps[i].col < 0 { // a spanning line closes the band above it
			ps[i].band = ps[i].band*2 + 1
		} else {
			ps[i].band *= 2
			if rtl {
				ps[i].col = len(gutters) - ps[i].col
			}
		}
	}
	// Runs: lines in a row of PDFium's order, in one band and column, each
	// below the one before.
	run := make([]int, len(ps))
	runTop := []float64{}
	for i := range ps {
		if i > 0 && ps[i].band == ps[i-1].band && ps[i].col == ps[i-1].col && ps[i].line.top < ps[i-1].line.top+0.5*em {
			run[i] = run[i-1]
			continue
		}
		run[i] = len(runTop)
		runTop = append(runTop, ps[i].line.top)
	}
	sort.SliceStable(ps, func(a, b int) bool {
		pa, pb := ps[a], ps[b]
		switch {
		case pa.band != pb.band:
			return pa.band < pb.band
		case pa.col != pb.col:
			return pa.col < pb.col
		case run[pa.order] != run[pb.order]:
			ta, tb := runTop[run[pa.order]], runTop[run[pb.order]]
			if pa.col < 0 || ta == tb {
				return pa.order < pb.order
			}
			return ta > tb
		}
		return pa.order < pb.order
	})
	out := make([]textLine, len(ps))
	for i, p := range ps {
		out[i] = p.line
	}
	return out
}

// wideGaps gives the middles of the gaps between lines, across the whole
// page, of six ems or more, or two ems below the first two lines or
// above the last two.
func wideGaps(lines []textLine, em float64) []float64 {
	spans := make([][2]float64, len(lines))
	for i, l := range lines {
		spans[i] = [2]float64{l.bottom, l.top}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a][1] > spans[b][1] })
	var out []float64
	low := spans[0][0] // the lowest bottom so far, going down
	for k, sp := range spans[1:] {
		gap := 6 * em
		if k < 2 || k >= len(spans)-3 {
			gap = 2 * em
		}
		if low-sp[1] >= gap {
			out = append(out, (low+sp[1])/2)
		}
		low = min(low, sp[0])
	}
	return out
}

// findGutters gives the page's column gutters, left to right, as
// [left, right] pairs.
func findGutters(lines []textLine, minL, width, em float64) [][2]float64 {
	scale := max(1, width/maxGutterBins)
	nb := int(width/scale) + 2
	bin := func(x float64) int { return min(max(int((x-minL)/scale), 0), nb-1) }
	cover := make([]int, nb+1)
	for _, l := range lines {
		cover[bin(l.left)]++
		cover[bin(l.right)+1]--
	}
	maxCross := max(2, len(lines)/20)
	var gutters [][2]float64
	run, tried := 0, 0
	for b, c := 0, 0; b < nb && tried < maxGutterTries; b++ {
		c += cover[b]
		if c <= maxCross {
			run++
			continue
		}
		if run > 0 && b-run > 0 {
			left, right := minL+float64(b-run)*scale, minL+float64(b)*scale
			if right-left >= max(0.8*em, 4) {
				tried++
				if besideText(lines, left, right, em) {
					gutters = append(gutters, [2]float64{left, right})
				}
			}
		}
		run = 0
	}
	return gutters
}

// besideText says whether the strip [left, right] has running text on
// both sides, side by side: over half the height of the shorter side or
// more.
func besideText(lines []textLine, left, right, em float64) bool {
	var lRunes, rRunes []int
	lTop, lBottom, rTop, rBottom := math.Inf(-1), math.Inf(1), math.Inf(-1), math.Inf(1)
	for _, l := range lines {
		switch {
		case l.right <= left+0.5*em:
			lRunes = append(lRunes, utf8.RuneCountInString(l.text))
			lTop, lBottom = max(lTop, l.top), min(lBottom, l.bottom)
		case l.left >= right-0.5*em:
			rRunes = append(rRunes, utf8.RuneCountInString(l.text))
			rTop, rBottom = max(rTop, l.top), min(rBottom, l.bottom)
		}
	}
	if len(lRunes) < 4 || len(rRunes) < 4 || median(lRunes) < 15 || median(rRunes) < 15 {
		return false
	}
	overlap := min(lTop, rTop) - max(lBottom, rBottom)
	return overlap > 0 && overlap >= min(lTop-lBottom, rTop-rBottom)/2
}

func median(ns []int) int {
	sort.Ints(ns)
	return ns[len(ns)/2]
}

// columnOf is the column a line lies in (0 the leftmost), or -1 when it
// spans columns: it reaches a quarter of a column or more into each of two.
func columnOf(l textLine, edges []float64) int {
	best, bestIn, spans := 0, -1.0, 0
	for k := 0; k+1 < len(edges); k += 2 {
		from, to := edges[k], edges[k+1]
		in := min(l.right, to) - max(l.left, from)
		if in >= 0.25*(to-from) {
			spans++
		}
		if in > bestIn {
			best, bestIn = k/2, in
		}
	}
	if spans >= 2 {
		return -1
	}
	return best
}

// rightToLeft says whether most of the page's letters are of a script
// written right to left (Arabic, Hebrew, Syriac, Thaana, N'Ko).
func rightToLeft(lines []textLine) bool {
	rtl, all := 0, 0
	for _, l := range lines {
		for _, r := range l.text {
			if unicode.IsLetter(r) {
				all++
				if unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko) {
					rtl++
				}
			}
		}
	}
	return rtl*2 > all
}

package document

import (
	"sort"
	"strings"
	"unicode"
)

// The development set's score (shared/fixtures/pdfs/README.md): the item's
// Markdown read as text the way CommonMark reads it (renderedText), against
// plain pdftotext, as bags of \w+ tokens (Python's: letters, digits,
// underscore), lower-cased; F1 of the overlap.

func wordBag(s string) (map[string]int, int) {
	m := map[string]int{}
	n := 0
	s = strings.ToLower(s)
	start := -1
	flush := func(end int) {
		if start >= 0 {
			m[s[start:end]]++
			n++
			start = -1
		}
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
	}
	flush(len(s))
	return m, n
}

// wordF1 scores got against ref; precision and recall beside.
func wordF1(got, ref string) (f1, precision, recall float64) {
	g, ng := wordBag(got)
	r, nr := wordBag(ref)
	if ng == 0 || nr == 0 {
		return 0, 0, 0
	}
	ov := 0
	for k, v := range g {
		ov += min(v, r[k])
	}
	precision, recall = float64(ov)/float64(ng), float64(ov)/float64(nr)
	if ov == 0 {
		return 0, precision, recall
	}
	return 2 * precision * recall / (precision + recall), precision, recall
}

// bigramF1 is wordF1 over pairs of neighbouring tokens: it falls when the
// words are right but their order is not (columns read across, a sentence
// moved), which the bag of words does not see.
func bigramF1(got, ref string) float64 {
	pairs := func(s string) (map[[2]string]int, int) {
		var toks []string
		s = strings.ToLower(s)
		start := -1
		for i, r := range s {
			if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				toks = append(toks, s[start:i])
				start = -1
			}
		}
		if start >= 0 {
			toks = append(toks, s[start:])
		}
		m := map[[2]string]int{}
		for i := 1; i < len(toks); i++ {
			m[[2]string{toks[i-1], toks[i]}]++
		}
		return m, max(len(toks)-1, 0)
	}
	g, ng := pairs(got)
	r, nr := pairs(ref)
	if ng == 0 || nr == 0 {
		return 0
	}
	ov := 0
	for k, v := range g {
		ov += min(v, r[k])
	}
	if ov == 0 {
		return 0
	}
	p, rc := float64(ov)/float64(ng), float64(ov)/float64(nr)
	return 2 * p * rc / (p + rc)
}

// lineOrder is the share of the reference's lines (of six words or more,
// found once in each, compared as squash does; a sample of 1,500 in a
// long document) that the converted text has
// in the reference's order: the longest run of them in order, over those
// found. It falls when a block is read out of place (a column's footnotes
// before its text, a column's end after the next column), which pairs of
// words hardly see.
func lineOrder(got, ref string) (inOrder, found int) {
	g := squash(got)
	lines := strings.Split(ref, "\n")
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	step := max(1, len(lines)/1500) // at most about 1,500 lines looked for
	var pos []int
	for n, l := range lines {
		if n%step != 0 || len(strings.Fields(l)) < 6 || seen[l] != 1 {
			continue
		}
		s := squash(l)
		if len(s) < 20 {
			continue
		}
		i := strings.Index(g, s)
		if i < 0 || strings.Index(g[i+1:], s) >= 0 {
			continue
		}
		pos = append(pos, i)
	}
	// The longest increasing subsequence, by patience sorting.
	var tails []int
	for _, p := range pos {
		k := sort.SearchInts(tails, p)
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	return len(tails), len(pos)
}

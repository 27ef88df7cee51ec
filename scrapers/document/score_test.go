package document

import (
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

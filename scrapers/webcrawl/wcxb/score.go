package wcxb

import (
	"strings"
	"unicode"
)

// Tokens are text's words as evaluate.py's re.findall(r"\w+", text.lower())
// finds them: runs of letters, digits and numbers of any script, and '_'.
func Tokens(text string) []string {
	var out []string
	start := -1
	lower := strings.ToLower(text)
	for i, r := range lower {
		if word(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, lower[start:])
	}
	return out
}

// word is Python's \w for str: alphabetic (L*), a number (N*), or '_'.
func word(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// Score is one page's precision, recall and F1.
type Score struct{ P, R, F1 float64 }

// F1 scores predicted against reference as evaluate.py's word_f1: a
// reference without tokens scores 1 when the prediction has none, else 0;
// an empty prediction scores 0.
func F1(predicted, reference string) Score {
	pred, ref := Tokens(predicted), Tokens(reference)
	if len(ref) == 0 {
		if len(pred) == 0 {
			return Score{1, 1, 1}
		}
		return Score{}
	}
	if len(pred) == 0 {
		return Score{}
	}
	counts := make(map[string]int, len(ref))
	for _, t := range ref {
		counts[t]++
	}
	overlap := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			overlap++
		}
	}
	s := Score{P: float64(overlap) / float64(len(pred)), R: float64(overlap) / float64(len(ref))}
	if s.P+s.R > 0 {
		s.F1 = 2 * s.P * s.R / (s.P + s.R)
	}
	return s
}

// Table averages scores over pages, overall and per page type (macro
// averages, as evaluate.py reports them).
type Table struct {
	N   map[string]int
	Sum map[string]Score
}

// NewTable is an empty table.
func NewTable() *Table {
	return &Table{N: map[string]int{}, Sum: map[string]Score{}}
}

// All is the key of the overall row.
const All = "all"

// Add records one page's prediction.
func (t *Table) Add(p Page, predicted string) Score {
	s := F1(predicted, p.Reference)
	for _, k := range []string{All, p.Type} {
		t.N[k]++
		sum := t.Sum[k]
		sum.P += s.P
		sum.R += s.R
		sum.F1 += s.F1
		t.Sum[k] = sum
	}
	return s
}

// Mean is the average score of row k (All or a page type).
func (t *Table) Mean(k string) Score {
	n := float64(t.N[k])
	if n == 0 {
		return Score{}
	}
	s := t.Sum[k]
	return Score{s.P / n, s.R / n, s.F1 / n}
}

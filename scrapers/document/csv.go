package document

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// maxCSVColumns caps a table's columns; wider rows are cut and said so.
const maxCSVColumns = 50

// convertCSV shows a CSV (or TSV) file as a GitHub table: the first row as
// the header, at most MaxRows rows after it. The delimiter is the one of
// , ; tab | that splits the first lines most evenly.
func convertCSV(body []byte, o Options) (*Document, error) {
	text := toUTF8(body, o.ContentType)
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sniffDelimiter(text)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	var rows [][]string
	d := &Document{}
	more, wide := 0, false
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && len(rows) > 0 {
				if !o.Cut {
					d.Truncated = append(d.Truncated, fmt.Sprintf("rows: the file could not be read past line %d (%v)", pe.Line, pe.Err))
				}
				break
			}
			if len(rows) == 0 {
				return nil, &Error{Kind: CSV, Reason: ErrDamaged, Detail: err.Error()}
			}
			break
		}
		if len(rows) > o.MaxRows { // header + MaxRows
			more++
			continue
		}
		if len(rec) > maxCSVColumns {
			rec, wide = rec[:maxCSVColumns], true
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return nil, &Error{Kind: CSV, Reason: ErrEmpty}
	}
	var b strings.Builder
	writeTable(&b, rows)
	b.WriteByte('\n')
	if more > 0 {
		d.Truncated = append(d.Truncated, fmt.Sprintf("rows: only the first %d of %d rows are shown", o.MaxRows, o.MaxRows+more))
	}
	if wide {
		d.Truncated = append(d.Truncated, fmt.Sprintf("columns: only the first %d columns are shown", maxCSVColumns))
	}
	d.Markdown = b.String()
	if cut, ok := cutRunes(d.Markdown, o.MaxLength); ok {
		d.Markdown = cut
		d.Truncated = append(d.Truncated, cutMaxLength(o.MaxLength))
	}
	return d, nil
}

func sniffDelimiter(text string) rune {
	sample := text[:min(len(text), 8192)]
	lines := strings.Split(sample, "\n")
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	if len(lines) > 20 {
		lines = lines[:20]
	}
	best, bestScore := ',', 0
	for _, c := range []rune{',', ';', '\t', '|'} {
		n0 := -1
		score := 0
		for _, l := range lines {
			n := strings.Count(l, string(c))
			if n0 < 0 {
				n0 = n
			}
			if n > 0 && n == n0 {
				score += n
			}
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

// looksLikeCSV: the first lines split evenly at one delimiter.
func looksLikeCSV(head []byte) bool {
	if !utf8.Valid(head[:max(0, len(head)-4)]) || bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	text := string(head)
	lines := strings.Split(text, "\n")
	if len(lines) < 3 {
		return false
	}
	c := sniffDelimiter(text)
	n0 := strings.Count(lines[0], string(c))
	return n0 > 0 && strings.Count(lines[1], string(c)) == n0
}

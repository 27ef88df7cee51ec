package amazon

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parsePrice reads the first amount in a price text as Amazon prints it on
// any marketplace: "₹66,990", "$1,299.99", "1.299,99 €", "￥12,800",
// "1 299,99 kr". It reports false when the text holds no amount.
func parsePrice(s string) (float64, bool) {
	run, _ := numberRun(s)
	if run == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(normalizeDecimal(run), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
		return 0, false
	}
	return v, true
}

// numberRun returns the first run of digits in s together with the grouping
// and decimal marks inside it (",", ".", and a space or no-break space that
// groups thousands), and the byte offset in s just past the run.
func numberRun(s string) (string, int) {
	start := strings.IndexFunc(s, isDigit)
	if start < 0 {
		return "", len(s)
	}
	var b strings.Builder
	i := start
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		next := s[i+size:]
		switch {
		case isDigit(r):
			b.WriteRune(r)
		case r == ',' || r == '.':
			if countDigits(next) == 0 {
				return b.String(), i
			}
			b.WriteRune(r)
		case r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\u2009':
			// a space groups thousands only when exactly three digits follow
			if countDigits(next) != 3 {
				return b.String(), i
			}
		default:
			return b.String(), i
		}
		i += size
	}
	return b.String(), i
}

// countDigits counts the ASCII digits at the start of s.
func countDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// normalizeDecimal turns a number run with grouping marks into Go syntax:
// when both "," and "." occur the last one is the decimal mark; a mark that
// occurs more than once groups thousands; a single mark followed by exactly
// three digits groups thousands too (1,299 and 1.299), otherwise it is the
// decimal mark (12,99).
func normalizeDecimal(run string) string {
	run = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '\u202f' || r == '\u00a0' {
			return -1
		}
		return r
	}, run)
	lastDot, lastComma := strings.LastIndexByte(run, '.'), strings.LastIndexByte(run, ',')
	switch {
	case lastDot >= 0 && lastComma >= 0:
		dec, group := ".", ","
		if lastComma > lastDot {
			dec, group = ",", "."
		}
		run = strings.ReplaceAll(run, group, "")
		return strings.Replace(run, dec, ".", 1)
	case lastDot < 0 && lastComma < 0:
		return run
	}
	mark := "."
	at := lastDot
	if lastComma >= 0 {
		mark, at = ",", lastComma
	}
	if strings.Count(run, mark) > 1 {
		return strings.ReplaceAll(run, mark, "")
	}
	whole, frac := run[:at], run[at+1:]
	if len(frac) == 3 && whole != "0" && whole != "" {
		return whole + frac
	}
	if whole == "" {
		whole = "0"
	}
	return whole + "." + frac
}

// parseRating reads a star rating from "4.6 out of 5 stars", "4,6 von 5
// Sternen" or "5つ星のうち4.6".
func parseRating(s string) (float64, bool) {
	var nums []float64
	for rest := s; len(nums) < 2; {
		i := strings.IndexFunc(rest, isDigit)
		if i < 0 {
			break
		}
		rest = rest[i:]
		j := 0
		for j < len(rest) && (isDigit(rune(rest[j])) || ((rest[j] == '.' || rest[j] == ',') && j+1 < len(rest) && isDigit(rune(rest[j+1])))) {
			j++
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(rest[:j], ",", "."), 64)
		if err == nil {
			nums = append(nums, v)
		}
		rest = rest[j:]
	}
	switch {
	case len(nums) == 0:
		return 0, false
	case len(nums) >= 2 && nums[0] == 5 && nums[1] < 5:
		// "5つ星のうち4.6": the scale comes first
		return nums[1], true
	case nums[0] < 0 || nums[0] > 5:
		return 0, false
	}
	return nums[0], true
}

// parseCount reads a count such as "5,086", "(1.234)", "5,086 ratings" or the
// short forms "(5.1K)" and "2K+".
func parseCount(s string) (int, bool) {
	run, end := numberRun(s)
	if run == "" {
		return 0, false
	}
	mult := 1.0
	if end < len(s) {
		switch s[end] {
		case 'K', 'k':
			mult = 1e3
		case 'M':
			mult = 1e6
		}
	}
	var v float64
	if mult > 1 {
		f, err := strconv.ParseFloat(strings.ReplaceAll(run, ",", "."), 64)
		if err != nil {
			return 0, false
		}
		v = f * mult
	} else {
		digits := strings.Map(func(r rune) rune {
			if isDigit(r) {
				return r
			}
			return -1
		}, run)
		f, err := strconv.ParseFloat(digits, 64)
		if err != nil {
			return 0, false
		}
		v = f
	}
	if v > math.MaxInt32 {
		return 0, false
	}
	return int(math.Round(v)), true
}

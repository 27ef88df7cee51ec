package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A word broken at a line's end ("ef-" and "ficient" on the next line) is
// written whole again when the lines are joined. Whether the hyphen goes
// (a break made by the typesetter: "efficient") or stays (a compound that
// happens to end the line: "mixed-mode", "state-of-the-art") is decided
// from the document's own spelling, as a reader who has read the rest of
// it would:
//
//  1. the next line does not go on in lower case ("pre-" + "Columbian",
//     "COVID-" + "19"): the hyphen stays;
//  2. the first part or the next word holds a hyphen already
//     ("state-of-the-" + "art", "state-" + "of-the-art"), or the first
//     part is "self": a compound, the hyphen stays;
//  3. the document writes the word whole elsewhere ("efficient"): the
//     hyphen goes; else where it writes it with the hyphen ("run-time")
//     inside a line: the hyphen stays;
//  4. both parts are words of three letters or more that the document
//     uses on their own ("well" and "known"), the first not a common
//     prefix ("com", "over", "mis") and the second not a common ending
//     ("ing", "ment", "ity"): a compound, the hyphen stays;
//  5. else the hyphen goes ("us-" + "ing", "ef-" + "ficient").
//
// On the development set's PDFs, rules 4 and 5 alone agree with the
// document's own spelling in 94.5% of the breaks where rule 3 knows it
// (1,537 of 1,626; 89% before the lists of prefixes and endings, which
// are English's common ones, not words of those files).
//
// Either way the two lines are joined without a space: the word is one
// word on the page.

// vocabulary counts the words of a document as it writes them inside its
// lines, lower-cased: whole hyphenated words ("run-time") and their parts
// ("run", "time") alike; the fragments at a broken line end are not
// counted.
type vocabulary map[string]int

func newVocabulary(pages []pageLines) vocabulary {
	v := vocabulary{}
	for _, p := range pages {
		broken := false // the line before ends in a hyphen: this line's first word is a fragment
		for _, l := range p.lines {
			words := strings.FieldsFunc(l.text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
			ends := brokenEnd(l.text)
			for i, w := range words {
				if i == 0 && broken || i == len(words)-1 && ends {
					continue
				}
				w = strings.Trim(w, "-")
				if w == "" {
					continue
				}
				w = strings.ToLower(w)
				v[w]++
				if strings.Contains(w, "-") {
					for _, part := range strings.Split(w, "-") {
						if part != "" {
							v[part]++
						}
					}
				}
			}
			broken = ends
		}
	}
	return v
}

// brokenEnd says whether a line ends in a hyphen right after a letter
// (and so may end in a broken word).
func brokenEnd(s string) bool {
	if !strings.HasSuffix(s, "-") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	return unicode.IsLetter(r)
}

// keepHyphen decides for a word broken between head (the line's last
// word, with its hyphen: "ef-", "state-of-the-") and next (the next line),
// by the rules above.
func (v vocabulary) keepHyphen(head, next string) bool {
	first, _ := utf8.DecodeRuneInString(next)
	if !unicode.IsLower(first) {
		return true
	}
	stem := strings.ToLower(strings.TrimSuffix(head, "-"))
	word := next
	if i := strings.IndexFunc(next, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }); i >= 0 {
		word = next[:i]
	}
	if strings.Contains(stem, "-") || strings.Contains(strings.TrimRight(word, "-"), "-") || stem == "self" {
		return true
	}
	tail := strings.ToLower(strings.TrimRight(word, "-"))
	switch {
	case v[stem+tail] > 0:
		return false
	case v[stem+"-"+tail] > 0:
		return true
	}
	return utf8.RuneCountInString(stem) >= 3 && utf8.RuneCountInString(tail) >= 3 && v[stem] > 0 && v[tail] > 0 &&
		!commonPrefix[stem] && !commonEnding[tail]
}

// commonPrefix and commonEnding are parts of English words that are words
// of their own too ("com", "over", "ing"), which rule 4 must not take for
// one of a compound's words.
var (
	commonPrefix = setOf("any", "com", "con", "counter", "dis", "every", "inter", "mis", "non", "out", "over", "pre", "pro", "some", "sub", "super", "under", "with")
	commonEnding = setOf("able", "al", "ance", "ant", "ed", "ence", "ent", "er", "ers", "est", "ful", "fully", "ible", "ing", "ings", "ise", "ism", "ist", "ity", "ive", "ize", "less", "ly", "man", "men", "ment", "ments", "ness", "ous", "sion", "tain", "tion", "tions", "way", "ways")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// lastWord is the last word of a line, letters and hyphens ("state-of-the-").
func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
	if i < 0 {
		return s
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return s[i+size:]
}

// mendLines joins each line that ends in a broken word to the next one, the
// hyphen kept or dropped by keepHyphen; the other lines stay as they are.
// Linear in the text, however many lines in a row end in a hyphen.
func mendLines(lines []string, v vocabulary) []string {
	out := make([]string, 0, len(lines))
	var buf []byte // the line being joined
	last := ""     // the last line joined to it, as it ends buf
	for i, l := range lines {
		if i > 0 && l != "" && brokenEnd(last) {
			if first, _ := utf8.DecodeRuneInString(l); unicode.IsLetter(first) || unicode.IsDigit(first) {
				if !v.keepHyphen(lastWord(last), l) {
					buf = buf[:len(buf)-1]
				}
				buf = append(buf, l...)
				last = l
				continue
			}
		}
		if i > 0 {
			out = append(out, string(buf))
		}
		buf = append(buf[:0], l...)
		last = l
	}
	if len(lines) > 0 {
		out = append(out, string(buf))
	}
	return out
}

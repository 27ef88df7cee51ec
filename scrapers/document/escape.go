package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markdown escaping of literal text: what a PDF, a CSV cell or a feed's
// title says is written so that CommonMark reads it back as the same text,
// not as syntax. A line starting "2023." is not a list, "# 1" not a
// heading, "<b class=x>" not a tag, "*" not emphasis.

// escapeInline escapes the characters that would start inline syntax
// anywhere in a line: emphasis, code, links, images, tags, entities,
// strike-through and backslash escapes themselves.
func escapeInline(s string) string {
	if !strings.ContainsAny(s, "\\`*_[]<>&~|!") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch r {
		case '\\', '`', '*', '[', ']', '~':
			b.WriteByte('\\')
		case '_':
			// Inside a word (snake_case) an underscore never emphasises.
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if !(isWordRune(prev) && isWordRune(next)) {
				b.WriteByte('\\')
			}
		case '<':
			// A tag, a comment, a declaration or an autolink starts with
			// '<' and a letter, '/', '!' or '?'.
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if next == '/' || next == '!' || next == '?' || next < utf8.RuneSelf && unicode.IsLetter(next) {
				b.WriteByte('\\')
			}
		case '&':
			if looksLikeEntity(s[i+1:]) {
				b.WriteByte('\\')
			}
		case '!':
			if strings.HasPrefix(s[i+1:], "[") {
				b.WriteByte('\\')
			}
		case '|':
			// Only a table reads '|', but a line of text that has one and
			// follows a line like |---| would become a row: escape always.
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// looksLikeEntity: "amp;", "#38;", "#x26;" after an '&'.
func looksLikeEntity(s string) bool {
	n := 0
	for n < len(s) && n < 32 {
		c := s[n]
		if c == ';' {
			return n > 0
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '#') {
			return false
		}
		n++
	}
	return false
}

// escapeLine escapes a line of literal text that begins a Markdown line:
// inline syntax everywhere, and block syntax at its start (headings,
// quotes, list markers, thematic breaks, setext underlines, fences, indented
// code, tables' pipes).
func escapeLine(s string) string {
	s = strings.TrimLeft(s, " \t")  // four spaces would be code
	s = strings.TrimRight(s, " \t") // two spaces at the end would be a hard break
	s = escapeInline(s)
	if s == "" {
		return s
	}
	switch c := s[0]; {
	case c == '#' || c == '>' || c == '=':
		return `\` + s
	case c == '-' || c == '+':
		// "- x" is a list item; "---" or "--" alone is a break or an underline.
		if len(s) == 1 || s[1] == ' ' || s[1] == '\t' || strings.Trim(s, string(c)+" ") == "" {
			return `\` + s
		}
	case c >= '0' && c <= '9':
		// "2023." or "1)" followed by a space or the end reads as a list.
		j := 0
		for j < len(s) && j < 10 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j < len(s) && j <= 9 && (s[j] == '.' || s[j] == ')') && (j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\t') {
			return s[:j] + `\` + s[j:]
		}
	}
	return s
}

// escapeCell escapes a GitHub table cell: inline syntax, and no line break.
func escapeCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return escapeInline(s)
}

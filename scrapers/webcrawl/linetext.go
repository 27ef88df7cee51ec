package webcrawl

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// The word rules (furniture_words.go, cta.go, asides.go) ask every block of
// the part of a page taken whether its line is furniture. Most blocks are
// paragraphs of the text, longer than any line of furniture; reading each
// whole, then cleaning, lower-casing and comparing it, was a third of what
// the rules cost. A lineText reads a block's text once, in the form the
// rules compare, into a buffer used again for every block, and stops as
// soon as the line is too long for any rule.

// lineText builds a line in lineForm (lower-cased, white space runs as one
// space, no space at either end, invalid UTF-8 as U+FFFD) from the text of
// nodes, up to a bound. The zero value is ready for use, with no bound.
type lineText struct {
	b []byte
	// max is the bound given to reset: a line longer than it is of no rule.
	max int
	// stop is the length at which reading ends: the colon forms that
	// lineForm shortens ("：" to ":", " :" to ":", so " ：" of four bytes to
	// one) make a line at most four times shorter, so a line past 4×max+4
	// bytes stays past max.
	stop    int
	space   bool // white space was read since the last character written
	invalid bool // the last bytes read were invalid UTF-8
	over    bool // reading ended at stop
}

// reset begins a new line whose rules read at most max bytes of it.
func (l *lineText) reset(max int) {
	l.b, l.max, l.stop = l.b[:0], max, 4*max+4
	l.space, l.invalid, l.over = false, false, false
}

// text appends a text node's text.
func (l *lineText) text(s string) {
	if l.over {
		return
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			l.invalid = false
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				l.space = true
				continue
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			l.put()
			l.b = append(l.b, c)
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r == utf8.RuneError && size == 1 {
				// strings.ToValidUTF8: a run of invalid bytes is one U+FFFD.
				if l.invalid {
					continue
				}
				l.invalid = true
			} else {
				l.invalid = false
				if unicode.IsSpace(r) {
					l.space = true
					continue
				}
				r = unicode.ToLower(r)
			}
			l.put()
			l.b = utf8.AppendRune(l.b, r)
		}
		if len(l.b) > l.stop {
			l.over = true
			return
		}
	}
}

// put writes the space that a run of white space before a character
// stands for.
func (l *lineText) put() {
	if l.space && len(l.b) > 0 {
		l.b = append(l.b, ' ')
	}
	l.space = false
}

// full says whether reading may end: the line is too long for any rule.
func (l *lineText) full() bool { return l.over }

// textSink is what readText gives a node's text to.
type textSink interface {
	text(s string)
	full() bool
}

// readText gives sink the text of n's descendants in order, at most raw
// bytes of it (raw < 0: all), cut at a character's start: the text
// nodeText(n, raw) reads. The rules read a block's first bytes, as they
// did when they read nodeText's string; a block is read once, into its
// sink's buffer. It returns the bytes of the budget left.
func readText(n *html.Node, raw int, sink textSink) int {
	for c := n.FirstChild; c != nil && raw != 0 && !sink.full(); c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			s := c.Data
			if raw >= 0 && len(s) > raw {
				k := raw
				for k > 0 && !utf8.RuneStart(s[k]) {
					k--
				}
				s, raw = s[:k], 0
			} else if raw >= 0 {
				raw -= len(s)
			}
			sink.text(s)
		case html.ElementNode:
			raw = readText(c, raw, sink)
		}
	}
	return raw
}

var (
	fullWidthColon = []byte("：")
	spaceColon     = []byte(" :")
)

// form is the line in lineForm, and whether it is at most the bound long;
// a line over it is "", false.
func (l *lineText) form() (string, bool) {
	if l.over {
		return "", false
	}
	b := l.b
	if bytes.Contains(b, fullWidthColon) {
		b = bytes.ReplaceAll(b, fullWidthColon, []byte(":"))
	}
	if bytes.Contains(b, spaceColon) {
		b = bytes.ReplaceAll(b, spaceColon, []byte(":"))
	}
	if len(b) > l.max {
		return "", false
	}
	return string(b), true
}

// plain is the line lower-cased with its white space cleaned but its colons
// as written (asideHeading's form), and whether it is at most the bound long.
func (l *lineText) plain() (string, bool) {
	if l.over || len(l.b) > l.max {
		return "", false
	}
	return string(l.b), true
}

// prefixSet holds phrases by their first byte, so that asking whether a
// line begins with one of them compares it with the few that begin alike
// rather than with every language's list.
type prefixSet struct {
	byFirst [256][]string
}

func newPrefixSet(ps []string) *prefixSet {
	s := &prefixSet{}
	for _, p := range ps {
		if p == "" {
			continue
		}
		s.byFirst[p[0]] = append(s.byFirst[p[0]], p)
	}
	return s
}

// has says whether line begins with one of the set's phrases as a whole
// word (hasPrefixAny).
func (s *prefixSet) has(line string) bool {
	if line == "" {
		return false
	}
	return hasPrefixAny(line, s.byFirst[line[0]])
}

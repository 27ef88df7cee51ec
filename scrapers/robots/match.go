package robots

import "strings"

// normalisePattern turns an Allow/Disallow value into the form paths are
// compared in: a leading '/' added when it starts with neither '/' nor '*',
// a run of trailing '*' (which changes nothing) dropped, then the
// percent-encoding normalised.
func normalisePattern(p string) string {
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "*") {
		p = "/" + p
	}
	for len(p) > 1 && strings.HasSuffix(p, "*") {
		p = p[:len(p)-1]
	}
	return normalisePath(p)
}

// normalisePath applies RFC 9309 2.2.2's percent-encoding rules: octets
// outside US-ASCII (and controls and spaces) are percent-encoded, a
// percent-encoded unreserved character is decoded, and the hex digits of
// what stays encoded are upper-cased. Both a URL's path and a rule's
// pattern go through it, so "/%7Efoo" and "/~foo" match.
func normalisePath(p string) string {
	clean := true
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '%' || c <= ' ' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[v>>4])
				b.WriteByte(hex[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// isUnreserved reports RFC 3986's unreserved characters.
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// matcher is a pattern split at its stars, made once per rule.
type matcher struct {
	pieces   []string // the literal runs between stars; at least one
	anchored bool     // the pattern ended in '$'
	min      int      // the pieces' total length: a shorter path cannot match
}

// compile splits a normalised pattern for match.
func compile(pattern string) matcher {
	m := matcher{anchored: strings.HasSuffix(pattern, "$")}
	if m.anchored {
		pattern = pattern[:len(pattern)-1]
	}
	m.pieces = strings.Split(pattern, "*")
	for _, p := range m.pieces {
		m.min += len(p)
	}
	return m
}

// match reports whether pattern (normalised) matches path (normalised).
func match(pattern, path string) bool { return compile(pattern).match(path) }

// match reports whether the pattern matches path: it matches a prefix of
// the path, '*' standing for any run of octets and a final '$' for the end
// of the path. The literal pieces between stars are found leftmost, one
// after the other, which is enough for prefix matching and takes time
// linear in the path per piece, so a hostile pattern of many stars cannot
// make a check slow.
func (m matcher) match(path string) bool {
	first := m.pieces[0]
	if len(path) < m.min || !strings.HasPrefix(path, first) {
		return false
	}
	if len(m.pieces) == 1 {
		return !m.anchored || len(path) == len(first)
	}
	last := m.pieces[len(m.pieces)-1]
	if m.anchored && !strings.HasSuffix(path, last) {
		return false
	}
	pos := len(first)
	for _, piece := range m.pieces[1 : len(m.pieces)-1] {
		i := strings.Index(path[pos:], piece)
		if i < 0 {
			return false
		}
		pos += i + len(piece)
	}
	if !m.anchored {
		return strings.Contains(path[pos:], last)
	}
	return len(path)-len(last) >= pos
}

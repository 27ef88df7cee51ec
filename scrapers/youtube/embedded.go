package youtube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// errNoData says a page did not carry the embedded JSON a parser looked for.
var errNoData = errors.New("the page carries no such data")

// embeddedJSON returns the first JSON value a page's scripts assign to name,
// in any of the forms YouTube writes:
//
//	var ytInitialData = {...};
//	window["ytInitialData"] = {...};
//	ytInitialData = '{\x22responseContext\x22: ...}';   (m.youtube.com)
//
// The value's end is found by a scanner that knows JSON strings and nesting,
// so braces inside strings and a script that goes on after the value are no
// trouble. Mentions of name that are not an assignment (a.ytInitialData,) are
// skipped. It returns errNoData when no assignment is found and an error
// naming the problem when the value is cut short. The value is not
// validated: decodeEmbedded also skips assignments that are not valid JSON.
func embeddedJSON(page []byte, name string) ([]byte, error) {
	raw, _, err := nextEmbedded(page, name, 0)
	return raw, err
}

// decodeEmbedded decodes into v the first assignment to name in page whose
// value is valid JSON. An earlier mention that only looks like one (inside a
// string of another blob: "var ytInitialData = {...};" in a description) is
// passed over. When v is a struct, a field of an unexpected JSON type is left
// empty and the rest still decoded (encoding/json's own behaviour); that is
// not an error here.
func decodeEmbedded(page []byte, name string, v any) error {
	var badJSON error
	for from := 0; ; {
		raw, next, err := nextEmbedded(page, name, from)
		if raw == nil {
			if badJSON != nil {
				return badJSON
			}
			return err
		}
		uerr := json.Unmarshal(raw, v)
		var typeErr *json.UnmarshalTypeError
		if uerr == nil || errors.As(uerr, &typeErr) {
			return nil
		}
		if badJSON == nil {
			badJSON = fmt.Errorf("%s is not valid JSON: %w", name, uerr)
		}
		from = next
	}
}

// nextEmbedded finds the first assignment to name at or after from and
// returns its value and where to look for the next one: just after the name,
// not after the value, since a "value" found inside another blob's string
// may run past the real assignment.
func nextEmbedded(page []byte, name string, from int) (raw []byte, next int, err error) {
	var lastErr error = errNoData
	for from < len(page) {
		i := bytes.Index(page[from:], []byte(name))
		if i < 0 {
			break
		}
		at := from + i
		from = at + len(name)
		// The name must stand alone: not the tail of a longer identifier.
		if at > 0 && isIdentByte(page[at-1]) {
			continue
		}
		rest := page[from:]
		// window["ytInitialData"] or window['ytInitialData']
		if len(rest) >= 2 && (rest[0] == '"' || rest[0] == '\'') && rest[1] == ']' {
			if at == 0 || page[at-1] != rest[0] {
				continue
			}
			rest = rest[2:]
		} else if len(rest) > 0 && isIdentByte(rest[0]) {
			continue
		}
		rest = skipSpace(rest)
		if len(rest) == 0 || rest[0] != '=' || (len(rest) > 1 && rest[1] == '=') {
			continue
		}
		rest = skipSpace(rest[1:])
		if len(rest) == 0 {
			continue
		}
		switch rest[0] {
		case '{', '[':
			end, err := valueEnd(rest)
			if err != nil {
				lastErr = err
				continue
			}
			return rest[:end], from, nil
		case '\'', '"':
			s, err := jsStringLiteral(rest)
			if err != nil {
				lastErr = err
				continue
			}
			s = bytes.TrimSpace(s)
			if len(s) == 0 || (s[0] != '{' && s[0] != '[') {
				continue
			}
			end, err := valueEnd(s)
			if err != nil {
				lastErr = err
				continue
			}
			return s[:end], from, nil
		}
	}
	return nil, len(page), lastErr
}

// jsonField returns the raw JSON value that follows "key": somewhere in page
// (ytcfg.set({... "INNERTUBE_API_KEY":"..." ...})). Strings, objects, arrays
// and bare literals are returned whole; errNoData when the key is absent.
func jsonField(page []byte, key string) ([]byte, error) {
	pat := []byte(`"` + key + `"`)
	var lastErr error = errNoData
	for from := 0; from < len(page); {
		i := bytes.Index(page[from:], pat)
		if i < 0 {
			break
		}
		from += i + len(pat)
		rest := skipSpace(page[from:])
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = skipSpace(rest[1:])
		end, err := valueEnd(rest)
		if err != nil {
			lastErr = err
			continue
		}
		return rest[:end], nil
	}
	return nil, lastErr
}

// jsonStringField is jsonField for a string value, decoded; "" when absent
// or not a string.
func jsonStringField(page []byte, key string) string {
	raw, err := jsonField(page, key)
	if err != nil || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// valueEnd returns the length of the JSON value at the start of b: an object
// or array up to its matching close, a string up to its closing quote, or a
// bare literal (number, true, false, null) up to the next delimiter. It does
// not validate the value; json.Unmarshal does that afterwards.
func valueEnd(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errors.New("the embedded JSON is empty")
	}
	switch b[0] {
	case '"':
		return stringEnd(b)
	case '{', '[':
	default:
		n := 0
		for n < len(b) && !bytes.ContainsRune([]byte(",}]; \t\r\n<"), rune(b[n])) {
			n++
		}
		if n == 0 {
			return 0, errors.New("the embedded JSON starts with an unexpected character")
		}
		return n, nil
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			n, err := stringEnd(b[i:])
			if err != nil {
				return 0, err
			}
			i += n - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
			if depth < 0 {
				return 0, errors.New("the embedded JSON has unbalanced brackets")
			}
		}
	}
	return 0, errors.New("the embedded JSON is cut short (no closing bracket)")
}

// stringEnd returns the length of the JSON string at the start of b, quotes
// included.
func stringEnd(b []byte) (int, error) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errors.New("the embedded JSON has an unterminated string")
}

// jsStringLiteral decodes the JavaScript string literal at the start of b
// (single or double quoted, with \xNN, \uNNNN, \u{...} and the one-letter
// escapes) and returns its bytes.
func jsStringLiteral(b []byte) ([]byte, error) {
	q := b[0]
	out := make([]byte, 0, len(b))
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == q:
			return out, nil
		case c == '\n':
			return nil, errors.New("the embedded string breaks across lines")
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i >= len(b) {
			break
		}
		switch e := b[i]; e {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'v':
			out = append(out, '\v')
		case '0':
			out = append(out, 0)
		case 'x':
			if i+2 >= len(b) {
				return nil, errors.New("the embedded string has a cut \\x escape")
			}
			v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
			if err != nil {
				return nil, errors.New("the embedded string has a bad \\x escape")
			}
			out = utf8.AppendRune(out, rune(v))
			i += 2
		case 'u':
			r, n, err := jsUnicodeEscape(b[i+1:])
			if err != nil {
				return nil, err
			}
			// A surrogate pair is two \u escapes.
			if r >= 0xD800 && r < 0xDC00 && i+n+2 < len(b) && b[i+n+1] == '\\' && b[i+n+2] == 'u' {
				if lo, m, err := jsUnicodeEscape(b[i+n+3:]); err == nil && lo >= 0xDC00 && lo < 0xE000 {
					r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
					n += 2 + m
				}
			}
			out = utf8.AppendRune(out, r)
			i += n
		case '\n':
			// a line continuation
		default:
			out = append(out, e)
		}
	}
	return nil, errors.New("the embedded string is not terminated")
}

// jsUnicodeEscape reads the hex digits after \u: XXXX or {X...}.
func jsUnicodeEscape(b []byte) (rune, int, error) {
	if len(b) > 0 && b[0] == '{' {
		end := bytes.IndexByte(b, '}')
		if end < 2 || end > 7 {
			return 0, 0, errors.New("the embedded string has a bad \\u{} escape")
		}
		v, err := strconv.ParseUint(string(b[1:end]), 16, 32)
		if err != nil || v > utf8.MaxRune {
			return 0, 0, errors.New("the embedded string has a bad \\u{} escape")
		}
		return rune(v), end + 1, nil
	}
	if len(b) < 4 {
		return 0, 0, errors.New("the embedded string has a cut \\u escape")
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return 0, 0, errors.New("the embedded string has a bad \\u escape")
	}
	return rune(v), 4, nil
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

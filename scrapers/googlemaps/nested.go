package googlemaps

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Google Maps answers with deeply nested JSON arrays whose meaning is given
// by position. They are decoded with jsonval.Decode (exact numbers), and
// every read goes through at, which never panics: a short array, a null or a
// value of another type on the way gives nil.

// at returns v[i0][i1]…, or nil when a step is out of range or not an array.
func at(v any, idx ...int) any {
	for _, i := range idx {
		a, ok := v.([]any)
		if !ok || i < 0 || i >= len(a) {
			return nil
		}
		v = a[i]
	}
	return v
}

// arr returns at(v, idx...) as an array, or nil.
func arr(v any, idx ...int) []any {
	a, _ := at(v, idx...).([]any)
	return a
}

// str returns at(v, idx...) when it is a string, else "".
func str(v any, idx ...int) string {
	s, _ := at(v, idx...).(string)
	return s
}

// num returns at(v, idx...) as a finite float.
func num(v any, idx ...int) (float64, bool) {
	var f float64
	switch x := at(v, idx...).(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = x
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// integer returns at(v, idx...) as a whole number.
func integer(v any, idx ...int) (int64, bool) {
	if n, ok := at(v, idx...).(json.Number); ok {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return i, true
		}
	}
	f, ok := num(v, idx...)
	if !ok || math.Abs(f) >= 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// strs returns the strings of the array at(v, idx...).
func strs(v any, idx ...int) []string {
	var out []string
	for _, x := range arr(v, idx...) {
		if s, ok := x.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// xssiPrefix is what Google puts before JSON it serves to scripts.
const xssiPrefix = ")]}'"

// stripXSSI removes the )]}' line Google puts before JSON answers, and the
// {"c":…,"d":"…"} wrapper and /*""*/ trailer some endpoints add.
func stripXSSI(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte(`{"c":`)) {
		var w struct {
			D string `json:"d"`
		}
		trimmed := bytes.TrimSuffix(b, []byte(`/*""*/`))
		if json.Unmarshal(trimmed, &w) == nil && w.D != "" {
			b = bytes.TrimSpace([]byte(w.D))
		}
	}
	b = bytes.TrimPrefix(b, []byte(xssiPrefix))
	b = bytes.TrimSuffix(bytes.TrimSpace(b), []byte(`/*""*/`))
	return bytes.TrimSpace(b)
}

// jsStringAt reads the JavaScript string literal that starts at b[0] (a
// double quote) and returns its value. It understands JSON escapes and the
// \xHH and \' escapes Google's inline scripts use.
func jsStringAt(b []byte) (string, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	end, jsOnly := -1, false
scan:
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			end = i
			break scan
		case '\\':
			if i+1 < len(b) && (b[i+1] == 'x' || b[i+1] == '\'') {
				jsOnly = true
			}
			i++
		case '\n', '\r':
			return "", false
		}
	}
	if end < 0 {
		return "", false
	}
	lit := b[:end+1]
	if jsOnly { // rewrite \xHH as \u00HH and \' as ', then read it as JSON
		out := make([]byte, 0, len(lit)+16)
		for i := 0; i < len(lit); i++ {
			if lit[i] == '\\' && i+1 < len(lit) {
				switch lit[i+1] {
				case 'x':
					out = append(out, `\u00`...)
				case '\'':
					out = append(out, '\'')
				default:
					out = append(out, lit[i], lit[i+1])
				}
				i++
				continue
			}
			out = append(out, lit[i])
		}
		lit = out
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}

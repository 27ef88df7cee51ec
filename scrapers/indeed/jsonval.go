package indeed

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// Indeed's JSON is read into generic trees (map[string]any, []any) and walked
// with the helpers below, so that a field of an unexpected type or a missing
// branch gives a zero value instead of failing the whole decode.

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// get walks v along path: a string step indexes an object, an int step an
// array. It returns nil when any step is missing or of another type.
func get(v any, path ...any) any {
	for _, step := range path {
		switch k := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		default:
			return nil
		}
	}
	return v
}

// str returns a string or a number as text, anything else as "".
func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// integer reads a whole number given as a JSON number or a numeric string.
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) < 1<<62 {
			return int64(f), true
		}
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

// boolean is true only for JSON true.
func boolean(v any) bool {
	b, _ := v.(bool)
	return b
}

// list returns v as an array, or nil.
func list(v any) []any {
	a, _ := v.([]any)
	return a
}

// object returns v as an object, or nil.
func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// firstInt returns the first of vs that reads as a whole number.
func firstInt(vs ...any) (int64, bool) {
	for _, v := range vs {
		if n, ok := integer(v); ok {
			return n, true
		}
	}
	return 0, false
}

// firstStr returns the first non-empty string among vs.
func firstStr(vs ...any) string {
	for _, v := range vs {
		if s := str(v); s != "" {
			return s
		}
	}
	return ""
}

var errNotJSON = errors.New("the answer is not JSON")

// number reads a finite number given as a JSON number or a numeric string.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = x
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Package jsonval reads JSON decoded into generic trees (map[string]any,
// []any, json.Number, string, bool, nil). The data sites embed in their pages
// and answer their own scripts with is deep, changes shape often and leaves
// fields out freely, so extractors decode it generically and read it through
// these helpers, which give zero values for whatever is missing or of another
// type and never panic.
//
// Decode keeps numbers exact (json.Number); the helpers read float64 numbers
// too, as encoding/json gives them without UseNumber.
package jsonval

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Decode decodes one JSON value from b, keeping numbers exact (as
// json.Number: ids of 19 digits survive). What follows the value is not
// read.
func Decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Get walks v along path: a string step indexes an object, an int step an
// array. It returns nil when any step is missing, out of range, of another
// type, or a step is neither a string nor an int.
func Get(v any, path ...any) any {
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

// String returns a string, or a json.Number as its text; anything else is "".
func String(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// Int reads a whole number given as a JSON number (json.Number or float64;
// a fraction is cut off) or as a string of decimal digits. ok is false for
// anything else, and for numbers too large for an int64 to hold safely.
func Int(v any) (n int64, ok bool) {
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

// Float reads a finite number given as a JSON number (json.Number or
// float64) or as a numeric string. ok is false for anything else.
func Float(v any) (f float64, ok bool) {
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

// Bool is true only for JSON true.
func Bool(v any) bool {
	b, _ := v.(bool)
	return b
}

// List returns v as an array, or nil.
func List(v any) []any {
	a, _ := v.([]any)
	return a
}

// Object returns v as an object, or nil.
func Object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// FirstInt returns the first of vs that reads as a whole number ([Int]).
func FirstInt(vs ...any) (int64, bool) {
	for _, v := range vs {
		if n, ok := Int(v); ok {
			return n, true
		}
	}
	return 0, false
}

// FirstString returns the first non-empty [String] among vs.
func FirstString(vs ...any) string {
	for _, v := range vs {
		if s := String(v); s != "" {
			return s
		}
	}
	return ""
}

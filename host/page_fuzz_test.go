package host

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// kind is a JSON value's type, read from its first byte.
func kind(v json.RawMessage) byte {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"', '[', '{', 't', 'f', 'n':
			return c
		default:
			return '0'
		}
	}
	return 0
}

// FuzzCutToFit: any item and any limit give valid JSON of the item's own
// type, with every object member it kept of its own type too (so the item
// still conforms to its schema), and never more bytes than the item had.
func FuzzCutToFit(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.com","markdown":"` + string(make([]byte, 0)) + `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","links":["a","b","c"]}`,
		`{"a":{"b":{"c":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}},"n":12345678901234567890}`,
		`["one","two",{"three":"3333333333333333"}]`, `"é€😀 text"`, `{"html":"<b>&amp;</b><<<<<<<<<<<"}`, `{}`, `[]`, `12`,
	} {
		f.Add([]byte(s), 20)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if !json.Valid(b) || !utf8.Valid(b) || limit < 0 || limit > len(b)+8 {
			return
		}
		// The items the host cuts are Go values encoded by encoding/json:
		// no member twice.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		in, _ := json.Marshal(v)
		out, fields := cutToFit(in, limit)
		if !json.Valid(out) {
			t.Fatalf("cutToFit(%s, %d) = %s: not JSON", in, limit, out)
		}
		if kind(out) != kind(in) {
			t.Fatalf("cutToFit(%s, %d) = %s: another type", in, limit, out)
		}
		if len(out) > len(in) {
			t.Fatalf("cutToFit(%s, %d) = %s: longer than the item", in, limit, out)
		}
		if len(out) < len(in) && len(fields) == 0 {
			t.Fatalf("cutToFit(%s, %d) = %s: shortened without naming what", in, limit, out)
		}
		var a, c map[string]json.RawMessage
		if json.Unmarshal(in, &a) == nil && json.Unmarshal(out, &c) == nil {
			for k, v := range c {
				if kind(v) != kind(a[k]) {
					t.Fatalf("cutToFit(%s, %d) = %s: member %q changed type", in, limit, out, k)
				}
			}
		}
	})
}

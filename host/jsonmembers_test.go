package host

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// decoderMembers is what encoding/json's Decoder reads of an object's
// members: the reference scanMembers must agree with.
func decoderMembers(obj []byte) ([]jsonMember, bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []jsonMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, jsonMember{Name: tok.(string), Value: v})
	}
	return out, true
}

func FuzzScanMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":[1,{"y":"}"}]}}}`,
		`{"a\"b":"c\\","\u006dethod":"x"}`, `{"a": true , "b" :null,"c":-1.5e3,"d":"]}"}`, `{"a":{"a":{"a":[]}}}`, `[1]`, `"s"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || !utf8.Valid(b) {
			return // the body gate checks both first
		}
		got, err := scanMembers(b)
		want, ok := decoderMembers(b)
		if (err == nil) != ok {
			t.Fatalf("%q: scanMembers err %v, decoder ok %v", b, err, ok)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, decoder %d", b, len(got), len(want))
		}
		for i := range got {
			if got[i].Name != want[i].Name || !bytes.Equal(bytes.TrimSpace(got[i].Value), bytes.TrimSpace(want[i].Value)) {
				t.Fatalf("%q: member %d = %q %s, decoder %q %s", b, i, got[i].Name, got[i].Value, want[i].Name, want[i].Value)
			}
		}
	})
}

package license

import (
	"strings"
	"testing"
)

func TestParseAuthorization(t *testing.T) {
	long := strings.Repeat("k", MaxKeyLength+1)
	cases := []struct {
		name   string
		values []string
		key    string
		ok     bool
	}{
		{"plain", []string{"License abc-123"}, "abc-123", true},
		{"lower-case scheme", []string{"license abc"}, "abc", true},
		{"odd-case scheme", []string{"LiCeNsE abc"}, "abc", true},
		{"key verbatim with symbols", []string{"License AB.cd-12_34/+=="}, "AB.cd-12_34/+==", true},
		{"missing", nil, "", false},
		{"empty header", []string{""}, "", false},
		{"scheme only", []string{"License"}, "", false},
		{"scheme and space", []string{"License "}, "", false},
		{"bearer", []string{"Bearer abc"}, "", false},
		{"basic", []string{"Basic YWJjOmRlZg=="}, "", false},
		{"scheme prefix word", []string{"Licenses abc"}, "", false},
		{"no space", []string{"Licenseabc"}, "", false},
		{"tab separator", []string{"License\tabc"}, "", false},
		{"two spaces", []string{"License  abc"}, "", false},
		{"trailing space", []string{"License abc "}, "", false},
		{"space inside key", []string{"License abc def"}, "", false},
		{"control char", []string{"License abc\x00"}, "", false},
		{"doubled header", []string{"License abc", "License abc"}, "", false},
		{"doubled, one empty", []string{"License abc", ""}, "", false},
		{"too long", []string{"License " + long}, "", false},
		{"longest allowed", []string{"License " + long[1:]}, long[1:], true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key, err := ParseAuthorization(c.values)
			if c.ok {
				if err != nil || key != c.key {
					t.Fatalf("got %q, %v; want %q", key, err, c.key)
				}
				return
			}
			if err != ErrMissing || key != "" {
				t.Fatalf("got %q, %v; want ErrMissing", key, err)
			}
		})
	}
}

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"License abc", "license ", "Bearer x", "", "LICENSE \x7f", "License a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		key, err := ParseAuthorization([]string{v})
		if err != nil {
			if key != "" {
				t.Fatalf("a refusal returned a key")
			}
			return
		}
		if key == "" || len(key) > MaxKeyLength || strings.ContainsAny(key, " \t\r\n") {
			t.Fatalf("accepted bad key %q", key)
		}
		if !strings.EqualFold(v[:8], "license ") || v[8:] != key {
			t.Fatalf("key %q is not verbatim after the scheme in %q", key, v)
		}
	})
}

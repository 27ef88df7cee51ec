package webcrawl

import (
	"strings"
	"testing"
)

// cleanCases are texts of every kind clean is given: clean already, white
// space at the ends and in runs, every kind of white space, invalid UTF-8.
var cleanCases = []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "  a  b  ", "a\u00a0b", "a \u3000 b",
	"\u2003a", "a\u2003", "ok \xff\xfe bad", "\xffa", "a\xff", "a \xff b", "\xc3", "é à ü", "one two three", "x\r\n y"}

// clean is strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ").
func TestCleanIsFieldsJoined(t *testing.T) {
	for _, s := range cleanCases {
		if got, want := clean(s), cleanSlow(s); got != want {
			t.Errorf("clean(%q) = %q, want %q", s, got, want)
		}
	}
}

// A text clean already is given back without a copy.
func TestCleanKeepsCleanText(t *testing.T) {
	s := strings.Repeat("words of a clean line ", 20) + "end"
	if n := testing.AllocsPerRun(100, func() { _ = clean(s) }); n != 0 {
		t.Errorf("clean of a clean text allocated %v times", n)
	}
}

func cleanSlow(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

func FuzzClean(f *testing.F) {
	for _, s := range cleanCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := clean(s), cleanSlow(s); got != want {
			t.Errorf("clean(%q) = %q, want %q", s, got, want)
		}
	})
}

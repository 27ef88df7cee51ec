package wcxb

import (
	"reflect"
	"testing"
)

func TestMarkdownText(t *testing.T) {
	md := "# Title\n\nSome *emphasis* and a [link\nover lines](https://example.com/a_(b)) and ![an image](https://x.y/i.png \"t\").\n\n" +
		"| a | b |\n| --- | --- |\n| snake\\_case | 2 |\n\n```go\nx := [1](2)\n```\n> quoted <https://auto.link/x>\n- item one\n1. item two\n"
	got := Tokens(MarkdownText(md))
	want := []string{"title", "some", "emphasis", "and", "a", "link", "over", "lines", "and",
		"a", "b", "snake_case", "2", "x", "1", "2", "quoted", "item", "one", "item", "two"}
	// Fence lines (with their info string) are dropped; code is kept as written.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens\n got %q\nwant %q", got, want)
	}
}

func TestF1AsEvaluatePy(t *testing.T) {
	for _, c := range []struct {
		pred, ref string
		f1        float64
	}{
		{"", "", 1},
		{"a", "", 0},
		{"", "a", 0},
		{"the cat the", "the cat sat", 2.0 / 3},
		{"Ünïcode wörds_x 12", "ünïcode WÖRDS_X 12", 1},
	} {
		if got := F1(c.pred, c.ref).F1; got < c.f1-1e-9 || got > c.f1+1e-9 {
			t.Errorf("F1(%q, %q) = %v, want %v", c.pred, c.ref, got, c.f1)
		}
	}
}

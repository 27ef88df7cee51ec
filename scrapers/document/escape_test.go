package document

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"
)

// commonmark is a CommonMark reader with GitHub's tables and
// strike-through, to check that what the converter writes reads back as the
// text it came from.
var commonmark = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// renderedText is Markdown as a reader sees it: rendered to HTML, then the
// HTML's text (entities decoded), block ends as newlines.
func renderedText(md string) string {
	var out bytes.Buffer
	if err := commonmark.Convert([]byte(md), &out); err != nil {
		panic(err)
	}
	z := html.NewTokenizer(&out)
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if n, _ := z.TagName(); string(n) == "p" || string(n) == "br" || string(n) == "li" || string(n) == "td" || string(n) == "th" || string(n) == "tr" {
				b.WriteByte('\n')
			}
		}
	}
}

func TestEscapeLine(t *testing.T) {
	for _, s := range []string{
		"2023. was the year", "1) first", "# not a heading", "> not a quote", "- not an item", "+ not one either",
		"* nor this", "---", "===", "***", "___", "    indented code?", "```go", "~~~", "<b class=x> in prose",
		"<!-- a comment -->", "<https://example.com>", "a [link](x) here", "![image](x)", "&amp; &#38; &copy;",
		"snake_case and _emphasis_", "pipes | in | text", "back\\slash", "`code`", "~~strike~~", "1.5 million",
		"Section 3.1 says", "AT&T and R&D",
	} {
		got := strings.TrimSpace(renderedText(escapeLine(s)))
		if got != strings.TrimSpace(s) {
			t.Errorf("escapeLine(%q) = %q reads back as %q", s, escapeLine(s), got)
		}
	}
	// Text that needs nothing is left alone.
	for _, s := range []string{"Plain words, and 1.5 million of them.", "snake_case stays", "AT&T"} {
		if escapeLine(s) != s {
			t.Errorf("escapeLine(%q) = %q, want it unchanged", s, escapeLine(s))
		}
	}
}

// FuzzEscapeLine: any line of text, escaped, reads back as itself (spaces
// at its ends aside, which a Markdown line cannot keep).
func FuzzEscapeLine(f *testing.F) {
	for _, s := range []string{"2023. a", "# x", "<b>", "*a*", "_a_", "[a](b)", "&amp;", "a | b", "\\", "`", "- x", "1) y", "    code", "~~a~~", "<!--", "a\\*b", "![x](y)", "<http://a>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n\x00\t\f\v") || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0xfffd }) {
			return
		}
		want := strings.Join(strings.Fields(s), " ")
		if want == "" {
			return
		}
		got := strings.Join(strings.Fields(renderedText(escapeLine(s))), " ")
		if got != want {
			t.Fatalf("escapeLine(%q) = %q reads back as %q", s, escapeLine(s), got)
		}
	})
}

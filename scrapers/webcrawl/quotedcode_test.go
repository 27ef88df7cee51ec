package webcrawl

import (
	"net/url"
	"strings"
	"testing"
)

// A code block inside a blockquote stays inside it: every line of the
// block carries the quote's prefix, in one quote and in two.
func TestCodeInsideABlockquote(t *testing.T) {
	u, _ := url.Parse("https://example.com/")
	p, err := Extract([]byte(`<html lang="en"><body><article><h1>T</h1><p>An introduction long enough to be the page's main content, and a little more.</p>`+
		`<blockquote><p>Quoted.</p><pre><code class="language-go">a := 1
b := 2
c := 3</code></pre><p>After.</p><blockquote><pre><code>x
y</code></pre></blockquote></blockquote><p>Outside.</p></article></body></html>`), u, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> ```go\n> a := 1\n> b := 2\n> c := 3\n> ```", "> > ```\n> > x\n> > y\n> > ```", "\n\nOutside."} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, p.Markdown)
		}
	}
}

func FuzzQuoteFencedCode(f *testing.F) {
	for _, s := range []string{"> ```\n> a\nb\n> ```\nc", "> > ~~~~\nx\n> > ~~~~", "> ```", "```\na\n```", ">\n> ```js\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		out := quoteFencedCode(md)
		if strings.Count(out, "\n") != strings.Count(md, "\n") {
			t.Fatalf("lines changed in number: %q → %q", md, out)
		}
		if !strings.Contains(md, "> ```") && !strings.Contains(md, "> ~~~") && out != md {
			t.Fatalf("no quoted fence, yet changed: %q → %q", md, out)
		}
		// Lines only ever gain a quote prefix; nothing else changes.
		in, got := strings.Split(md, "\n"), strings.Split(out, "\n")
		for i := range in {
			added, ok := strings.CutSuffix(got[i], in[i])
			if !ok || strings.Trim(added, "> ") != "" {
				t.Fatalf("line %d %q became %q", i, in[i], got[i])
			}
		}
	})
}

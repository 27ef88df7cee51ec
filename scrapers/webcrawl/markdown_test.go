package webcrawl

import (
	"net/url"
	"strings"
	"testing"
)

func extractString(t *testing.T, page string) Page {
	t.Helper()
	u, _ := url.Parse("https://example.com/docs/guide/page.html")
	p, err := Extract([]byte(page), u, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// article wraps body in a page whose main content is unmistakable.
func article(body string) string {
	return `<!doctype html><html><head><title>Guide</title></head><body><nav><a href="/">Home</a></nav><article>` +
		`<p>This guide explains, in some detail, how the parts fit together, with examples.</p>` + body +
		`<p>That is all there is to it, and the rest of the guide goes deeper, with more examples.</p></article></body></html>`
}

func TestMarkdownTables(t *testing.T) {
	p := extractString(t, article(`<table><thead><tr><th>Plan</th><th align="right">Price</th><th style="text-align: center">Seats</th></tr></thead>`+
		`<tbody><tr><td>Free</td><td align="right">$0</td><td>1</td></tr><tr><td>Pro</td><td align="right">$5</td><td>10</td></tr></tbody></table>`))
	for _, want := range []string{"| Plan | Price | Seats |", "| Free | $0 | 1 |", "| Pro | $5 | 10 |"} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("table row %q missing:\n%s", want, p.Markdown)
		}
	}
	if !strings.Contains(p.Markdown, "|---|--:|:-:|") {
		t.Errorf("alignment lost (right for Price, center for Seats):\n%s", p.Markdown)
	}
	if strings.Contains(p.Markdown, "PlanPrice") {
		t.Error("table cells glued together")
	}
}

func TestMarkdownCodeBlocks(t *testing.T) {
	p := extractString(t, article(`<pre><code class="language-go">func main() {
	fmt.Println("hi")
}</code></pre><pre class="lang-python"><code>print("x")</code></pre><p>Inline <code>x := 1</code> stays inline.</p>`))
	for _, want := range []string{"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```", "```python\nprint(\"x\")\n```", "Inline `x := 1` stays inline."} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("missing %q in:\n%s", want, p.Markdown)
		}
	}
}

func TestMarkdownListsQuotesImagesLinks(t *testing.T) {
	p := extractString(t, article(`<ul><li>One<ul><li>One point one</li><li>One point two</li></ul></li><li>Two</li></ul>`+
		`<ol><li>First</li><li>Second</li></ol>`+
		`<blockquote><p>Quoted once.</p><blockquote><p>Quoted twice.</p></blockquote></blockquote>`+
		`<p><img src="../img/diagram.png" alt="The diagram"> <a href="other.html#part">relative</a>, <a href="/root">rooted</a>, <a href="#here">here</a>.</p>`+
		`<h2>Second heading</h2><div>Block one</div><div>Block two</div><p>Para one</p><p>Para two</p>`))
	md := p.Markdown
	for _, want := range []string{
		"- One\n  \n  - One point one\n  - One point two\n- Two",
		"1. First\n2. Second",
		"> Quoted once.\n> \n> > Quoted twice.",
		"![The diagram](https://example.com/docs/img/diagram.png)",
		"[relative](https://example.com/docs/guide/other.html#part)",
		"[rooted](https://example.com/root)",
		"[here](https://example.com/docs/guide/page.html#here)",
		"## Second heading",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	for _, glued := range []string{"Block oneBlock two", "Para onePara two"} {
		if strings.Contains(md, glued) {
			t.Errorf("block boundary lost: %q in:\n%s", glued, md)
		}
	}
	if strings.Index(md, "This guide explains") > strings.Index(md, "## Second heading") {
		t.Error("headings and text out of order")
	}
	if strings.Contains(md, "Home") {
		t.Errorf("navigation kept in the main content:\n%s", md)
	}
}

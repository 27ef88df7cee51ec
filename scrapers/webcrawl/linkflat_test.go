package webcrawl

import (
	"net/url"
	"strings"
	"testing"
)

func TestCardLinksStayOneLine(t *testing.T) {
	u, _ := url.Parse("https://shop.example/c/helmets")
	page := `<html><body><main><h1>Helmets</h1><ul>` +
		strings.Repeat(`<li><a href="/p/1"><div class="name">Heritage Helmet</div><div class="price">$99.95</div><p>Rated 4.9<br>28 reviews</p></a></li>`, 3) +
		`</ul></main></body></html>`
	p, err := Extract([]byte(page), u, ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "[Heritage Helmet $99.95 Rated 4.9 28 reviews](https://shop.example/p/1)"
	if !strings.Contains(strings.Join(strings.Fields(p.Markdown), " "), want) {
		t.Errorf("markdown %q: want each card as one link %q", p.Markdown, want)
	}
	for _, line := range strings.Split(p.Markdown, "\n") {
		if strings.Contains(line, "[") != strings.Contains(line, "](") {
			t.Errorf("a link spans lines: %q", line)
		}
	}
}

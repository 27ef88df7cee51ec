package webcrawl

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestTitleAndBylineRule(t *testing.T) {
	u, _ := url.Parse("https://news.example/story")
	const ld = `<script type="application/ld+json">{"@type":"NewsArticle","headline":"The JSON-LD \"headline\"","author":{"@type":"Person","name":"Ada Lovelace"}}</script>`
	for _, c := range []struct{ name, page, title, byline string }{
		{"title without the site's name", `<html><head><title>A long story about the harbour | The Daily Site</title><meta property="og:title" content="OG"></head><body><h1>H1</h1><p>Text.</p></body></html>`, "A long story about the harbour", ""},
		{"og:title when there is no title", `<html><head><meta property="og:title" content="The shared headline">` + ld + `</head><body><h1>H1</h1></body></html>`, "The shared headline", "Ada Lovelace"},
		{"JSON-LD headline next", `<html><head>` + ld + `</head><body><h1>H1</h1></body></html>`, `The JSON-LD "headline"`, "Ada Lovelace"},
		{"the h1 last", `<html><body><h1>The  page's   heading</h1><p>Text.</p></body></html>`, "The page's heading", ""},
		{"a byline in the page first", `<html><head>` + ld + `</head><body><p class="byline">By Grace Hopper</p><p>Text.</p></body></html>`, `The JSON-LD "headline"`, "By Grace Hopper"},
	} {
		p, err := Extract([]byte(c.page), u, ExtractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != c.title || p.Byline != c.byline {
			t.Errorf("%s: title %q byline %q, want %q and %q", c.name, p.Title, p.Byline, c.title, c.byline)
		}
	}
}

func TestNeverSilentlyEmpty(t *testing.T) {
	u, _ := url.Parse("https://app.example/")
	for _, c := range []struct{ name, page, want, note string }{
		{"an app shell", `<html><head><title>The App Shell</title><meta name="description" content="What the app says it is."></head><body><div id="root"></div></body></html>`,
			"", noteNoText},
		{"text only in noscript", `<html><body><div id="app"></div><noscript><div><h1>Topic</h1><p>` + longText + `</p></div></noscript></body></html>`,
			longText, noteNoscript},
		{"text hidden until scripts run", `<html><body><div style="visibility:hidden"><main><p>` + longText + `</p></main></div></body></html>`,
			longText, noteHidden},
		// A page that is all navigation and footer is its own content:
		// nothing is left out for looking like furniture.
		{"only furniture", `<html><body><nav><a href="/a">Home</a> <a href="/b">About us</a></nav><footer>© The Company, 12 Harbour Street</footer></body></html>`,
			"© The Company, 12 Harbour Street", ""},
	} {
		p, err := Extract([]byte(c.page), u, ExtractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Markdown == "" && c.want != "" || !strings.Contains(p.Markdown, c.want) {
			t.Errorf("%s: markdown %q, want it to hold %q", c.name, p.Markdown, c.want)
		}
		if c.note != "" && !slices.Contains(p.Notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, p.Notes, c.note)
		}
	}
}

// longText is a paragraph long enough to be a page's content.
var longText = strings.TrimSpace(strings.Repeat("This is the page's own text, long enough to be its content: a paragraph that a reader came for, with commas, clauses and more than a few words in it, repeated. ", 7))

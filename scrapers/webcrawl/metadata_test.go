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
		{"the JSON-LD headline before og:title", `<html><head><meta property="og:title" content="The shared headline">` + ld + `</head><body><h1>H1</h1></body></html>`, `The JSON-LD "headline"`, "Ada Lovelace"},
		{"og:title when there is no title", `<html><head><meta property="og:title" content="The shared headline"></head><body><h1>H1</h1></body></html>`, "The shared headline", ""},
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

// The headline rule (pageTitle): the headline the page shows, confirmed by
// its metadata or, on a page of one thing, its one <h1>.
func TestHeadlineRule(t *testing.T) {
	u, _ := url.Parse("https://www.harbourtimes.example/2026/12/ferry-fares")
	const story = `<p>The ferry company said on Monday that fares would rise in spring, after a year of higher fuel costs.</p>`
	newsLD := func(headline string) string {
		return `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"` + headline + `"}</script>`
	}
	for _, c := range []struct{ name, head, body, title string }{
		{"a teaser og:title and <title>: the article's one h1",
			`<title>You won't believe what the ferry costs now</title><meta property="og:title" content="You won't believe what the ferry costs now"><meta property="og:type" content="article">`,
			`<h1>Ferry fares to rise by a fifth in spring</h1>` + story, "Ferry fares to rise by a fifth in spring"},
		{"the h1 the JSON-LD headline confirms, not the logo's h1",
			`<title>Harbour Times</title>` + newsLD("Ferry fares to rise by a fifth in spring"),
			`<header><h1 class="logo"><a href="/">Harbour Times</a></h1></header><article><h1>Ferry fares to rise by a fifth in spring</h1>` + story + `</article>`, "Ferry fares to rise by a fifth in spring"},
		{"the logo's h1 is a link home, the article's h1 the headline",
			`<title>Fares up | HT</title><meta property="og:type" content="article">`,
			`<h1><a href="https://www.harbourtimes.example/">Harbour Times Online</a></h1><h1>Ferry fares to rise by a fifth in spring</h1>` + story, "Ferry fares to rise by a fifth in spring"},
		{"the site's name in og:site_name is not a headline",
			`<title>Ferry fares | Harbour Times</title><meta property="og:site_name" content="Harbour Times"><meta property="og:type" content="article">`,
			`<h1>Harbour Times</h1><h2>Ferry fares to rise</h2>` + story, "Ferry fares"},
		{"an h1 that is the <title> less its site's name",
			`<title>In the News – Harbour Tutoring Centre</title>`,
			`<h1>In the news</h1>` + story, "In the news"},
		{"the <title> without the host's name, on a service page whose h1 says Welcome",
			`<title>Boat repairs and winter storage | HarbourTimes.example</title>`,
			`<h1>Welcome aboard</h1>` + story, "Boat repairs and winter storage"},
		{"several h1, none confirmed: the JSON-LD headline",
			`<title>Harbour news</title>` + newsLD("Ferry fares to rise by a fifth"),
			`<h1>Latest</h1><h1>Most read</h1>` + story, "Ferry fares to rise by a fifth"},
		{"a JSON-LD headline cut at 110 characters: the <title> it begins",
			`<title>Ferry fares to rise by a fifth in spring after a year of higher fuel costs, the company says, and passengers are angry about it</title>` +
				newsLD("Ferry fares to rise by a fifth in spring after a year of higher fuel costs, the company says, and passengers"),
			`<h1>Latest</h1><h1>Most read</h1>` + story, "Ferry fares to rise by a fifth in spring after a year of higher fuel costs, the company says, and passengers are angry about it"},
	} {
		pu := u
		if strings.Contains(c.name, "service page") { // a dated address makes an article (articlePath)
			pu, _ = url.Parse("https://www.harbourtimes.example/services/boat-repairs")
		}
		p, err := Extract([]byte(`<html><head>`+c.head+`</head><body>`+c.body+`</body></html>`), pu, ExtractOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != c.title {
			t.Errorf("%s: title %q, want %q", c.name, p.Title, c.title)
		}
	}
}

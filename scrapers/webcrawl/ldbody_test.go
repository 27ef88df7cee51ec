package webcrawl

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// A page whose scripts draw its how-to (its HTML holds only icons and empty
// links) is read from its JSON-LD: the description and each step, their
// paragraphs kept; a page with text of its own is left alone.
func TestLDBodyWhenScriptsDrawTheText(t *testing.T) {
	ld := `{"@context":"http://schema.org/","@type":"HowTo","name":"Tischdecke",` +
		`"description":"\u003cp\u003eUnabhängig von Größe und Stil kannst du dich glücklich schätzen, wenn du einen runden Tisch hast.\u003c/p\u003e\u003cp\u003eZum Glück wissen wir, wie man eine runde Tischdecke näht, die perfekt passt.\u003c/p\u003e",` +
		`"step":[{"@type":"HowToStep","itemListElement":{"@type":"HowToDirection","text":"\u003cp\u003eMiss den Durchmesser (das ist das Maß, das von Ende zu Ende durch die Tischmitte geht).\u003c/p\u003e"}}]}`
	page := `<html><head><title>Tischdecke</title><script type="application/ld+json">` + ld + `</script></head>` +
		`<body><header><a href="/"><svg></svg></a></header><div id="app" data-props="{}"></div><footer><a href="/"></a></footer></body></html>`
	u, _ := url.Parse("https://example.de/diy/1")
	p, err := Extract([]byte(page), u, ExtractOptions{ContentType: "text/html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Unabhängig von Größe und Stil", "\n\nZum Glück wissen wir", "den Durchmesser (das ist das Maß,"} {
		if !strings.Contains(p.Markdown, want) {
			t.Errorf("JSON-LD text %q missing from:\n%s", want, p.Markdown)
		}
	}
	if !slices.Contains(p.Notes, noteLDBody) {
		t.Errorf("notes %q do not say the text came from JSON-LD", p.Notes)
	}

	own := strings.Replace(page, `<div id="app" data-props="{}"></div>`,
		`<article><p>`+strings.Repeat("Ein eigener Text, den die Seite selbst zeigt. ", 12)+`</p></article>`, 1)
	p, err = Extract([]byte(own), u, ExtractOptions{ContentType: "text/html"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Markdown, "Durchmesser") || slices.Contains(p.Notes, noteLDBody) {
		t.Errorf("a page with its own text took its JSON-LD too:\n%s", p.Markdown)
	}
}

// ldBodyTexts takes the largest article, how-to or recipe, and nothing from
// other types (a product's description is another rule's).
func TestLDBodyTexts(t *testing.T) {
	long := strings.Repeat("word ", 60)
	if got := ldBodyTexts(`{"@type":"Product","description":"` + long + `"}`); got != nil {
		t.Errorf("a product's description was taken as a body: %q", got)
	}
	got := ldBodyTexts(`[{"@type":"NewsArticle","articleBody":"short"},{"@type":["BlogPosting"],"articleBody":"` + long + `"}]`)
	if len(got) != 1 || got[0] != strings.TrimSpace(long) {
		t.Errorf("ldBodyTexts = %q, want the long body", got)
	}
	if got := ldBodyTexts(`{"@type":"Article","articleBody":"too short"}`); got != nil {
		t.Errorf("a body under ldBodyMin was taken: %q", got)
	}
}

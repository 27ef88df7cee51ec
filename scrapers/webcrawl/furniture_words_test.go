package webcrawl

import (
	"fmt"
	"strings"
	"testing"
)

// Every language's table is read: a section titled "Read also" in German,
// French, Spanish, Italian, Polish, Portuguese, Japanese or Chinese is an
// aside, and its links go with it.
func TestFurnitureAsidesInEveryLanguage(t *testing.T) {
	for _, title := range []string{"Mehr zum Thema", "Das könnte Sie auch interessieren", "À lire aussi",
		"Noticias relacionadas", "Leggi anche", "Czytaj także", "Leia também", "関連記事", "相关阅读"} {
		t.Run(title, func(t *testing.T) {
			page := `<html><head><title>Bericht</title><meta property="og:type" content="article"></head><body><article>
<h1>Bericht</h1>` + paragraphs("the report", 4) + `
<h2>` + title + `</h2>
<ul><li><a href="/a">` + prose("another story's title", 1) + `</a></li><li><a href="/b">` + prose("another story's title", 2) + `</a></li></ul>
</article></body></html>`
			p := extractPage(t, page, "https://zeitung.example/bericht")
			wantIn(t, p, prose("the report", 1), prose("the report", 4))
			wantOut(t, p, title, prose("another story's title", 1))
		})
	}
}

// Labels that stand alone (Drucken, Imprimer, drukuj, 打印, Zurück nach
// oben) are calls to action in any language; the same word in a sentence
// stays.
func TestFurnitureLabelsInEveryLanguage(t *testing.T) {
	labels := []string{"Rezept drucken", "Zurück nach oben", "Imprimer", "Leer más", "Torna su", "drukuj", "Voltar ao topo", "打印", "続きを読む"}
	var b strings.Builder
	for i, l := range labels {
		fmt.Fprintf(&b, "<p>%s</p>\n<div class=\"tools\"><a href=\"/x%d\">%s</a></div>\n", prose("the recipe", i+1), i, l)
	}
	page := `<html><head><title>Rezept</title></head><body><main><h1>Rezept</h1>` + b.String() +
		`<p>Wer das Rezept drucken will, findet den Knopf unten.</p></main></body></html>`
	p := extractPage(t, page, "https://kochen.example/rezept")
	wantIn(t, p, prose("the recipe", 1), prose("the recipe", len(labels)), "Wer das Rezept drucken will")
	for _, l := range labels {
		if strings.Contains(strings.ReplaceAll(p.Markdown, "Wer das Rezept drucken will", ""), l) {
			t.Errorf("label %q kept:\n%s", l, shown(p))
		}
	}
}

// A prefix names an aside only as a whole word: "Werbung" (an
// advertisement's label) is not "Werbungskosten" (a section of the text).
func TestFurniturePrefixIsAWholeWord(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"werbung", true}, {"werbung:", true}, {"werbungskosten", false}, {"mehr zum thema", true},
		{"mehr zum themenpark", false}, {"相关阅读推荐", true}, {"comments (3)", true},
	} {
		if got := hasPrefixAny(c.text, []string{"werbung", "mehr zum thema", "相关阅读", "comments"}); got != c.want {
			t.Errorf("hasPrefixAny(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// The tables are merged for the rules: each language's words are found,
// labels in the form ctaLabel gives them.
func TestFurnitureTablesMerged(t *testing.T) {
	m := mergeFurniture(map[string]*furnitureWords{
		"xx": {asides: []string{"aside words"}, labels: []string{"Print → this!"}, credits: []string{"Photo :"}},
	})
	if !m.labels["print this"] || len(m.asides) != 1 || m.credits[0] != "photo:" {
		t.Errorf("merged tables: %+v", m)
	}
	for code, w := range furnitureLanguages {
		if len(w.asides) == 0 || len(w.labels) == 0 {
			t.Errorf("language %s has no asides or no labels", code)
		}
		for _, l := range w.labels {
			if !furniturePhrases.labels[ctaLabel(l)] {
				t.Errorf("label %q (%s) is not read", l, code)
			}
		}
	}
}

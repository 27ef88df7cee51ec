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

// Short lines of furniture are dropped by their first words: a lead-in to
// another page with its link ("Lea también:"), a photo's credit or a
// source ("Foto:", "Quelle:", "©"), a dateline ("Veröffentlicht am"), a
// notice ("Sie müssen sich einloggen…", "Tous droits réservés"). A
// paragraph of the text that begins alike is longer, and stays; so does a
// lead-in without a link (it is the text's own sentence).
func TestFurnitureLines(t *testing.T) {
	lines := []string{
		`<p><strong>Lea también:</strong> <a href="/otra">Impiden ingreso a un reportero</a></p>`,
		`<p>Lesen Sie auch: <a href="/mehr">Die Bahn streikt wieder</a></p>`,
		`<p>Foto: Max Muster / Agentur</p>`,
		`<p>Quelle : Deutscher Verband (DV)</p>`,
		`<p>© 2024 Zeitung GmbH</p>`,
		`<div>Veröffentlicht am 16.08.2019 von Redaktion</div>`,
		`<p>Publié le 3 mars 2022</p>`,
		`<p>Sie müssen sich einloggen, um sich an einer Diskussion beteiligen zu können.</p>`,
		`<p>Tous droits réservés, reproduction interdite.</p>`,
		`<p>发布时间：2020-02-19</p>`,
	}
	page := `<html><head><title>Bericht</title><meta property="og:type" content="article"></head><body><article><h1>Bericht</h1>
` + paragraphs("the report", 3) + strings.Join(lines, "\n") + `
<p>Foto: ` + prose("a photograph the text describes at length", 1) + `</p>
<p>Siehe auch: die Tabelle unten, die alle Werte des Jahres zeigt.</p>
` + paragraphs("the report's end", 2) + `</article></body></html>`
	p := extractPage(t, page, "https://zeitung.example/bericht")
	wantIn(t, p, prose("the report", 1), prose("the report's end", 2), prose("a photograph the text describes at length", 1),
		"Siehe auch: die Tabelle unten")
	wantOut(t, p, "Impiden ingreso", "Die Bahn streikt", "Max Muster", "Deutscher Verband", "Zeitung GmbH", "16.08.2019",
		"3 mars 2022", "einloggen", "Tous droits", "2020-02-19")
}

// A table's row that begins alike is its data, and is not looked into.
func TestFurnitureLinesNotInTables(t *testing.T) {
	page := `<html><head><title>Daten</title></head><body><main><h1>Daten</h1>` + paragraphs("the data", 3) +
		`<table><tr><th>Feld</th><th>Wert</th></tr><tr><td><p>Quelle: Statistisches Amt</p></td><td>12</td></tr></table></main></body></html>`
	p := extractPage(t, page, "https://amt.example/daten")
	wantIn(t, p, "Quelle: Statistisches Amt")
}

// An icon's self-closed <title/> inside SVG is an element, not the start of
// a title running to the end of the page; and what a <map> holds (a script
// framework's component may bear its name) is shown, so it is read.
func TestForeignTitleAndMapContent(t *testing.T) {
	page := `<html><head><title>Ausflüge</title></head><body><header><a href="/"><svg viewBox="0 0 1 1"><title/><path d="M0"/></svg></a></header>
<main><h1>Ausflüge</h1>` + paragraphs("the trips", 2) + `<map id="guide" :markers="[]"><p>` + prose("the trip inside the map", 1) + `</p></map>
<svg><style>.a{fill:red}</style></svg>` + paragraphs("the trips' end", 2) + `</main></body></html>`
	p := extractPage(t, page, "https://ausflug.example/herbst")
	wantIn(t, p, prose("the trips", 1), prose("the trip inside the map", 1), prose("the trips' end", 2))
}

// A label in a row of buttons (Print beside Pin) stands alone though its
// block holds other labels; in a sentence it does not.
func TestLabelInARowOfButtons(t *testing.T) {
	page := `<html><head><title>Rezept</title></head><body><main><h1>Rezept</h1>` + paragraphs("the cake", 3) +
		`<div class="buttons"><a href="/print">Rezept drucken</a> <a href="/pin">Merken auf Pinterest</a></div>
<p>Zum Schluss <a href="/x">drucken</a> Sie das Blatt aus und legen es bereit.</p></main></body></html>`
	p := extractPage(t, page, "https://backen.example/kuchen")
	wantIn(t, p, prose("the cake", 3), "Merken auf Pinterest", "Zum Schluss [drucken]")
	wantOut(t, p, "Rezept drucken")
}

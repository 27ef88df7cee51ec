package webcrawl

import (
	"strings"
	"testing"
)

// An article's lead in its header (beside the headline, outside the block
// its software names as the text) is kept, before the text; one the text
// repeats is not doubled; a teaser above the headline (another story's) is
// not a lead.
func TestLeadOutsideTheArticleBody(t *testing.T) {
	lead := "Die Jugendverbände der Landwirtschaft fordern eine Prämie. In einem ersten Gespräch zeigte sich die Ministerin offen."
	page := `<html><head><title>Prämie</title><meta property="og:type" content="article"></head><body>
<div class="top"><p class="teaser">` + prose("another story's teaser", 1) + `</p></div>
<article><header><h1 class="a-title">Prämie</h1><p class="a-lead">` + lead + `</p></header>
<div class="entry-content">` + paragraphs("the report", 5) + `</div></article></body></html>`
	p := extractPage(t, page, "https://zeitung.example/praemie")
	wantIn(t, p, lead, prose("the report", 1), prose("the report", 5))
	wantOut(t, p, prose("another story's teaser", 1))
	if i, j := strings.Index(p.Markdown, "Die Jugendverbände"), strings.Index(p.Markdown, prose("the report", 1)); i > j {
		t.Errorf("the lead comes after the text:\n%s", shown(p))
	}

	repeated := strings.Replace(page, `<div class="entry-content">`, `<div class="entry-content"><p>`+lead+`</p>`, 1)
	p = extractPage(t, repeated, "https://zeitung.example/praemie")
	if n := strings.Count(p.Markdown, "Die Jugendverbände"); n != 1 {
		t.Errorf("the lead is there %d times:\n%s", n, shown(p))
	}
}

// A text whose first paragraph only begins like the lead does not hold it:
// the lead is kept.
func TestLeadThatTheTextOnlyBeginsLike(t *testing.T) {
	lead := "Die Jugendverbände der Landwirtschaft in NRW fordern eine Prämie. In einem ersten Gespräch zeigte sich die Ministerin offen."
	page := `<html><head><title>Prämie</title><meta property="og:type" content="article"></head><body>
<article><header><h1>Prämie</h1><p class="a-lead">` + lead + `</p></header>
<div class="entry-content"><p>Die Jugendverbände der Landwirtschaft in NRW fordern eine Prämie für Junge, so sollen Höfe weiterleben.</p>` +
		paragraphs("the report", 5) + `</div></article></body></html>`
	p := extractPage(t, page, "https://zeitung.example/praemie")
	wantIn(t, p, "In einem ersten Gespräch zeigte sich die Ministerin offen.", prose("the report", 5))
}

// A subheading right after the headline, a sentence long and with no class
// naming it, is the lead too; a short kicker there is not.
func TestStandfirstByItsPlace(t *testing.T) {
	lead := "Ada Álvarez Conde resaltó que existe una falta de comunicación en la colectividad y que han impuesto mordazas."
	page := `<html><head><title>Líder</title><meta property="og:type" content="article"></head><body>
<article><header><h1>Líder de la organización</h1><h2>` + lead + `</h2></header>
<div class="entry-content">` + paragraphs("the report", 5) + `</div></article></body></html>`
	p := extractPage(t, page, "https://diario.example/lider")
	wantIn(t, p, "falta de comunicación en la colectividad", prose("the report", 5))

	short := strings.Replace(page, lead, "Política", 1)
	p = extractPage(t, short, "https://diario.example/lider")
	wantOut(t, p, "Política")
}

package webcrawl

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Every language's table is read: a section titled "Read also" in German,
// French, Spanish, Italian, Polish, Portuguese, Japanese or Chinese is an
// aside, and its links go with it.
func TestFurnitureAsidesInEveryLanguage(t *testing.T) {
	for _, title := range []string{"Mehr zum Thema", "Das könnte Sie auch interessieren", "À lire aussi",
		"Noticias relacionadas", "Leggi anche", "Czytaj także", "Leia também", "関連記事", "相关阅读",
		"Mehr lesen:", "Articles en relation", "Lue aiheesta lisää:", "Czytaj również", "Más sobre", "More from"} {
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
	if !m.labels["print this"] || !m.asides.has("aside words here") || !m.credits.has("photo: a.b.") || m.labelMax != len("print this") {
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

// The heading of a comment form (Leave a reply, Schreibe einen Kommentar,
// Publier un commentaire…) titles an aside on every kind of page, not only
// on articles: a page that does not say it is an article loses the form's
// notes too.
func TestCommentFormHeadingOnAnyPage(t *testing.T) {
	for _, title := range []string{"Leave a Reply", "Schreibe einen Kommentar", "Publier un commentaire", "Deja un comentario",
		"Lascia un commento", "Deixe um comentário", "Dodaj komentarz"} {
		t.Run(title, func(t *testing.T) {
			page := `<html><head><title>Blog</title></head><body><main><h1>Blog</h1>` + paragraphs("the post", 4) +
				`<h3>` + title + `</h3><p>` + prose("the comment form's note", 1) + `</p></main></body></html>`
			p := extractPage(t, page, "https://blog.example/post")
			wantIn(t, p, prose("the post", 1), prose("the post", 4))
			wantOut(t, p, title, prose("the comment form's note", 1))
		})
	}
}

// Notices added with the comment, shop and support prompts: a login to
// comment, a rating prompt, an empty cart, a plea for support, a newsletter.
func TestFurnitureNoticesOfPrompts(t *testing.T) {
	lines := []string{
		`<p>Um den Tipp "Tomaten" kommentieren zu können, müssen Sie eingeloggt sein.</p>`,
		`<div>Du musst <a href="#login">Eingeloggt</a> sein um Kommentare zu schreiben!</div>`,
		`<p>(Noch keine Bewertungen)</p>`,
		`<p>Ihr Warenkorb ist leer</p>`,
		`<p>Gefällt dir unser Magazin? Unterstütze uns mit einem Abo.</p>`,
		`<p>Your cart is empty.</p>`,
		`<p>No responses yet</p>`,
		`<p>¿Ya sabías que tenemos canal de Telegram? Únete desde tu celular.</p>`,
		`<p>Never miss the latest news by signing up.</p>`,
	}
	page := `<html><head><title>Tipp</title></head><body><main><h1>Tipp</h1>` + paragraphs("the tip", 3) +
		strings.Join(lines, "\n") + paragraphs("the tip's end", 2) + `</main></body></html>`
	p := extractPage(t, page, "https://kochen.example/tipp")
	wantIn(t, p, prose("the tip", 1), prose("the tip's end", 2))
	wantOut(t, p, "Tomaten", "Eingeloggt", "Bewertungen", "Warenkorb", "Gefällt dir unser", "cart is empty", "No responses", "Telegram", "Never miss")
}

// When everything looks like furniture and the whole page is taken, the
// word rules still run on it: its lone labels and lines of furniture go.
func TestWordFurnitureOnTheWholePage(t *testing.T) {
	var items strings.Builder
	for i := range 20 {
		fmt.Fprintf(&items, "<li><a href=\"/n%d\">Notiz Nummer %d über den Garten</a></li>", i, i)
	}
	box := `<aside class="sidebar"><ul>` + items.String() + `</ul><div>Foto: Max Muster / Agentur</div>` +
		`<div class="tools"><a href="/print">Seite drucken</a></div></aside>`
	page := `<html><body>` + box + box + box + `</body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	body := findElement(doc, atom.Body)
	chosen, note := chooseContent(body, kindOther)
	if note != noteWhole {
		t.Fatalf("note %q, want the whole page taken (%q)", note, noteWhole)
	}
	var text strings.Builder
	for _, n := range chosen {
		text.WriteString(nodeText(n, 1<<20))
	}
	if got := text.String(); !strings.Contains(got, "Notiz Nummer 19") || strings.Contains(got, "Max Muster") || strings.Contains(got, "Seite drucken") {
		t.Errorf("whole page taken with its furniture, or without its text:\n%s", got)
	}
}

// A line of furniture that is not a block of its own goes too: a credit
// after a caption's <br> (in brackets or not), a login notice written loose
// in a div beside a form; the caption's own line and the text's loose
// sentences stay.
func TestFurnitureRunsBetweenBreaks(t *testing.T) {
	page := `<html><head><title>Bericht</title></head><body><main><h1>Bericht</h1>` + paragraphs("the report", 3) +
		`<p><img src="/a.png" alt="Grafik"><br><em>(Credit: Clayton Aldern / Grist)</em></p>
<p>Die Kernkraft ist nicht nachhaltig.<br>Quelle: jorisvo / Fotolia.com</p>
<div><form action="/c"><input name="q"></form> Du musst <a href="#login">Eingeloggt</a> sein um Kommentare zu schreiben!<div>` +
		prose("the report's loose end", 1) + `</div></div></main></body></html>`
	p := extractPage(t, page, "https://zeitung.example/bericht")
	wantIn(t, p, prose("the report", 3), "Die Kernkraft ist nicht nachhaltig.", prose("the report's loose end", 1))
	wantOut(t, p, "Clayton", "jorisvo", "Eingeloggt")
}

// A count before an aside's words ("0 Kommentare", "12 Responses") does
// not hide them.
func TestAsideHeadingWithACount(t *testing.T) {
	for _, h := range []string{"0 Kommentare", "12 Comments", "3 commentaires"} {
		if !asideHeading(h, true) {
			t.Errorf("%q is not read as an aside's heading", h)
		}
	}
	if asideHeading("2024 Kommentare zur Lage", false) {
		t.Errorf("an article-only heading was read on another page")
	}
}

// A heading that says there are no comments yet titles a comment form on
// any kind of page, and only it and what follows it go: the post that
// shares its box stays.
func TestNoCommentsHeading(t *testing.T) {
	page := `<html><head><title>Nummer zwei</title></head><body><div id="main"><h1>Nummer zwei</h1><div class="post">` +
		paragraphs("the post", 3) + `</div>
<h2 id="comments">No Response so far <a href="#postcomment">&raquo;</a></h2>
<p class="small"><a href="/feed">Comment RSS</a> · <a href="/tb">TrackBack URI</a></p>
<h3>Say your words</h3><form action="/c"><textarea name="c"></textarea></form></div>
<div id="side"><ul><li><a href="/a">Archiv</a></li></ul></div></body></html>`
	p := extractPage(t, page, "https://blog.example/nummer-zwei/")
	wantIn(t, p, prose("the post", 3))
	wantOut(t, p, "No Response so far", "Say your words")
	for _, h := range []string{"Keine Kommentare for “Malaga”", "Aucun commentaire", "0 Kommentare", "Brak komentarzy"} {
		if !asideHeading(h, false) {
			t.Errorf("%q is not read as a heading of no comments", h)
		}
	}
}

// PHP's warnings written into a page, and a blog theme's line on where
// its comments are followed, are lines of furniture; a sentence about
// PHP is not.
func TestPHPWarningsAndFeedLines(t *testing.T) {
	for _, l := range []string{
		"Warning:  Creating default object from empty value in /www/htdocs/w0094d70/wp-includes/classes.php on line 407",
		"Deprecated: preg_replace(): The /e modifier is deprecated in /www/htdocs/wp-includes/formatting.php on line 82",
		"Der Beitrag wurde am Mittwoch, den 27. November 2019 um 15:21 Uhr veröffentlicht und wurde unter Allgemein abgelegt. Du kannst die Kommentare zu diesen Eintrag durch den RSS 2.0 Feed verfolgen. Kommentare sind derzeit geschlossen.",
	} {
		if !furnitureLineLinked(l, false) {
			t.Errorf("%q is not read as furniture", l)
		}
	}
	if furnitureLineLinked("Warning: this article explains why a .php file fails on line 3 of your config, and how to fix it.", false) {
		t.Errorf("a sentence about PHP was read as PHP's warning")
	}
}

// Each table's newer asides title a section on any kind of page.
func TestMoreAsideHeadings(t *testing.T) {
	for _, h := range []string{"Podobne przepisy", "Więcej przepisów z użyciem tego produktu", "TOP-THEMEN", "Ansprechpartnerin", "Pressekontakt", "Media contacts", "Contact presse", "Tags", "Schlagwörter", "Mots-clés", "Etiquetas", "Sign up for the CorkBeo newsletter", "Look at other dictionaries:"} {
		if !asideHeading(h, false) {
			t.Errorf("%q is not read as an aside's heading", h)
		}
	}
}

// A form's label that is a call of its own ("Sorted by:" over a Q&A
// site's answers, beside a hidden link) goes like a button.
func TestSortLabelAlone(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<html><body><div class="answers">` + paragraphs("the question", 1) +
		`<div class="col"><label for="sort-menu">Sorted by:</label> <a class="d-none" href="?answertab=scoredesc">Reset to default</a></div>` +
		paragraphs("the answer", 1) + `</div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findElement(doc, atom.Body)
	dropCallsToAction(body)
	got := nodeText(body, 1<<20)
	if strings.Contains(got, "Sorted by") || !strings.Contains(got, prose("the answer", 1)) {
		t.Errorf("the sort label stayed, or the answer went:\n%s", got)
	}
}

// A heading that is a notice goes like a line of one; a heading that
// begins like a dateline stays (it may be a section's title).
func TestNoticeHeading(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<html><body><div>` + paragraphs("the thread", 1) +
		`<div id="form"><h3>Sie müssen sich <a href="/login">einloggen</a>, um sich an einer Diskussion beteiligen zu können.</h3></div>` +
		`<h3>Published on the web: a history</h3>` + paragraphs("the history", 1) + `</div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findElement(doc, atom.Body)
	dropFurnitureLines(body)
	got := nodeText(body, 1<<20)
	if strings.Contains(got, "einloggen") || !strings.Contains(got, "Published on the web") {
		t.Errorf("the login notice stayed, or a heading like a dateline went:\n%s", got)
	}
}

// The notices' index answers as a scan of every notice does, on lines that
// hold one anywhere, hold none, or hold part of one.
func TestPhraseIndexMatchesContainsAny(t *testing.T) {
	ps := furniturePhrases.notices
	ix := furniturePhrases.noticeIndex
	var lines []string
	for i, p := range ps {
		lines = append(lines, p, "before "+p+" after", p[:len(p)/2], "x"+p[1:], ps[(i+7)%len(ps)]+" "+p[:len(p)-1])
	}
	lines = append(lines, "", "abc", "a plain sentence of a page's own text, with nothing in it")
	for _, l := range lines {
		if got, want := ix.contains(l), containsAny(l, ps); got != want {
			t.Fatalf("index says %v for %q, a scan %v", got, l, want)
		}
	}
}

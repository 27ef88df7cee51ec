package document

import (
	"fmt"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/document/pdftest"
)

// A paper's first page as arXiv serves it: its stamp set upwards in the
// left margin, larger than anything else and first in the content, the
// title over two lines, an author list cut by superscript marks, and a
// larger heading on page two. The title is the first page's largest text,
// the stamp stays (after the page's text) but is no heading, and the
// author list is one line of text, not a heading.
func arxivPaper() []byte {
	p1 := []pdftest.Text{{X: 30, Y: 250, Size: 20, Rotate: 90, S: "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020"}}
	p1 = append(p1,
		pdftest.Text{X: 120, Y: 720, Size: 15, Bold: true, S: "Dense Passage Retrieval for"},
		pdftest.Text{X: 120, Y: 702, Size: 15, Bold: true, S: "Open-Domain Question Answering"},
		pdftest.Text{X: 90, Y: 670, Size: 12, S: "Vladimir Karpukhin", Parts: []pdftest.Part{
			{S: "*", Size: 7, Rise: 5}, {S: ", Barlas Oguz"}, {S: "*", Size: 7, Rise: 5}, {S: ", Sewon Min"}, {S: "1", Size: 7, Rise: 5}}},
	)
	p1 = append(p1, pdftest.Lines(72, 630, 10,
		"Open-domain question answering relies on ef-",
		"ficient passage retrieval to select candidate",
		"contexts, where traditional sparse vector space",
		"models are the de facto method. We show that us-",
		"ing dense representations alone works well.",
	)...)
	p2 := append([]pdftest.Text{{X: 72, Y: 720, Size: 24, Bold: true, S: "Appendix"}},
		pdftest.Lines(72, 690, 10, "More results follow here on the second page.")...)
	return pdftest.PDF([]pdftest.Page{{Texts: p1}, {Texts: p2}}, pdftest.Options{})
}

func TestPDFTitleIsTheFirstPagesLargestTextNotTheArxivStamp(t *testing.T) {
	d, err := convertPDFTest(t, arxivPaper(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown
	if d.Title != "Dense Passage Retrieval for Open-Domain Question Answering" {
		t.Errorf("title %q, want the first page's largest text across its two lines", d.Title)
	}
	if first, _, _ := strings.Cut(md, "\n"); !strings.HasPrefix(first, "#") || !strings.HasSuffix(first, " Dense Passage Retrieval for Open-Domain Question Answering") {
		t.Errorf("the Markdown does not start with the title as a heading:\n%s", md)
	}
	stamp := strings.Index(md, "arXiv:2004.04906v3 \\[cs.CL\\] 30 Sep 2020")
	if stamp < 0 || strings.Contains(md, "# arXiv") || stamp < strings.Index(md, "using dense representations") || stamp > strings.Index(md, "<!-- page 2 -->") {
		t.Errorf("the stamp must stay as a plain line after the first page's text:\n%s", md)
	}
}

func TestPDFAuthorListIsOneLineNotAHeading(t *testing.T) {
	d, err := convertPDFTest(t, arxivPaper(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "\n\nVladimir Karpukhin\\*, Barlas Oguz\\*, Sewon Min1\n\n") {
		t.Errorf("the author list is not one paragraph line:\n%s", d.Markdown)
	}
	for _, l := range strings.Split(d.Markdown, "\n") {
		if strings.HasPrefix(l, "#") && strings.Contains(l, "Oguz") {
			t.Errorf("an author list became a heading: %q", l)
		}
	}
}

func TestPDFBrokenWordsAreJoined(t *testing.T) {
	d, err := convertPDFTest(t, arxivPaper(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"relies on efficient passage retrieval", "We show that using dense representations"} {
		if !strings.Contains(d.Markdown, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, d.Markdown)
		}
	}
	// Compounds keep their hyphen; the document's own spelling decides.
	lines := []string{
		"The compiler runs in a mixed-mode setting at run time,",
		"and mixed results in mode tests are well known to us.",
		"A state-of-the-",
		"art compiler is well-",
		"known to mix interpreted and mixed-",
		"mode code; its run-",
		"time is short and it can com-",
		"pile quickly, as a compile step. Trace-",
		"Monkey is pre-",
		"Columbian, said no one.",
	}
	pdf := pdftest.PDF([]pdftest.Page{{Texts: pdftest.Lines(72, 700, 10, lines...)}}, pdftest.Options{})
	d, err = convertPDFTest(t, pdf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "A state-of-the-art compiler is well-known to mix interpreted and mixed-mode code; its run-time is short and it can compile quickly, as a compile step. Trace-Monkey is pre-Columbian, said no one."
	if got := strings.Join(strings.Fields(renderedText(d.Markdown)), " "); !strings.Contains(got, want) {
		t.Errorf("the broken words read\n%s\nwant\n%s", got, want)
	}
}

func TestKeepHyphen(t *testing.T) {
	v := vocabulary{"compile": 1, "run-time": 1, "run": 1, "time": 1, "mixed": 2, "mode": 1, "us": 3, "over": 1, "ing": 1, "well": 1, "known": 1,
		"headquarters": 1, "head": 2, "quarters": 1, "co-author": 1, "author": 1}
	for _, c := range []struct {
		head, next string
		keep       bool
	}{
		{"ef-", "ficient retrieval", false}, // rule 5: not words of their own
		{"us-", "ing dense", false},         // "us" is a word, "ing" is not
		{"com-", "pile quickly", false},     // rule 3: "compile" is in the document
		{"run-", "time is short", true},     // rule 3: "run-time" is
		{"head-", "quarters", false},        // rule 3, though both are words
		{"co-", "author", true},             // rule 3, though "co" is not a word
		{"mixed-", "mode code", true},       // rule 4: two words of the document
		{"well-", "known", true},            // rule 4
		{"over-", "ing", false},             // rule 4 refused: a prefix, an ending
		{"state-of-the-", "art", true},      // rule 2
		{"state-", "of-the-art", true},      // rule 2
		{"self-", "contained", true},        // rule 2
		{"pre-", "Columbian", true},         // rule 1
		{"COVID-", "19", true},              // rule 1
	} {
		if got := v.keepHyphen(c.head, c.next); got != c.keep {
			t.Errorf("keepHyphen(%q, %q) = %v, want %v", c.head, c.next, got, c.keep)
		}
	}
}

func TestAuthorList(t *testing.T) {
	for text, want := range map[string]bool{
		", Barlas Oguz": true,
		"Andreas Gal∗+, Brendan Eich∗, Mike Shaver∗":                      true,
		"Ada Lovelace1, Charles Babbage2 and Alan Turing":                 true,
		"Mohammad R. Haghighat$":                                          true,
		"Martin Thoma":                                                    false, // one name, no mark: maybe a heading
		"Methods, Results and Discussion":                                 false,
		"Data Collection, Processing and Analysis":                        false,
		"Trace-based Just-in-Time Type Specialization":                    false,
		"Row and Column Access Control Support in IBM DB2":                false,
		"Results on Natural Questions and TriviaQA":                       false,
		"Ada Lovelace, Charles Babbage":                                   true,
		"Machine Learning and Deep Learning":                              false,
		"Ada Lovelace and Charles Babbage":                                false, // the price of the line above
		"Question Answering, Passage Retrieval and Reading Comprehension": true,  // and of these: names alike in form
	} {
		if got := authorList(text); got != want {
			t.Errorf("authorList(%q) = %v, want %v", text, got, want)
		}
	}
}

// Three columns whose content is drawn out of reading order (the third
// column first, the first column's footnote before its text, the footer
// before all) are read column by column, the running head and the footer
// in place; a form's short label and value lines keep the content's order.
func TestPDFThreeColumnsReadInOrder(t *testing.T) {
	col := func(x float64, name string, n int) []pdftest.Text {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprintf("%s line %d of running text", name, i+1)
		}
		return pdftest.Lines(x, 700, 8, lines...)
	}
	var texts []pdftest.Text
	texts = append(texts, pdftest.Text{X: 40, Y: 600, Size: 8, S: "Footer of the page, set across all three of its columns, from the left edge to the right edge of its text"})
	texts = append(texts, col(400, "Third", 6)...)
	texts = append(texts, pdftest.Lines(40, 625, 8, "1 A footnote of the first column", "that runs over two of its lines")...)
	texts = append(texts, col(40, "First", 6)...)
	texts = append(texts, pdftest.Text{X: 40, Y: 740, Size: 8, S: "Running head of the page, set across all three of its columns, from the left edge to the right edge of it"})
	texts = append(texts, col(220, "Second", 6)...)
	pdf := pdftest.PDF([]pdftest.Page{{Texts: texts}}, pdftest.Options{})
	d, err := convertPDFTest(t, pdf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"Running head", "First line 1", "First line 6", "1 A footnote", "Second line 1", "Second line 6", "Third line 1", "Third line 6", "Footer of the page"}
	last := -1
	for _, s := range order {
		i := strings.Index(d.Markdown, s)
		if i < last {
			t.Errorf("%q comes out of order:\n%s", s, d.Markdown)
		}
		last = max(last, i)
	}

	// A form: labels on the left, values on the right, drawn row by row.
	var form []pdftest.Text
	for i := 0; i < 8; i++ {
		y := 700 - float64(i)*14
		form = append(form, pdftest.Text{X: 72, Y: y, Size: 10, S: fmt.Sprintf("Label %d", i+1)}, pdftest.Text{X: 300, Y: y, Size: 10, S: fmt.Sprintf("Value %d", i+1)})
	}
	d, err = convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Texts: form}}, pdftest.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(d.Markdown, "Value 1"), strings.Index(d.Markdown, "Label 2"); i < 0 || j < 0 || i > j {
		t.Errorf("a form's rows were read as columns:\n%s", d.Markdown)
	}
}

// A page set sideways (all its text rotated) is the page's text, not a
// stamp: its lines make paragraphs and its largest line is the title.
func TestPDFSidewaysPageIsText(t *testing.T) {
	texts := []pdftest.Text{{X: 100, Y: 72, Size: 16, Rotate: 90, S: "Rates by Region"}}
	for i, l := range []string{"Rates rose in the north this year,", "and fell in the south by a little."} {
		texts = append(texts, pdftest.Text{X: 130 + float64(i)*13, Y: 72, Size: 10, Rotate: 90, S: l})
	}
	d, err := convertPDFTest(t, pdftest.PDF([]pdftest.Page{{Texts: texts}}, pdftest.Options{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Rates by Region" || !strings.Contains(d.Markdown, "Rates rose in the north this year,\nand fell in the south by a little.") {
		t.Errorf("a sideways page: title %q\n%s", d.Title, d.Markdown)
	}
}

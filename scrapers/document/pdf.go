package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// maxPDFLinks caps the web links a PDF's text gives (Document.Links).
const maxPDFLinks = 1000

// convertPDF reads a PDF's text layer page by page (PDFium's text order,
// which follows the document's content and keeps a column's lines
// together), with each line's place, extent and type size, then puts each
// page's lines in reading order (arrange.go) and lays them out as Markdown
// (layout.go). It stops reading pages once it holds more text
// than max_length keeps, or at MaxPages.
func convertPDF(ctx context.Context, body []byte, o Options) (*Document, error) {
	e, err := getEngine()
	if err != nil {
		return nil, err
	}
	inst, work, end, err := e.instance(ctx, o.Timeout)
	if err != nil {
		return nil, err
	}
	defer end()
	d, err := readPDF(work, inst, body, o)
	if ctx.Err() != nil { // the caller is gone
		return nil, ctx.Err()
	}
	if work.Err() != nil && err != nil { // out of time before a page was read
		return nil, &Error{Kind: PDF, Reason: ErrTimeout, Detail: fmt.Sprintf("%s, before any page was read", o.Timeout)}
	}
	return d, err
}

func readPDF(ctx context.Context, inst pdfium.Pdfium, body []byte, o Options) (*Document, error) {
	d := &Document{}
	data := body
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil && (o.Cut || !errors.Is(err, pdferrors.ErrPassword) && !errors.Is(err, pdferrors.ErrSecurity)) {
		// A cut or damaged file: give PDFium the trailer it lacks, and let
		// it rebuild the cross-reference table from the objects it finds.
		if fixed := withTrailer(body); fixed != nil {
			if doc2, err2 := inst.OpenDocument(&requests.OpenDocument{File: &fixed}); err2 == nil {
				doc, err = doc2, nil
				d.Truncated = append(d.Truncated, "damaged: the file ends early (no cross-reference table or trailer); what could be read is given")
			}
		}
	}
	if err != nil {
		switch {
		case errors.Is(err, pdferrors.ErrPassword):
			return nil, &Error{Kind: PDF, Reason: ErrPassword, Detail: "only an owner password (an empty user password) opens without one"}
		case errors.Is(err, pdferrors.ErrSecurity):
			return nil, &Error{Kind: PDF, Reason: ErrEncrypted, Detail: "an unsupported security handler"}
		default:
			detail := "PDFium: " + err.Error()
			if !bytes.HasPrefix(bytes.TrimLeft(body[:min(len(body), 1024)], "\x00\t\n\f\r "), []byte("%PDF-")) {
				detail = "it does not start with %PDF-"
			}
			return nil, &Error{Kind: PDF, Reason: ErrDamaged, Detail: detail}
		}
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	if o.Cut {
		d.Truncated = append([]string{o.CutReason}, d.Truncated...)
	}

	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return nil, &Error{Kind: PDF, Reason: ErrDamaged, Detail: "its pages could not be counted"}
	}
	d.Pages = pc.PageCount
	if d.Pages == 0 {
		return nil, &Error{Kind: PDF, Reason: ErrDamaged, Detail: "it has no pages"}
	}
	info := pdfInfo(inst, doc.Document)
	d.Description = info.subject
	if !junkAuthor.MatchString(info.author) {
		d.Author = info.author
	}

	var (
		pages     []pageLines
		textRunes int
		empty     int // pages with no text
		failed    []int
		links     = newLinkSet(maxPDFLinks)
	)
	last := min(d.Pages, o.MaxPages)
	stoppedAt := 0
	outOfTime := 0 // the page the time ran out on
	for i := 0; i < last; i++ {
		if ctx.Err() != nil {
			outOfTime = i + 1
			break
		}
		pl, err := readPage(inst, doc.Document, i, links)
		if ctx.Err() != nil { // killed mid-page: the engine is gone
			outOfTime = i + 1
			break
		}
		if err != nil {
			failed = append(failed, i+1)
			continue
		}
		if pl.chars == 0 {
			empty++
		}
		pages = append(pages, pl)
		textRunes += pl.chars
		if textRunes > o.MaxLength+o.MaxLength/4 && i+1 < last {
			stoppedAt = i + 1
			break
		}
	}
	if len(pages) > 0 && textRunes == 0 {
		return nil, &Error{Kind: PDF, Reason: ErrNoText, Detail: fmt.Sprintf("%d %s, no text on any", d.Pages, plural(d.Pages, "page", "pages"))}
	}
	if len(pages) == 0 {
		if outOfTime > 0 {
			return nil, &Error{Kind: PDF, Reason: ErrTimeout, Detail: fmt.Sprintf("%s, before any page was read", o.Timeout)}
		}
		return nil, &Error{Kind: PDF, Reason: ErrDamaged, Detail: "no page could be read: damaged, or a page unpacks to more than the engine's 256 MiB"}
	}
	if outOfTime > 0 {
		d.Truncated = append(d.Truncated, fmt.Sprintf("timeout: the time to convert (%s) ran out at page %d of %d; the pages before it are given", o.Timeout, outOfTime, d.Pages))
	}
	if len(failed) > 0 {
		d.Truncated = append(d.Truncated, fmt.Sprintf("damaged: %s %s could not be read", plural(len(failed), "page", "pages"), intList(failed, 10)))
	}
	if empty > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d of the %d pages read have no text layer (scanned pages or images); text in images is not read", empty, len(pages)))
	}
	lay := layout(pages)
	d.Markdown, d.Title = lay.markdown, lay.title
	if t := usableTitle(info.title); t != "" {
		d.Title = t
	}
	// The document's /Lang, unless its text is surely in another language
	// (a word processor's default left in an Arabic essay).
	d.Language = languageTag(info.lang)
	if found := detectLanguage(lay.markdown); found != "" && !strings.EqualFold(primaryTag(d.Language), found) {
		d.Language = found
	}
	d.Links = links.list
	switch {
	case stoppedAt > 0:
		// Cut below at max_length; this says how far the reading went.
		d.Markdown, _ = cutRunes(d.Markdown, o.MaxLength)
		d.Truncated = append(d.Truncated, fmt.Sprintf("max_length: the Markdown was cut at %d characters, within page %d of %d", o.MaxLength, stoppedAt, d.Pages))
	case d.Pages > last:
		d.Truncated = append(d.Truncated, fmt.Sprintf("pages: only the first %d of %d pages were converted", last, d.Pages))
	}
	if cut, ok := cutRunes(d.Markdown, o.MaxLength); ok {
		d.Markdown = cut
		if stoppedAt == 0 {
			d.Truncated = append(d.Truncated, fmt.Sprintf("max_length: the Markdown was cut at %d characters", o.MaxLength))
		}
	}
	return d, nil
}

type docInfo struct{ title, author, subject, lang string }

func pdfInfo(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT) docInfo {
	var di docInfo
	if r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Title"}); err == nil {
		di.title = cleanMeta(r.Value)
	}
	if r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Author"}); err == nil {
		di.author = cleanMeta(r.Value)
	}
	if r, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Subject"}); err == nil {
		di.subject = cleanMeta(r.Value)
	}
	if r, err := inst.FPDFCatalog_GetLanguage(&requests.FPDFCatalog_GetLanguage{Document: doc}); err == nil {
		di.lang = r.Language
	}
	return di
}

func cleanMeta(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	return truncateString(s, 500)
}

// junkTitle matches info Titles that name a file or a tool rather than the
// document: "Binder1.pdf", "10811.exe", "Microsoft Word - report.docx".
var junkTitle = regexp.MustCompile(`(?i)(\.(pdf|docx?|exe|tmp|tex|dvi|indd|qxd|rtf|xlsx?|pptx?|odt|ps)$)|^(microsoft (word|powerpoint|excel) - |untitled\b|title$|document\d*$|slide \d+$)`)

// junkAuthor matches info Authors that name an account, not a person.
var junkAuthor = regexp.MustCompile(`(?i)^(administrator|admin|user|owner|unknown|author|default|windows user|microsoft office user|pc|\S+@\S+\.local)?$`)

func primaryTag(tag string) string {
	if i := strings.IndexByte(tag, '-'); i >= 0 {
		return tag[:i]
	}
	return tag
}

// usableTitle is an info Title a reader would call the title, or "".
func usableTitle(t string) string {
	if t == "" || junkTitle.MatchString(t) || utf8.RuneCountInString(t) < 3 {
		return ""
	}
	return t
}

// pageLines is one page's text lines, in PDFium's order.
type pageLines struct {
	number int // 1-based
	lines  []textLine
	chars  int // non-space characters
}

// textLine is one line of a page's text and where it sits.
type textLine struct {
	text        string
	top, bottom float64  // the first character's loose box, in points (y grows upwards)
	left, right float64  // from the first character's loose box to the last's, either way (right to left too)
	rotated     bool     // set along another direction than left to right (a margin stamp read upwards)
	sideways    bool     // on a page whose text is mostly rotated (sideways): its place is not a reading order's
	softBreak   bool     // it ends in a hyphen that PDFium found at a line's end, the word going on in the next line
	size        float64  // type size in points (0: unknown)
	cells       []string // the line split at wide gaps, for a line of a table (markCells)
	bold        bool     // weighed and bold
	weighed     bool     // its weight was asked (markBold)
	dingbat     bool     // it starts with a bullet drawn from a symbol font ("r " in Wingdings: markDingbats)
	placed      bool     // the geometry is known
}

// readPage reads one page's text and, for each line, its place and type
// size, and for the lines that could be headings their weight.
func readPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int, links *linkSet) (pageLines, error) {
	pl := pageLines{number: index + 1}
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return pl, err
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return pl, err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return pl, err
	}
	if cc.Count <= 0 {
		return pl, nil
	}
	runes, placed, err := pageRunes(inst, tp.TextPage, cc.Count)
	if err != nil {
		return pl, err
	}
	start := 0
	var spans [][2]int                      // each line's first and last character
	emit := func(from, to int, soft bool) { // runes[from:to] is a line
		for from < to && isBlank(runes[from]) {
			from++
		}
		last := to - 1
		for last >= from && isBlank(runes[last]) {
			last--
		}
		if last < from {
			return
		}
		ln := textLine{text: cleanLine(string(runes[from : last+1])), softBreak: soft}
		if soft { // the mark is blank to isBlank: the hyphen it stands for
			ln.text += "-"
		}
		for _, r := range runes[from : last+1] {
			if !isBlank(r) {
				pl.chars++
			}
		}
		if placed {
			fillGeometry(inst, tp.TextPage, from, last, &ln)
		}
		pl.lines = append(pl.lines, ln)
		spans = append(spans, [2]int{from, last})
	}
	for i := 0; i < len(runes); i++ {
		switch {
		case runes[i] == '\n' || runes[i] == '\r':
			emit(start, i, false)
			start = i + 1
		case lineEndHyphen(runes, i):
			// PDFium joins a line that ends in a hyphen to the next one,
			// the hyphen marked: split them again, so that each line has
			// its own place and the layout decides on the hyphen.
			emit(start, i+1, true)
			start = i + 1
		}
	}
	emit(start, len(runes), false)
	if placed {
		sideways(pl.lines)
		markBold(inst, tp.TextPage, pl.lines, spans)
		markCells(inst, tp.TextPage, pl.lines, spans, runes)
		markDingbats(inst, tp.TextPage, pl.lines, spans, runes)
	}
	pageLinks(inst, tp.TextPage, links)
	return pl, nil
}

// sideways clears the rotated mark of a page's lines when rotated lines
// hold most of its text: a page set sideways (a landscape table in a
// portrait report), whose text is the page's own, not a stamp in its
// margin; such a page is laid out in PDFium's order, as before.
func sideways(lines []textLine) {
	rotated, all := 0, 0
	for _, l := range lines {
		n := utf8.RuneCountInString(l.text)
		all += n
		if l.rotated {
			rotated += n
		}
	}
	if rotated*2 <= all {
		return
	}
	for i := range lines {
		lines[i].rotated = false
		lines[i].sideways = true
	}
}

// lineEndHyphen says whether runes[i] is PDFium's mark for a hyphen it
// found at a line's end and joined to the next line's word (U+FFFE in the
// page's text, 2 asked character by character): after a letter, before a
// letter or digit, as PDFium marks them. A U+FFFE elsewhere is a glyph
// without Unicode.
func lineEndHyphen(runes []rune, i int) bool {
	if runes[i] != 0xfffe && runes[i] != 0x02 || i == 0 || i+1 >= len(runes) {
		return false
	}
	return unicode.IsLetter(runes[i-1]) && (unicode.IsLetter(runes[i+1]) || unicode.IsDigit(runes[i+1]))
}

// textChunk is how many characters of a page are asked for at once.
const textChunk = 512

// pageRunes is a page's text, one rune per character index, so that a line's
// characters can be asked where they are. The text is asked a chunk at a
// time; a chunk whose text does not have one rune per character (a glyph
// without Unicode, a pair of UTF-16 halves) is asked character by
// character. placed is false when even that fails: the text, not aligned.
func pageRunes(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, count int) (runes []rune, placed bool, err error) {
	runes = make([]rune, 0, count)
	for start := 0; start < count; start += textChunk {
		n := min(textChunk, count-start)
		txt, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: start, Count: n})
		if err != nil {
			return nil, false, err
		}
		chunk := []rune(strings.ToValidUTF8(strings.TrimRight(txt.Text, "\x00"), "\uFFFD"))
		if len(chunk) == n {
			runes = append(runes, chunk...)
			continue
		}
		for i := start; i < start+n; i++ {
			u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
			if err != nil {
				// Not aligned: keep the text PDFium gives for the rest.
				return append(runes, chunk...), false, nil
			}
			r := rune(u.Unicode)
			if r == '\r' || r == '\n' || r >= 0x20 && r != 0xfffe && r != 0xffff && utf8.ValidRune(r) {
				runes = append(runes, r)
			} else {
				runes = append(runes, 0) // a glyph without Unicode: blank
			}
		}
	}
	return runes, true, nil
}

// fillGeometry places a line by its first character's loose box (the font's
// ascent to descent, so that lines of one type size are boxes of one
// height) and its last character's, and its type size; a few engine calls
// a line, not one per character. A line whose last character lies more
// above or below its first than beside it is set rotated.
func fillGeometry(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, first, last int, ln *textLine) {
	box, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: first})
	if err != nil {
		return
	}
	r := box.Rect
	ln.placed = true
	ln.left, ln.top, ln.bottom = float64(min(r.Left, r.Right)), float64(max(r.Top, r.Bottom)), float64(min(r.Top, r.Bottom))
	ln.right = float64(max(r.Left, r.Right))
	if last > first {
		if lb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: last}); err == nil {
			q := lb.Rect
			ln.left, ln.right = min(ln.left, float64(min(q.Left, q.Right))), max(ln.right, float64(max(q.Left, q.Right)))
			dx := float64(q.Left+q.Right-r.Left-r.Right) / 2
			dy := float64(q.Top+q.Bottom-r.Top-r.Bottom) / 2
			ln.rotated = math.Abs(dy) > math.Abs(dx) && math.Abs(dy) > ln.top-ln.bottom
		}
	}
	fs, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: first})
	if err != nil {
		return
	}
	ln.size = fs.FontSize
	// The size as set (Tf) times the text's vertical scale: many producers
	// set 1-point type and scale it with the matrix. Asked only when the
	// box's height says the scale is not 1.
	if h := ln.top - ln.bottom; ln.size > 0 && (h < 0.6*ln.size || h > 1.8*ln.size) {
		if m, err := inst.FPDFText_GetMatrix(&requests.FPDFText_GetMatrix{TextPage: tp, Index: first}); err == nil {
			if s := math.Hypot(float64(m.Matrix.C), float64(m.Matrix.D)); s > 0 && !math.IsInf(s, 0) && !math.IsNaN(s) {
				ln.size *= s
			}
		}
	}
}

// markBold asks the weight of the lines that could be headings: short, and
// set apart from the lines around them (space above or below, another type
// size), which run-in and stand-alone headings are and body lines are not.
func markBold(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, lines []textLine, spans [][2]int) {
	apart := func(a, b textLine) bool {
		if !a.placed || !b.placed {
			return true
		}
		size := max(a.size, b.size, 1)
		return math.Abs(a.size-b.size) > 0.15*size || a.bottom-b.top > 0.5*size || b.top > a.top+0.5*size
	}
	for i := range lines {
		l := &lines[i]
		if !l.placed || spans[i][1]-spans[i][0] > 150 {
			continue
		}
		if (i == 0 || apart(lines[i-1], *l)) || (i == len(lines)-1 || apart(*l, lines[i+1])) {
			l.weighed = true
			l.bold = boldAt(inst, tp, spans[i][0]) && (spans[i][1] == spans[i][0] || boldAt(inst, tp, spans[i][1]))
		}
	}
}

// markCells splits the lines of what may be a table into cells: runs of
// three or more lines that each hold three or more numbers (and the line
// above them, a header), split where the gap between two words is wider
// than a space. Two boxes a word, for those lines only.
func markCells(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, lines []textLine, spans [][2]int, runes []rune) {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].placed && numbers(lines[j].text) >= 3 {
			j++
		}
		if j-i >= 3 {
			from := i
			if i > 0 && lines[i-1].placed {
				from = i - 1
			}
			for k := from; k < j; k++ {
				lines[k].cells = splitCells(inst, tp, runes, spans[k], lines[k].size)
			}
		}
		i = max(j, i+1)
	}
}

// markDingbats finds the lines that start with one character and a space
// where that character is drawn from a symbol font (Wingdings, Symbol,
// ZapfDingbats): a bullet that the text layer calls "r", "n" or "§".
func markDingbats(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, lines []textLine, spans [][2]int, runes []rune) {
	for i := range lines {
		from := spans[i][0]
		if from+1 > spans[i][1] || !isBlank(runes[from+1]) || isBlank(runes[from]) {
			continue
		}
		fi, err := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp, Index: from})
		if err != nil {
			continue
		}
		name := strings.ToLower(fi.FontName)
		lines[i].dingbat = strings.Contains(name, "wingding") || strings.Contains(name, "dingbat") || strings.Contains(name, "symbol") || strings.Contains(name, "webding")
	}
}

// numbers counts the words of s that are numbers (1,234 · 5.6% · (7) · $8).
func numbers(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, "()$€£%+-–")
		if w != "" && strings.Trim(w, "0123456789,.") == "" && strings.ContainsAny(w, "0123456789") {
			n++
		}
	}
	return n
}

func splitCells(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune, span [2]int, size float64) []string {
	box := func(i int) (left, right float64, ok bool) {
		b, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		if err != nil {
			return 0, 0, false
		}
		return float64(min(b.Rect.Left, b.Rect.Right)), float64(max(b.Rect.Left, b.Rect.Right)), true
	}
	var cells []string
	cellStart, prevEnd := -1, -1
	prevRight := 0.0
	for i := span[0]; i <= span[1]; {
		j := i
		for j <= span[1] && !isBlank(runes[j]) {
			j++
		}
		if j > i {
			left, _, ok := box(i)
			if !ok {
				return nil
			}
			if cellStart < 0 {
				cellStart = i
			} else if left-prevRight > 0.8*max(size, 1) {
				cells = append(cells, cleanLine(string(runes[cellStart:prevEnd])))
				cellStart = i
			}
			_, right, ok := box(j - 1)
			if !ok {
				return nil
			}
			prevRight, prevEnd = right, j
		}
		for j <= span[1] && isBlank(runes[j]) {
			j++
		}
		i = j
	}
	if cellStart >= 0 {
		cells = append(cells, cleanLine(string(runes[cellStart:prevEnd])))
	}
	return cells
}

// boldAt says whether character i is set in a bold font: by its weight, or,
// as many fonts declare none, by the font's name (Times-Bold, CMBX10,
// NimbusRomNo9L-Medi, Arial-BoldMT) or its ForceBold flag.
func boldAt(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, i int) bool {
	if w, err := inst.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: tp, Index: i}); err == nil && w.FontWeight >= 600 {
		return true
	}
	fi, err := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp, Index: i})
	return err == nil && (boldFontName(fi.FontName) || fi.Flags&(1<<18) != 0)
}

// boldFontName: Times-Bold, Arial-BoldMT, CMBX10, NimbusRomNo9L-Medi,
// Foo-Semibold, Foo-Black, Foo-Heavy, Foo-Bd.
func boldFontName(name string) bool {
	if i := strings.IndexByte(name, '+'); i == 6 { // a subset's prefix: ABCDEF+
		name = name[i+1:]
	}
	n := strings.ToLower(name)
	for _, s := range []string{"bold", "black", "heavy", "demi", "-medi", ",medi"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return strings.HasPrefix(n, "cmbx") || strings.HasSuffix(n, "-bd") || strings.HasSuffix(n, "-sb")
}

func pageLinks(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, links *linkSet) {
	if links.full() {
		return
	}
	wl, err := inst.FPDFLink_LoadWebLinks(&requests.FPDFLink_LoadWebLinks{TextPage: tp})
	if err != nil {
		return
	}
	defer inst.FPDFLink_CloseWebLinks(&requests.FPDFLink_CloseWebLinks{PageLink: wl.PageLink})
	n, err := inst.FPDFLink_CountWebLinks(&requests.FPDFLink_CountWebLinks{PageLink: wl.PageLink})
	if err != nil {
		return
	}
	for i := 0; i < n.Count && !links.full(); i++ {
		if u, err := inst.FPDFLink_GetURL(&requests.FPDFLink_GetURL{PageLink: wl.PageLink, Index: i}); err == nil {
			links.add(u.URL)
		}
	}
}

func isBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\u00a0' || r == 0 || r == '\ufffe' || r == '\uffff'
}

// cleanLine drops what PDFium hands over that is not text: NULs, soft
// hyphens' U+FFFE/U+0002 markers, other control characters.
func cleanLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0xfffe || r == 0xffff || r == 0xfeff }) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r == 0x02 || r == 0xfffe: // PDFium's soft hyphen at a line end
			return '-'
		case r < 0x20 || r == 0xffff || r == 0xfeff:
			return -1
		}
		return r
	}, s)
}

// withTrailer returns body with what a cut file lacks at its end, when its
// objects show what that is: a trailer naming its catalog, or, when the
// catalog and page tree were in the part that is missing, a page tree of
// the page objects found and a catalog for it. Nil when it does not start
// as a PDF or no page is found.
func withTrailer(body []byte) []byte {
	if !bytes.HasPrefix(bytes.TrimLeft(body[:min(len(body), 1024)], "\x00\t\n\f\r "), []byte("%PDF-")) {
		return nil
	}
	var catalog string
	var pages []string
	next := 0
	for _, m := range objHeader.FindAllSubmatchIndex(body, -1) {
		num, gen := string(body[m[2]:m[3]]), string(body[m[4]:m[5]])
		if n := atoiBounded(num); n >= next {
			next = n + 1
		}
		dict := body[m[1]:min(len(body), m[1]+4096)]
		if e := bytes.Index(dict, []byte("endobj")); e >= 0 {
			dict = dict[:e]
		}
		if s := bytes.Index(dict, []byte("stream")); s >= 0 {
			dict = dict[:s]
		}
		switch {
		case typeCatalog.Match(dict):
			catalog = num + " " + gen + " R"
		case typePage.Match(dict):
			pages = append(pages, num+" "+gen+" R")
		}
	}
	if catalog == "" && len(pages) == 0 || next <= 0 || next > 1e9 {
		return nil
	}
	out := make([]byte, 0, len(body)+64+len(pages)*12)
	out = append(out, body...)
	out = append(out, "\nendstream\nendobj\n"...)
	if catalog == "" {
		out = fmt.Appendf(out, "%d 0 obj\n<< /Type /Pages /Count %d /Kids [%s] >>\nendobj\n", next, len(pages), strings.Join(pages, " "))
		out = fmt.Appendf(out, "%d 0 obj\n<< /Type /Catalog /Pages %d 0 R >>\nendobj\n", next+1, next)
		catalog = fmt.Sprintf("%d 0 R", next+1)
	}
	return fmt.Appendf(out, "trailer\n<< /Root %s >>\n%%%%EOF\n", catalog)
}

var (
	objHeader   = regexp.MustCompile(`(\d{1,10})\s+(\d{1,5})\s+obj\b`)
	typeCatalog = regexp.MustCompile(`/Type\s*/Catalog\b`)
	typePage    = regexp.MustCompile(`/Type\s*/Page\b`)
)

func atoiBounded(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
		if n > 1e9 {
			return -1
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func intList(ns []int, max int) string {
	var b strings.Builder
	for i, n := range ns {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(ns)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, n)
	}
	return b.String()
}

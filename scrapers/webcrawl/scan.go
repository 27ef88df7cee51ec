package webcrawl

import (
	"bytes"
	"hash/maphash"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// scanned is a page after the one bounded pass over its tokens that comes
// before any tree is built: the document reduced to what extraction reads
// (no scripts, styles, hidden or form parts, comments, or attributes it does
// not use; well nested), cut at the limits,
// with the head's metadata and the page's links gathered on the way.
type scanned struct {
	doc        []byte
	base       *url.URL // the page's <base href>, else its URL
	meta       pageMeta
	links      []string
	linksTotal int
	cut        []string
	inkBytes   int    // bytes of text written to doc, white space not counted
	noscript   []byte // the raw content of the page's <noscript> elements
}

// pageMeta is what the page says about itself.
type pageMeta struct {
	title, description, ogDescription, twDescription string
	ogTitle, siteName                                string
	htmlLang, metaLang, ogLocale                     string
	author                                           string
	ogType                                           string
	jsonLD                                           string // the page's application/ld+json blocks, joined, at most maxJSONLD bytes
	// threadItem: the page's microdata names a forum post or a Q&A page
	// (itemtype DiscussionForumPosting, QAPage), as NodeBB's threads do.
	threadItem bool
}

// maxJSONLD bounds the structured data kept from a page's ld+json scripts.
const maxJSONLD = 256 << 10

// skipped elements are dropped with their content: they hold no readable text.
// (An image's <map> is not among them: a browser shows what it holds, and
// script frameworks' components take its name, a page's text inside.)
var skipped = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true, "math": true,
	"iframe": true, "object": true, "embed": true, "canvas": true, "textarea": true, "select": true,
	"button": true, "input": true, "audio": true, "video": true, "noembed": true,
	"noframes": true, "frameset": true, "frame": true, "dialog": true,
}

// notEmitted are elements whose tag the pass reads but does not write.
var notEmitted = map[string]bool{"html": true, "head": true, "body": true, "title": true, "meta": true, "link": true, "base": true}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true, "keygen": true,
}

// Scope stops, as the HTML parsing algorithm has them (simplified): an
// element opening or closing implicitly looks no further down than these.
var (
	buttonScope = map[string]bool{"html": true, "table": true, "td": true, "th": true, "caption": true, "button": true, "template": true, "object": true, "marquee": true, "applet": true}
	listScope   = map[string]bool{"html": true, "table": true, "td": true, "th": true, "caption": true, "template": true, "ol": true, "ul": true}
	tableScope  = map[string]bool{"html": true, "table": true, "template": true}
)

// closesP are the start tags that end an open paragraph.
var closesP = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "center": true, "details": true, "dir": true,
	"div": true, "dl": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hgroup": true, "hr": true,
	"main": true, "menu": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true, "summary": true,
	"table": true, "ul": true, "li": true, "dd": true, "dt": true, "listing": true, "xmp": true, "plaintext": true,
}

var headings = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

const (
	maxAttrLen  = 2048 // longer attribute values are dropped
	maxMetaText = 2048 // title and meta values kept
)

type open struct {
	name    string
	emitted bool
}

// closable are the elements a start tag may close implicitly
// (implicitCloses); the scanner counts those open, so that a start tag
// walks the stack only when one of those it may close is there (a page's
// every <div> closes an open <p>, and most pages have none open).
var closable = [...]string{"p", "a", "li", "dd", "dt", "td", "th", "tr", "tbody", "thead", "tfoot"}

func closableIndex(name string) int {
	switch name {
	case "p":
		return 0
	case "a":
		return 1
	case "li":
		return 2
	case "dd":
		return 3
	case "dt":
		return 4
	case "td":
		return 5
	case "th":
		return 6
	case "tr":
		return 7
	case "tbody":
		return 8
	case "thead":
		return 9
	case "tfoot":
		return 10
	}
	return -1
}

// push opens an element.
func (s *scanner) push(o open) {
	if i := closableIndex(o.name); i >= 0 {
		s.closableOpen[i]++
	}
	s.stack = append(s.stack, o)
}

type scanner struct {
	lim     Limits
	base    *url.URL
	baseSet bool
	out     bytes.Buffer
	stack   []open
	// closableOpen counts the open elements of each closable name.
	closableOpen [len(closable)]int
	skipLevel    int // stack index of the element being skipped, -1 when none
	overflow     int // open elements past MaxDepth, dropped
	elements     int
	textBytes    int
	inkBytes     int  // bytes of text other than white space
	stopped      bool // MaxElements reached: nothing more is written
	textFull     bool
	inTitle      bool
	inJSONLD     bool
	keepHidden   bool     // hidden elements are read as any other
	pageURL      *url.URL // the page's own address, for its kind (see streamedKept)
	// kindSeen is the page's kind as streamedKept last decided it, and the
	// meta it was decided from (the JSON-LD only grows: its length names it).
	kindSeen struct {
		ok     bool
		ldLen  int
		ogType string
		thread bool
		kind   pageKind
	}
	noscript bytes.Buffer // what <noscript> elements hold, at most the text limit
	// math is the formula being read (mathml.go), nil when none; formulas
	// counts those written, and wikiMath is the count when the last
	// Wikipedia formula's wrapper (mwe-math-element) began.
	math      *mathCapture
	formulas  int
	wikiMath  int
	mathCut   bool // a formula reached a bound (cutFormula)
	titleDone bool
	meta      pageMeta
	links     []string
	linkSeen  map[string]struct{}
	totalSeen map[uint64]struct{}
	seed      maphash.Seed
	linksCut  bool
	cutDepth  bool
	cutText   bool
	a         attrs
	hrefBuf   []byte
	lastTag   string // the last start tag's name
}

// attrs are the attributes of one tag the pass may use.
type attrs struct {
	href, src, dataSrc, alt, title, class, id, role, itemprop, lang, rel      string
	colspan, rowspan, align, start, style, name, property, httpEquiv, content string
	width, height, typ                                                        string
	// a formula's and a code block's: MathML's display, alttext,
	// encoding, open, close and separators; data-lang
	display, alttext, encoding, open, close, separators, dataLang string
	hidden, ariaHidden                                            bool
}

// scan runs the bounded pass over body (UTF-8) of the page at pageURL.
func scan(body []byte, pageURL *url.URL, lim Limits) *scanned {
	return scanPage(body, pageURL, lim, false)
}

// scanPage is scan, reading hidden elements too when keepHidden is set.
func scanPage(body []byte, pageURL *url.URL, lim Limits, keepHidden bool) *scanned {
	lim = lim.withDefaults()
	s := &scanner{lim: lim, base: pageURL, skipLevel: -1, linkSeen: map[string]struct{}{}, totalSeen: map[uint64]struct{}{}, seed: maphash.MakeSeed(), keepHidden: keepHidden, pageURL: pageURL}
	s.out.Grow(len(body) / 2)
	s.out.WriteString("<!DOCTYPE html><html><body>")
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return s.result()
		case html.TextToken:
			s.text(z.Text())
		case html.StartTagToken:
			s.start(z, false)
			s.foreignRawText(z)
		case html.SelfClosingTagToken:
			s.start(z, true)
			s.foreignRawText(z)
		case html.EndTagToken:
			name, _ := z.TagName()
			s.end(string(name))
		}
	}
}

func (s *scanner) result() *scanned {
	if s.math != nil { // a formula the page never closed
		s.finishMath()
	}
	r := &scanned{doc: s.out.Bytes(), base: s.base, meta: s.meta, links: s.links, linksTotal: len(s.totalSeen),
		inkBytes: s.inkBytes, noscript: s.noscript.Bytes()}
	if s.stopped {
		r.cut = append(r.cut, cutElements(s.lim.MaxElements))
	}
	if s.cutDepth {
		r.cut = append(r.cut, cutDepth(s.lim.MaxDepth))
	}
	if s.cutText {
		r.cut = append(r.cut, cutText(s.lim.MaxTextBytes))
	}
	if s.linksCut {
		r.cut = append(r.cut, cutLinks(len(s.links), r.linksTotal))
	}
	if s.mathCut {
		r.cut = append(r.cut, cutFormula())
	}
	return r
}

func (s *scanner) readAttrs(z *html.Tokenizer, has bool) {
	s.a = attrs{}
	for has {
		var k, v []byte
		k, v, has = z.TagAttr()
		if len(v) > maxAttrLen {
			continue
		}
		a := &s.a
		switch string(k) {
		case "href":
			a.href = string(v)
		case "src":
			a.src = string(v)
		case "data-src", "data-original", "data-lazy-src":
			if a.dataSrc == "" {
				a.dataSrc = string(v)
			}
		case "alt":
			a.alt = string(v)
		case "title":
			a.title = string(v)
		case "class":
			a.class = string(v)
		case "id":
			a.id = string(v)
		case "role":
			a.role = string(v)
		case "itemprop":
			a.itemprop = string(v)
		case "itemtype":
			if !s.meta.threadItem && threadItemType(v) {
				s.meta.threadItem = true
			}
		case "lang":
			a.lang = string(v)
		case "rel":
			a.rel = string(v)
		case "colspan":
			a.colspan = string(v)
		case "rowspan":
			a.rowspan = string(v)
		case "align":
			a.align = string(v)
		case "start":
			a.start = string(v)
		case "width":
			a.width = string(v)
		case "height":
			a.height = string(v)
		case "style":
			a.style = string(v)
		case "name":
			a.name = string(v)
		case "property":
			a.property = string(v)
		case "http-equiv":
			a.httpEquiv = string(v)
		case "content":
			a.content = string(v)
		case "type":
			a.typ = string(v)
		case "display":
			a.display = string(v)
		case "alttext":
			a.alttext = string(v)
		case "encoding":
			a.encoding = string(v)
		case "open":
			a.open = string(v)
		case "close":
			a.close = string(v)
		case "separators":
			a.separators = string(v)
		case "data-lang", "data-language":
			a.dataLang = string(v)
		case "hidden":
			a.hidden = true
		case "aria-hidden":
			a.ariaHidden = strings.EqualFold(strings.TrimSpace(string(v)), "true")
		}
	}
}

// threadItemType says whether a microdata itemtype names a forum post or a
// Q&A page ("https://schema.org/DiscussionForumPosting").
func threadItemType(v []byte) bool {
	return threadType(schemaType(string(v)))
}

func (s *scanner) start(z *html.Tokenizer, selfClosing bool) {
	nameB, has := z.TagName()
	name := tagName(nameB)
	s.lastTag = name
	s.readAttrs(z, has)
	a := &s.a
	// Self-closing syntax counts only in foreign content (SVG, MathML), which is skipped.
	void := voidElements[name] || selfClosing && s.skipLevel >= 0

	// What the page says about itself, wherever it is.
	switch name {
	case "a":
		if a.href != "" {
			s.countLink(a.href)
		}
	case "html":
		if s.meta.htmlLang == "" {
			s.meta.htmlLang = a.lang
		}
	case "base":
		if !s.baseSet && a.href != "" {
			if b, err := s.base.Parse(strings.TrimSpace(a.href)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
				s.base, s.baseSet = b, true
			}
		}
	case "meta":
		s.metaTag()
	case "title":
		s.inTitle = !s.titleDone && s.skipLevel < 0
	case "script":
		s.inJSONLD = strings.Contains(strings.ToLower(s.a.typ), "ld+json") && len(s.meta.jsonLD) < maxJSONLD
	}
	if s.stopped {
		return
	}
	if s.overflow > 0 {
		if !void {
			s.overflow++
		}
		return
	}
	s.implicitCloses(name)
	if !void && len(s.stack) >= s.lim.MaxDepth {
		s.overflow++
		s.cutDepth = true
		return
	}
	if s.skipLevel >= 0 {
		if s.math != nil {
			s.math.open(name, a.mathAttrs(), void)
		}
		if !void {
			s.push(open{name: name})
		}
		return
	}
	hidden := !s.keepHidden && (a.hidden && !(reactStreamed(name, a.id) && s.streamedKept()) || a.ariaHidden || hiddenStyle(a.style)) && !foldedPanel(a) && !wikiMathHidden(a.class)
	if s.formulaStart(name, hidden, void || selfClosing) {
		return
	}
	if skipped[name] || hidden || name == "img" && pixel(a) {
		if !void {
			s.skipLevel = len(s.stack)
			s.push(open{name: name})
		}
		return
	}
	if notEmitted[name] {
		if !void {
			s.push(open{name: name})
		}
		return
	}
	if s.elements >= s.lim.MaxElements {
		s.stopped = true
		return
	}
	s.elements++
	switch name {
	case "xmp", "listing", "plaintext":
		name = "pre"
	}
	s.emitStart(name)
	if !void {
		s.push(open{name: name, emitted: true})
	}
}

// maxCellSpan is the most columns or rows a table cell may span in the
// Markdown: the table plugin writes a cell for every column spanned, so
// colspan=30000000 would be thirty million cells (browsers clamp colspan at
// 1,000, but a Markdown table that wide says nothing either).
const maxCellSpan = 64

// cellSpan is a colspan or rowspan as the Markdown may use it: a positive
// number up to maxCellSpan, or "" (one) when it is not a number.
func cellSpan(v string) string {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil || n <= 1:
		return ""
	case n > maxCellSpan:
		return strconv.Itoa(maxCellSpan)
	}
	return strconv.Itoa(n)
}

func (s *scanner) emitStart(name string) {
	a := &s.a
	w := &s.out
	w.WriteByte('<')
	w.WriteString(name)
	attr := func(k, v string) {
		if v == "" {
			return
		}
		w.WriteByte(' ')
		w.WriteString(k)
		w.WriteString(`="`)
		escapeString(w, v)
		w.WriteByte('"')
	}
	attr("class", a.class)
	attr("id", a.id)
	attr("role", a.role)
	attr("itemprop", a.itemprop)
	attr("data-lang", a.dataLang) // a code block's language (codelang.go)
	switch name {
	case "a":
		attr("href", strings.TrimSpace(a.href)) // made absolute after pruning (resolveLinks), for the links kept only
		attr("rel", a.rel)
	case "img":
		src := a.src
		if src == "" || strings.HasPrefix(src, "data:") {
			if a.dataSrc != "" {
				src = a.dataSrc
			}
		}
		attr("src", strings.TrimSpace(src))
		attr("alt", a.alt)
		attr("title", a.title)
	case "td", "th":
		attr("colspan", cellSpan(a.colspan))
		attr("rowspan", cellSpan(a.rowspan))
		attr("align", cellAlign(a.align, a.style))
	case "ol":
		attr("start", a.start)
	case "pre":
		attr("lang", a.lang) // GitHub's <pre lang="go">
	}
	w.WriteByte('>')
}

// absolute resolves a link or image address against base; only http(s)
// (and, for links, mailto) addresses are kept.
func absolute(base *url.URL, ref string, link bool) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := base.Parse(ref)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
		return u.String()
	case "mailto":
		if link {
			return u.String()
		}
	}
	return ""
}

// countLink counts one link for links_total and keeps it while under MaxLinks.
func (s *scanner) countLink(href string) {
	href = strings.TrimSpace(href)
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	if href == "" || !httpLike(href) {
		return
	}
	h := maphash.String(s.seed, href)
	if _, dup := s.totalSeen[h]; dup {
		return
	}
	s.totalSeen[h] = struct{}{}
	if len(s.links) >= s.lim.MaxLinks {
		s.linksCut = true
		return
	}
	u, err := s.base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	u.Fragment, u.RawFragment = "", ""
	abs := u.String()
	if _, dup := s.linkSeen[abs]; !dup {
		s.linkSeen[abs] = struct{}{}
		s.links = append(s.links, abs)
	}
}

// httpLike says whether a written href is relative or http(s).
func httpLike(href string) bool {
	for i := 0; i < len(href); i++ {
		switch c := href[i]; {
		case c == ':':
			sch := strings.ToLower(href[:i])
			return sch == "http" || sch == "https"
		case c == '/' || c == '?' || c == '#':
			return true
		}
	}
	return true
}

func (s *scanner) metaTag() {
	a := &s.a
	content := strings.TrimSpace(a.content)
	if content == "" {
		return
	}
	key := strings.ToLower(strings.TrimSpace(firstNonEmpty(a.property, a.name)))
	set := func(dst *string) {
		if *dst == "" {
			*dst = truncateBytes(content, maxMetaText)
		}
	}
	switch key {
	case "description":
		set(&s.meta.description)
	case "og:description":
		set(&s.meta.ogDescription)
	case "twitter:description":
		set(&s.meta.twDescription)
	case "og:title", "twitter:title":
		set(&s.meta.ogTitle)
	case "og:type":
		set(&s.meta.ogType)
	case "og:site_name":
		set(&s.meta.siteName)
	case "og:locale":
		set(&s.meta.ogLocale)
	case "language", "dc.language":
		set(&s.meta.metaLang)
	case "author", "article:author", "og:article:author", "dc.creator", "parsely-author", "sailthru.author", "byl":
		if !strings.HasPrefix(content, "http://") && !strings.HasPrefix(content, "https://") {
			set(&s.meta.author)
		}
	}
	if strings.EqualFold(strings.TrimSpace(a.httpEquiv), "content-language") {
		s.meta.metaLang = truncateBytes(content, 64)
	}
}

// implicitCloses pops what a start tag closes in HTML (simplified), writing
// the end tags so that the reduced document nests as the stack says.
func (s *scanner) implicitCloses(name string) {
	switch {
	case name == "li":
		s.closeInScope(listScope, "li")
	case name == "dd" || name == "dt":
		s.closeInScope(listScope, "dd", "dt")
	case name == "td" || name == "th":
		s.closeInScope(tableScope, "td", "th")
	case name == "tr":
		s.closeInScope(tableScope, "tr", "td", "th")
	case name == "tbody" || name == "thead" || name == "tfoot":
		s.closeInScope(tableScope, "tbody", "thead", "tfoot", "tr", "td", "th")
	case name == "option" || name == "optgroup":
		if n := len(s.stack); n > 0 && s.stack[n-1].name == "option" {
			s.popTo(n - 1)
		}
	case headings[name]:
		if n := len(s.stack); n > 0 && headings[s.stack[n-1].name] {
			s.popTo(n - 1)
		}
	case name == "a":
		s.closeInScope(buttonScope, "a")
	}
	if closesP[name] {
		s.closeInScope(buttonScope, "p")
	}
}

// closeInScope pops to the nearest element named one of names, looking no
// further down than a scope stop.
func (s *scanner) closeInScope(stops map[string]bool, names ...string) {
	none := true
	for _, want := range names {
		if i := closableIndex(want); i < 0 || s.closableOpen[i] > 0 {
			none = false
			break
		}
	}
	if none {
		return
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		n := s.stack[i].name
		for _, want := range names {
			if n == want {
				s.popTo(i)
				return
			}
		}
		if stops[n] {
			return
		}
	}
}

// popTo closes the open elements from the top of the stack down to index i.
func (s *scanner) popTo(i int) {
	for j := len(s.stack) - 1; j >= i; j-- {
		if s.stack[j].emitted && !s.stopped {
			s.out.WriteString("</")
			s.out.WriteString(s.stack[j].name)
			s.out.WriteByte('>')
		}
		if s.skipLevel == j {
			s.skipLevel = -1
			if s.math != nil {
				s.finishMath()
			}
		}
		if s.stack[j].name == "title" {
			s.inTitle = false
		}
		if k := closableIndex(s.stack[j].name); k >= 0 {
			s.closableOpen[k]--
		}
	}
	s.stack = s.stack[:i]
}

func (s *scanner) end(name string) {
	if name == "script" && s.inJSONLD {
		s.inJSONLD = false
		s.meta.jsonLD += "\n"
	}
	if name == "title" && s.inTitle {
		s.inTitle, s.titleDone = false, true
	}
	if s.overflow > 0 {
		s.overflow--
		return
	}
	if s.math != nil {
		s.math.close(name)
	}
	switch name {
	case "xmp", "listing", "plaintext":
		name = "pre"
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].name == name {
			s.popTo(i)
			return
		}
	}
}

func (s *scanner) text(t []byte) {
	if s.inTitle {
		if len(s.meta.title) < maxMetaText {
			s.meta.title += truncateBytes(string(t), maxMetaText-len(s.meta.title))
		}
		return
	}
	if s.inJSONLD {
		if room := maxJSONLD - len(s.meta.jsonLD); room > 0 {
			s.meta.jsonLD += string(t[:runeStart(t, min(room, len(t)))])
		}
		return
	}
	if s.skipLevel >= 0 && s.skipLevel < len(s.stack) && s.stack[s.skipLevel].name == "noscript" {
		if room := s.lim.MaxTextBytes - s.noscript.Len(); room > 0 {
			s.noscript.Write(t[:runeStart(t, min(room, len(t)))])
			s.noscript.WriteByte('\n')
		}
		return
	}
	if s.math != nil && s.skipLevel >= 0 && s.overflow == 0 {
		s.math.addText(t)
		return
	}
	if s.stopped || s.overflow > 0 || s.skipLevel >= 0 || s.textFull || len(t) == 0 {
		return
	}
	if room := s.lim.MaxTextBytes - s.textBytes; len(t) > room {
		t = t[:runeStart(t, room)]
		s.textFull, s.cutText = true, true
	}
	s.textBytes += len(t)
	for _, c := range t {
		if c > ' ' {
			s.inkBytes++
		}
	}
	escapeBytes(&s.out, t)
}

// tagName is the tokenizer's lower-cased tag name, or span when it is not a
// plain element name (so that the reduced document reparses as written).
func tagName(b []byte) string {
	if a := atom.Lookup(b); a != 0 {
		return a.String() // no allocation for the known names
	}
	if len(b) == 0 || len(b) > 64 {
		return "span"
	}
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' && i > 0 || c == '-' && i > 0) {
			return "span"
		}
	}
	return string(b)
}

// pixel is a tracking image: one or no pixel wide or high.
func pixel(a *attrs) bool {
	tiny := func(v string) bool { v = strings.TrimSpace(v); return v == "0" || v == "1" || v == "0px" || v == "1px" }
	return tiny(a.width) || tiny(a.height)
}

// foldedPanel says whether a hidden element is a folded panel of the
// page's own text (an accordion's or a tab's: a product's description,
// details and care notes), which a reader opens with a click: it is read.
func foldedPanel(a *attrs) bool {
	if strings.EqualFold(a.role, "tabpanel") {
		return true
	}
	c := strings.ToLower(a.class)
	return c != "" && (strings.Contains(c, "accordion") || strings.Contains(c, "collapse") || strings.Contains(c, "tab-pane") ||
		strings.Contains(c, "tab-content") || strings.Contains(c, "tabpanel"))
}

func hiddenStyle(style string) bool {
	if style == "" {
		return false
	}
	st := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	return strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden")
}

// cellAlign is a table cell's alignment, from align or style="text-align:…".
func cellAlign(align, style string) string {
	switch a := strings.ToLower(strings.TrimSpace(align)); a {
	case "left", "right", "center":
		return a
	}
	st := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	for _, a := range []string{"left", "right", "center"} {
		if strings.Contains(st, "text-align:"+a) {
			return a
		}
	}
	return ""
}

// runeStart is the largest index ≤ n that starts a rune in b.
func runeStart(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func escapeBytes(w *bytes.Buffer, b []byte) {
	last := 0
	for i, c := range b {
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case 0:
			esc = "\uFFFD"
		default:
			continue
		}
		w.Write(b[last:i])
		w.WriteString(esc)
		last = i + 1
	}
	w.Write(b[last:])
}

func escapeString(w *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		case 0:
			esc = "\uFFFD"
		default:
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		last = i + 1
	}
	w.WriteString(s[last:])
}

// reactStreamed says whether a hidden element is React's streamed content
// (<div hidden id="S:0">): a server-rendered page sends each part that was
// still loading later, hidden, at the end of the body, and React's script
// moves it into its place. Where streamedKept says so, it is read as
// content, though it comes last rather than where React puts it.
func reactStreamed(name, id string) bool {
	rest, ok := strings.CutPrefix(id, "S:")
	return name == "div" && ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// streamedKept says whether React's streamed parts are read: on an article
// or a product's page (as far as the page has said by then: the streamed
// parts come last), a streamed part is its text or description, which was
// loading. On a site's home page (whatever its og:type says) or a feed it
// is more of the feed (yesterday's launches, a footer), which a reader does
// not see first.
func (s *scanner) streamedKept() bool {
	if s.pageURL != nil && strings.Trim(s.pageURL.Path, "/") == "" {
		return false
	}
	// A page streams its parts one after another: its kind is decided once
	// for what its meta says by then, not again for every part.
	ks := &s.kindSeen
	if !ks.ok || ks.ldLen != len(s.meta.jsonLD) || ks.ogType != s.meta.ogType || ks.thread != s.meta.threadItem {
		ks.ok, ks.ldLen, ks.ogType, ks.thread = true, len(s.meta.jsonLD), s.meta.ogType, s.meta.threadItem
		ks.kind = kindOf(s.meta, s.pageURL)
	}
	return ks.kind == kindArticle || ks.kind == kindProduct
}

// rawTextTags are the elements whose content the tokenizer reads as raw
// text (up to their end tag) in HTML.
var rawTextTags = map[string]bool{"title": true, "textarea": true, "style": true, "script": true, "xmp": true,
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true}

// foreignRawText tells the tokenizer that what follows a start tag inside
// SVG or MathML is not raw text: there a <title/> or <style> is an element
// like any other, as a browser parses it. (Read as HTML, an icon's
// self-closed <title/> made the rest of the page the title's text, up to a
// </title> that never came.)
func (s *scanner) foreignRawText(z *html.Tokenizer) {
	if !rawTextTags[s.lastTag] {
		return
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		if n := s.stack[i].name; n == "svg" || n == "math" {
			z.NextIsNotRawText()
			return
		}
	}
}

package webcrawl

import (
	"bytes"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is one crawled page, as the crawl tool returns it.
type Page struct {
	URL         string   `json:"url" jsonschema:"the page asked for"`
	LoadedURL   string   `json:"loaded_url,omitempty" jsonschema:"the page's address after redirects, when different"`
	Depth       int      `json:"depth" jsonschema:"links followed from a start page (0 for a start page)"`
	Status      int      `json:"status" jsonschema:"the HTTP status the page answered with"`
	Title       string   `json:"title" jsonschema:"the page's title, without the site's name"`
	Byline      string   `json:"byline,omitempty" jsonschema:"the author, when the page names one"`
	Description string   `json:"description,omitempty" jsonschema:"the page's own summary (its description meta tags)"`
	Language    *string  `json:"language" jsonschema:"the page's language tag (from its markup, else detected); null when unknown"`
	Markdown    string   `json:"markdown" jsonschema:"the main content as GitHub-flavoured Markdown, at most max_length characters"`
	Truncated   []string `json:"truncated,omitempty" jsonschema:"what was cut from this page and why (page size, elements, depth, text, links, a formula, max_length); absent when nothing was"`
	Links       []string `json:"links" jsonschema:"the page's distinct absolute http(s) links, in order, at most the per-page cap"`
	LinksTotal  int      `json:"links_total" jsonschema:"how many distinct links the page has, returned or not"`
	Notes       []string `json:"extraction_notes,omitempty" jsonschema:"how the main content was found when the usual way found too little (text read from <noscript> or hidden elements, a wider part of the page, the whole page); absent when nothing unusual was done"`
	Rendered    bool     `json:"rendered" jsonschema:"whether the page was rendered in a headless browser (the render argument)"`
	RenderNotes []string `json:"render_notes,omitempty" jsonschema:"why the page was or was not rendered, and what the browser met (bounds, refused requests, a page still loading)"`
	// CrawlNotes say what the site's robots.txt asked of the crawler that
	// it did not fully honour (a Crawl-delay over the bound).
	CrawlNotes []string `json:"crawl_notes,omitempty" jsonschema:"what the site's robots.txt asked that the crawler bounded (a Crawl-delay over 10 s); absent when nothing"`
	// Screenshot is set when the call asked for screenshots (screenshot.go).
	Screenshot *ScreenshotInfo `json:"screenshot,omitempty" jsonschema:"with screenshot: true, the page's screenshot (an image content of the result) or why there is none"`

	// Document describes a file that is not a web page (document.go).
	Document *DocumentInfo `json:"document,omitempty" jsonschema:"for a file that is not a web page (a PDF, CSV, JSON, feed, Markdown or text file): its kind, a PDF's page count, and notes"`
}

// ExtractOptions are what Extract needs beside the page.
type ExtractOptions struct {
	MaxLength       int    // characters of Markdown kept (default DefaultMaxLength)
	Limits          Limits // zero fields take DefaultLimits
	ContentType     string // the Content-Type header, for the charset
	ContentLanguage string // the Content-Language header
}

// mdConverter is built once: GitHub-flavoured tables and strike-through on
// top of CommonMark, and formulas between dollars (renderTeX). It is safe
// for concurrent use.
var mdConverter = sync.OnceValue(newMDConverter) // at the first page, not at start

func newMDConverter() *converter.Converter {
	c := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
			table.WithSkipEmptyRows(true),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
		),
		strikethrough.NewStrikethroughPlugin(),
	))
	c.Register.Renderer(renderTeX, converter.PriorityEarly)
	return c
}

// renderTeX writes a formula the scan marked data-wc-tex (mathml.go) as
// TeX between dollars, unescaped: $…$ inline, $$…$$ on lines of its own
// when displayed (inline $$…$$ in a table cell, a heading or a link, which
// hold one line). A table cell's pipe is escaped (\|): it would end the
// cell.
func renderTeX(_ converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	if n.Type != html.ElementNode || (n.DataAtom != atom.Span && n.DataAtom != atom.Div) {
		return converter.RenderTryNext
	}
	mode := attrOf(n, "data-wc-tex")
	if mode == "" {
		return converter.RenderTryNext
	}
	tex := cleanTeX(nodeText(n, maxMathText))
	if tex == "" {
		return converter.RenderSuccess
	}
	oneLine, cell := false, false
	for a := n.Parent; a != nil; a = a.Parent {
		switch a.DataAtom {
		case atom.Td, atom.Th:
			oneLine, cell = true, true
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.A:
			oneLine = true
		}
	}
	if cell {
		tex = strings.ReplaceAll(tex, "|", `\|`)
	}
	switch {
	case mode != "block":
		w.WriteString("$" + tex + "$")
	case oneLine:
		w.WriteString("$$" + tex + "$$")
	default:
		w.WriteString("\n\n$$\n" + tex + "\n$$\n\n")
	}
	return converter.RenderSuccess
}

// Extract turns an HTML page into a Page: its main content as Markdown, its
// title, byline, description and language, and its links. The page is read
// once, under the limits (see scan), parsed once, and its main content is
// chosen and cleaned in place; only the part of it that fits max_length is
// converted.
func Extract(body []byte, pageURL *url.URL, opt ExtractOptions) (Page, error) {
	if opt.MaxLength <= 0 {
		opt.MaxLength = DefaultMaxLength
	}
	body, _ = toUTF8(body, opt.ContentType)
	sc := scan(body, pageURL, opt.Limits)
	var notes []string
	if sc.inkBytes < hiddenFallback {
		sc, notes = scanFallback(sc, body, pageURL, opt.Limits)
	}
	doc, err := html.Parse(bytes.NewReader(sc.doc))
	if err != nil {
		return Page{}, err
	}
	p := Page{URL: pageURL.String(), Links: sc.links, LinksTotal: sc.linksTotal, Truncated: sc.cut, Notes: notes}
	if p.Links == nil {
		p.Links = []string{}
	}
	m := sc.meta
	p.Description = clean(firstNonEmpty(m.ogDescription, m.description, m.twDescription))
	body0 := findElement(doc, atom.Body)
	if body0 == nil {
		body0 = doc
	}
	p.Byline = clean(m.author)
	if p.Byline == "" {
		p.Byline = findByline(body0)
	}
	if p.Byline == "" {
		p.Byline = ldAuthor(m.jsonLD)
	}

	content := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	kind := kindOf(m, pageURL)
	p.Title = pageTitle(m, body0, kind, pageURL)
	markCodeLanguages(body0)
	chosen, note := chooseContent(body0, kind)
	if note == noteWider || note == noteWhole && kind == kindArticle {
		// The region choice failed on this page: a second opinion.
		if n := secondOpinion(sc.doc, pageURL, textOf(body0, nil)); n != nil {
			chosen, note = []*html.Node{n}, noteSecond
		}
	}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	for _, n := range chosen {
		if n == body0 {
			for c := n.FirstChild; c != nil; {
				next := c.NextSibling
				n.RemoveChild(c)
				content.AppendChild(c)
				c = next
			}
			continue
		}
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
		content.AppendChild(n)
	}
	if kind == kindProduct {
		addLDDescription(content, m.jsonLD)
	}
	if addLDBody(content, m.jsonLD) {
		p.Notes = append(p.Notes, noteLDBody)
	}
	flattenLinks(content)
	pruned := keepText(content, opt.MaxLength+1)
	resolveLinks(content, sc.base)
	if p.Markdown, err = toMarkdown(content); err != nil {
		return Page{}, err
	}
	if p.Markdown == "" {
		// Never silently empty: the whole page as it was, else a note that
		// the page's HTML holds no text (its title and description are in
		// their own fields).
		if content, err = wholePage(sc); err != nil {
			return Page{}, err
		}
		flattenLinks(content)
		pruned = keepText(content, opt.MaxLength+1)
		resolveLinks(content, sc.base)
		if p.Markdown, err = toMarkdown(content); err != nil {
			return Page{}, err
		}
		if p.Markdown != "" {
			p.Notes = append(p.Notes, noteEmpty)
		} else {
			p.Notes = append(p.Notes, noteNoText)
		}
	}
	if pruned || utf8.RuneCountInString(p.Markdown) > opt.MaxLength {
		p.Markdown = strings.TrimSpace(truncateRunes(p.Markdown, opt.MaxLength))
		p.Truncated = append(p.Truncated, cutMaxLength(opt.MaxLength))
	}
	p.Language = pageLanguage(m, opt.ContentLanguage, nodeText(content, detectSample))
	return p, nil
}

// toMarkdown converts the content chosen: its formulas (markFormulas)
// and code blocks as the converter writes them, mended (quoteFencedCode).
func toMarkdown(content *html.Node) (string, error) {
	dollars := markFormulas(content)
	md, err := mdConverter().ConvertNode(content)
	if err != nil {
		return "", err
	}
	out := strings.TrimSpace(quoteFencedCode(strings.ToValidUTF8(string(md), "\uFFFD")))
	if dollars {
		out = strings.ReplaceAll(out, string(textDollar), `\$`)
	}
	return out, nil
}

// resolveLinks makes the links and images left in n absolute against base,
// dropping addresses that are not http(s) (or mailto, for links).
func resolveLinks(n *html.Node, base *url.URL) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.A:
			setURLAttr(c, "href", base, true)
		case atom.Img:
			setURLAttr(c, "src", base, false)
		}
		resolveLinks(c, base)
	}
}

func setURLAttr(n *html.Node, key string, base *url.URL, link bool) {
	for i, a := range n.Attr {
		if a.Key == key {
			if abs := absolute(base, a.Val, link); abs != "" {
				n.Attr[i].Val = abs
			} else {
				n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			}
			return
		}
	}
}

// keepText unlinks everything in n after its first budget characters of
// text (white space runs counted once), so that text the answer would drop
// is never converted. It says whether anything was cut.
func keepText(n *html.Node, budget int) bool {
	left := budget
	var cut bool
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch {
			case left <= 0:
				n.RemoveChild(c)
				cut = true
			case c.Type == html.TextNode:
				if l := textLen(c.Data); l > left {
					c.Data = truncateRunes(c.Data, left) // each counted character is at least one rune
					left, cut = 0, true
				} else {
					left -= l
				}
			case c.Type == html.ElementNode:
				walk(c)
			}
			c = next
		}
	}
	walk(n)
	return cut
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// clean is s with its white space runs as one space and none at either
// end, and each run of invalid UTF-8 as U+FFFD:
// strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ") in
// one pass, and s itself, without a copy, when it is clean already (most
// texts are: clean runs on every line the rules read).
func clean(s string) string {
	var b []byte // nil while s is its own clean form so far
	space := false
	wsStart := 0 // where the white space run being read began
	// copyOut begins the clean form with what was read before the run of
	// white space (or the character) that makes s differ from it.
	copyOut := func(at int) {
		if space {
			at = wsStart
		}
		b = append(make([]byte, 0, len(s)+2), s[:at]...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		start := i
		if c < utf8.RuneSelf {
			i++
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				if b == nil && (c != ' ' || space || start == 0 || i == len(s)) {
					copyOut(start)
				}
				if !space {
					wsStart = start
				}
				space = true
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r == utf8.RuneError && size == 1 {
				for i < len(s) { // the rest of the run of invalid bytes
					if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
						break
					}
					i++
				}
				if b == nil {
					copyOut(start)
				}
				if space && len(b) > 0 {
					b = append(b, ' ')
				}
				space = false
				b = append(b, "\uFFFD"...)
				continue
			}
			if unicode.IsSpace(r) {
				if b == nil {
					copyOut(start)
				}
				if !space {
					wsStart = start
				}
				space = true
				continue
			}
		}
		if b != nil {
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			b = append(b, s[start:i]...)
		}
		space = false
	}
	if b == nil {
		return s
	}
	return string(b)
}

func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// quoteFencedCode mends a fenced code block inside a blockquote:
// html-to-markdown writes the quote's "> " before the fence and the code's
// first line only, so the block's other lines would end the quote. Every
// line up to the closing fence gets the fence's own prefix. (A code line
// that itself begins with the prefix, after the first, cannot be told from
// one the converter prefixed, and is left as it is.)
func quoteFencedCode(md string) string {
	md = dropListSeparators(md)
	if !strings.Contains(md, "> ```") && !strings.Contains(md, "> ~~~") {
		return md
	}
	lines := strings.Split(md, "\n")
	prefix, fence := "", ""
	for i, line := range lines {
		if fence == "" {
			prefix, fence = quotedFence(line)
			continue
		}
		rest, quoted := strings.CutPrefix(line, prefix)
		if quoted && strings.HasPrefix(strings.TrimRight(rest, " "), fence) && strings.Trim(strings.TrimRight(rest, " "), fence[:1]) == "" {
			prefix, fence = "", "" // the closing fence
			continue
		}
		if !quoted {
			lines[i] = prefix + line
		}
	}
	return strings.Join(lines, "\n")
}

// listSeparator is the HTML comment html-to-markdown writes between two
// lists that follow each other, so that they do not run together. A reader
// (and a model) sees it as the words "THE END" in the middle of a page: it
// is dropped, outside code, and the two lists may render as one.
const listSeparator = "<!--THE END-->"

func dropListSeparators(md string) string {
	if !strings.Contains(md, listSeparator) {
		return md
	}
	lines := strings.Split(md, "\n")
	out := lines[:0]
	fence := ""
	for _, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
		case fence != "" && strings.HasPrefix(t, fence):
			fence = ""
		case fence == "" && t == listSeparator:
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// quotedFence reads a line opening a fenced code block inside a quote:
// its quote prefix ("> ", "> > ") and its fence (``` or ~~~, as long as
// written); both "" when the line is no such thing.
func quotedFence(line string) (prefix, fence string) {
	i := 0
	for i < len(line) && (line[i] == '>' || line[i] == ' ') {
		i++
	}
	if i == 0 || !strings.Contains(line[:i], ">") {
		return "", ""
	}
	rest := line[i:]
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(rest) && rest[n] == c {
			n++
		}
		if n >= 3 {
			return line[:i], rest[:n]
		}
	}
	return "", ""
}

// wholePage is the page's whole body, parsed again from the scan: the
// content chosen earlier was cut from its own tree.
func wholePage(sc *scanned) (*html.Node, error) {
	doc, err := html.Parse(bytes.NewReader(sc.doc))
	if err != nil {
		return nil, err
	}
	if b := findElement(doc, atom.Body); b != nil {
		return b, nil
	}
	return doc, nil
}

package webcrawl

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page furniture that is told from content by its words, not its markup:
// a section titled "Read also", a lone "Print this page", a line "Photo:
// …", a "You must be logged in to comment". Each language's words are a
// table (furnitureWords, in furniture_tables.go); the rules read the
// tables of every language at once, merged here, since a page's language
// is not known before its text is chosen, and pages mix (a German page's
// "Newsletter", an English site's Spanish edition). A new language is a
// new table added to furnitureLanguages.

// furnitureWords are one language's words for page furniture, lower-cased.
type furnitureWords struct {
	// asides begin the heading of a section about something else than the
	// page: stories or products it recommends, what others read, share
	// bars, newsletters.
	asides []string
	// articleAsides begin the heading of what follows an article's text:
	// its comments, its author's box (a forum keeps its comments).
	articleAsides []string
	// labels are the whole label of a link, button or line that stands
	// alone and leads elsewhere or acts (Read more, Print, Back to top,
	// Share, No comments): see dropCallsToAction.
	labels []string
	// leadIns begin a short line that points to another page ("Read also:
	// <a>…</a>"): see dropFurnitureLines.
	leadIns []string
	// credits begin a short line that credits a photo, names a source or
	// claims a copyright ("Photo:", "Source:", "©").
	credits []string
	// datelines begin a short line that dates the page or names its
	// author outside its text ("Published on", "Last updated").
	datelines []string
	// notices are phrases a short block holds when it is a notice:
	// comments that need a login, a paywall, cookies, a copyright line.
	notices []string
	// noComments begin a heading that says an article has no comments
	// yet ("No responses yet", "0 Kommentare", "Aucun commentaire"): what
	// it titles is a comment form, on any kind of page.
	noComments []string
}

// furnitureLanguages are the tables read, by language (ISO 639-1).
var furnitureLanguages = map[string]*furnitureWords{
	"en": &englishFurniture, "de": &germanFurniture, "fr": &frenchFurniture, "es": &spanishFurniture,
	"it": &italianFurniture, "pt": &portugueseFurniture, "pl": &polishFurniture, "nl": &dutchFurniture,
	"fi": &finnishFurniture, "ja": &japaneseFurniture, "zh": &chineseFurniture,
}

// furniturePhrases are every language's tables merged, for the rules.
var furniturePhrases = mergeFurniture(furnitureLanguages)

type mergedFurniture struct {
	notices []string
	labels  map[string]bool
	// The phrases a line or a heading must begin with, by first byte.
	asides, articleAsides, leadIns, credits, datelines, noComments *prefixSet
	// labelMax is the longest label's length.
	labelMax int
	// noticeIndex finds any of notices in a line in one pass (every line of
	// a page is asked, against every language's notices).
	noticeIndex phraseIndex
}

func mergeFurniture(langs map[string]*furnitureWords) mergedFurniture {
	m := mergedFurniture{labels: map[string]bool{}}
	var asides, articleAsides, leadIns, credits, datelines, noComments []string
	// A stable order (the languages sorted) keeps the lists alike from run to run.
	codes := make([]string, 0, len(langs))
	for c := range langs {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		w := langs[c]
		asides = append(asides, w.asides...)
		articleAsides = append(articleAsides, w.articleAsides...)
		leadIns = append(leadIns, normPhrases(w.leadIns)...)
		credits = append(credits, normPhrases(w.credits)...)
		datelines = append(datelines, normPhrases(w.datelines)...)
		m.notices = append(m.notices, normPhrases(w.notices)...)
		noComments = append(noComments, w.noComments...)
		for _, l := range w.labels {
			l = ctaLabel(l)
			m.labels[l] = true
			m.labelMax = max(m.labelMax, len(l))
		}
	}
	m.asides, m.articleAsides, m.noComments = newPrefixSet(asides), newPrefixSet(articleAsides), newPrefixSet(noComments)
	m.leadIns, m.credits, m.datelines = newPrefixSet(leadIns), newPrefixSet(credits), newPrefixSet(datelines)
	m.noticeIndex = newPhraseIndex(m.notices)
	return m
}

// phraseIndex finds whether a text holds any of a list of phrases, as
// containsAny does, by the phrases' first four bytes: one map look-up per
// byte of the text rather than a scan of the text per phrase (four times
// faster with every language's notices).
type phraseIndex struct {
	byHead map[uint32][]string
	pairs  *[1 << 16 / 64]uint64 // the phrases' first two bytes: most places in a text are passed without a look-up
	short  []string              // phrases under four bytes, looked for one by one
}

func newPhraseIndex(ps []string) phraseIndex {
	ix := phraseIndex{byHead: map[uint32][]string{}, pairs: new([1 << 16 / 64]uint64)}
	for _, p := range ps {
		if len(p) < 4 {
			ix.short = append(ix.short, p)
			continue
		}
		k := head4(p, 0)
		ix.byHead[k] = append(ix.byHead[k], p)
		pair := k >> 16
		ix.pairs[pair/64] |= 1 << (pair % 64)
	}
	return ix
}

func head4(s string, i int) uint32 {
	return uint32(s[i])<<24 | uint32(s[i+1])<<16 | uint32(s[i+2])<<8 | uint32(s[i+3])
}

// contains says whether s holds one of the index's phrases.
func (ix phraseIndex) contains(s string) bool {
	if containsAny(s, ix.short) {
		return true
	}
	for i := 0; i+4 <= len(s); i++ {
		if pair := uint32(s[i])<<8 | uint32(s[i+1]); ix.pairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		for _, p := range ix.byHead[head4(s, i)] {
			if strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

func normPhrases(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = lineForm(p)
	}
	return out
}

// lineForm is a line as the line rules compare it: lower-cased, white
// space runs as one space, a full-width colon as ':' and no space before a
// colon (French writes "Photo :").
func lineForm(s string) string {
	s = strings.ToLower(clean(s))
	s = strings.ReplaceAll(s, "：", ":")
	return strings.ReplaceAll(s, " :", ":")
}

// hasPrefixAny says whether s begins with one of ps as a whole word: the
// prefix is followed by the end, or by what is not a letter ("werbung" is
// not "Werbungskosten"). Chinese and Japanese write no spaces between
// words: there a prefix is enough.
func hasPrefixAny(s string, ps []string) bool {
	for _, p := range ps {
		if !strings.HasPrefix(s, p) {
			continue
		}
		last, _ := utf8.DecodeLastRuneInString(p)
		next, _ := utf8.DecodeRuneInString(s[len(p):])
		if len(s) == len(p) || last >= 0x2E80 || !unicode.IsLetter(next) && !unicode.IsDigit(next) || !unicode.IsLetter(last) {
			return true
		}
	}
	return false
}

func containsAny(s string, ps []string) bool {
	for _, p := range ps {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// The longest line (bytes of text) each line rule reads: furniture's lines
// are short, and a paragraph of the text that begins alike is longer.
const (
	leadInMax   = 300
	creditMax   = 160
	datelineMax = 100
	noticeMax   = 400
)

// linked says whether n is or holds a link.
func linked(n *html.Node) bool {
	return n.DataAtom == atom.A || findElement(n, atom.A) != nil
}

// furnitureLineLinked is furnitureForm of a line's text t.
func furnitureLineLinked(t string, linked bool) bool {
	return furnitureForm(lineForm(t), linked)
}

// furnitureForm says whether a line (in lineForm) is a line of furniture
// by its words: a lead-in to another page (when the line holds a link), a
// credit, a dateline or a notice. A credit may be in brackets ("(Credit:
// …)").
func furnitureForm(l string, linked bool) bool {
	if l == "" {
		return false
	}
	switch {
	case len(l) <= creditMax && furniturePhrases.credits.has(strings.TrimLeft(l, "([ ")):
		return true
	case len(l) <= datelineMax && furniturePhrases.datelines.has(l):
		return true
	case len(l) <= leadInMax && linked && furniturePhrases.leadIns.has(l):
		return true
	case len(l) <= noticeMax && furniturePhrases.noticeIndex.contains(l):
		return true
	case len(l) <= noticeMax && phpMessage(l):
		return true
	}
	return false
}

// phpMessages begin the warnings PHP writes into a page it serves, in
// English whatever the page's language ("Warning: Creating default object
// … in /www/…/classes.php on line 407").
var phpMessages = []string{"warning:", "notice:", "deprecated:", "strict standards:", "fatal error:", "parse error:"}

// phpMessage says whether a line (in lineForm) is one of PHP's warnings:
// it begins like one and ends "in <file>.php on line <n>".
func phpMessage(l string) bool {
	i := strings.LastIndex(l, ".php on line ")
	if i < 0 || !hasPrefixAny(l, phpMessages) || !strings.Contains(l[:i], " in ") {
		return false
	}
	n := l[i+len(".php on line "):]
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// dropFurnitureRuns unlinks, under root, the lines of furniture that are
// not blocks of their own: a run of text and inline elements that a <br>
// or a block ends (a caption's "<br>Quelle: …", a login notice written
// loose in a div between a form and the sidebar). A block that is one line
// is dropFurnitureLines'.
func dropFurnitureRuns(root *html.Node) {
	var line lineText
	var run []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		run = run[:0]
		children := countChildren(n)
		end := func(brk *html.Node) {
			if len(run) > 0 && (brk != nil || len(run) < children) {
				line.reset(noticeMax)
				hasLink := false
				for _, r := range run {
					if r.Type == html.TextNode {
						line.text(r.Data)
					} else {
						readText(r, noticeMax+1, &line)
						hasLink = hasLink || linked(r)
					}
				}
				if l, ok := line.form(); ok && furnitureForm(l, hasLink) {
					for _, r := range run {
						n.RemoveChild(r)
					}
					if brk != nil && brk.DataAtom == atom.Br {
						n.RemoveChild(brk)
					}
				}
			}
			run = run[:0]
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch {
			case c.Type == html.TextNode || c.Type == html.ElementNode && inline(c) && c.DataAtom != atom.Br:
				run = append(run, c)
			case c.Type == html.ElementNode:
				end(c)
				if c.DataAtom != atom.Br && c.DataAtom != atom.Pre && c.DataAtom != atom.Code && c.DataAtom != atom.Table {
					walk(c)
					run = run[:0]
				}
			}
			c = next
		}
		end(nil)
	}
	walk(root)
}

func countChildren(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		k++
	}
	return k
}

// dropFurnitureLines unlinks, under root, the blocks of text (paragraphs,
// list items, captions, divs holding no other block) that are lines of
// furniture by their words (furnitureForm). Code and tables are not looked
// into: a table's "Source:" row is its data.
func dropFurnitureLines(root *html.Node) {
	var line lineText
	unlinkWhere(root, func(c *html.Node) bool {
		h := heading(c)
		if !h && (!leafBlock(c) || c.DataAtom == atom.H1) {
			return false
		}
		line.reset(noticeMax)
		readText(c, noticeMax+1, &line)
		l, ok := line.form()
		if !ok {
			return false
		}
		if h {
			// A heading may be a notice ("<h3>Sie müssen sich einloggen, um …</h3>"
			// under a comment form's title), never a credit or a dateline.
			return furniturePhrases.noticeIndex.contains(l)
		}
		return furnitureForm(l, linked(c))
	}, func(c *html.Node) bool {
		return c.DataAtom != atom.Pre && c.DataAtom != atom.Code && c.DataAtom != atom.Table
	})
}

package sitemap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// Kind is what a document turned out to be.
type Kind string

const (
	KindURLSet  Kind = "sitemap"       // <urlset>: the site's pages
	KindIndex   Kind = "sitemap index" // <sitemapindex>: more sitemaps
	KindText    Kind = "text sitemap"  // one URL a line
	KindRSS     Kind = "RSS feed"      // RSS 2.0 or 1.0 (RDF)
	KindAtom    Kind = "Atom feed"
	KindUnknown Kind = "unknown"
)

// Entry is one URL a document names, with what it says of it.
type Entry struct {
	URL     string // as written (trimmed): resolve it with Canonical
	LastMod string // the sitemap's lastmod, or a feed item's date as RFC 3339 when it parses
	Title   string // a news, image or video title, or a feed item's title
}

// Doc is one parsed document.
type Doc struct {
	Kind     Kind
	Entries  []Entry // the pages (a sitemap's <url>s, a feed's items)
	Sitemaps []Entry // a sitemap index's <sitemap>s
	// Notes say what was cut or broken, in words; empty when the document
	// was read whole.
	Notes []string
	// More is set when the document named more entries than Limits.MaxEntries.
	More bool
}

// Limits bound one document's reading.
type Limits struct {
	MaxEntries  int // entries and sitemaps kept (default 50,000, the protocol's own bound)
	MaxTokens   int // XML tokens read (default 2,000,000)
	MaxField    int // bytes of one loc, lastmod or title (default 4,096)
	MaxTitleLen int // characters of a title kept (default 300)
}

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = 50_000
	}
	if l.MaxTokens <= 0 {
		l.MaxTokens = 2_000_000
	}
	if l.MaxField <= 0 {
		l.MaxField = MaxURLLength
	}
	if l.MaxTitleLen <= 0 {
		l.MaxTitleLen = 300
	}
	return l
}

// Parse reads a sitemap, sitemap index or feed (XML), or a plain-text
// sitemap, already decompressed (see Gunzip). It never fails on a document
// broken part way: it keeps what came before the break and notes it. It
// fails only when nothing in b reads as one of these documents.
func Parse(b []byte, lim Limits) (Doc, error) {
	lim = lim.withDefaults()
	t := bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(t) == 0 {
		return Doc{Kind: KindUnknown}, errors.New("the document is empty")
	}
	if t[0] != '<' {
		return parseText(t, lim)
	}
	return parseXML(b, lim)
}

// field is the element whose text is being gathered.
type field int

const (
	fNone field = iota
	fLoc
	fLastMod
	fTitle
	fDate
	fSubTitle // news:title, image:title, video:title: the title when no other
)

type xmlState struct {
	lim   Limits
	doc   Doc
	cur   *Entry
	into  *[]Entry // where cur goes when its element ends
	item  string   // the element cur is (url, sitemap, item, entry)
	depth int      // of item
	f     field
	buf   []byte
	over  bool // the field passed MaxField
	sub   string
	date  string // a feed item's date, as written
}

func parseXML(b []byte, lim Limits) (Doc, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		return charset.NewReaderLabel(label, in)
	}
	s := &xmlState{lim: lim, doc: Doc{Kind: KindUnknown}}
	depth := 0
	for tokens := 0; ; tokens++ {
		if tokens >= lim.MaxTokens {
			s.doc.Notes = append(s.doc.Notes, fmt.Sprintf("reading stopped after %d XML tokens", lim.MaxTokens))
			break
		}
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			if s.doc.Kind == KindUnknown {
				return s.doc, fmt.Errorf("not a sitemap or feed: %v", err)
			}
			s.doc.Notes = append(s.doc.Notes, fmt.Sprintf("the document is broken after %d bytes (%v); what came before was kept", d.InputOffset(), err))
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if s.doc.Kind == KindUnknown {
				if s.doc.Kind = rootKind(t.Name.Local); s.doc.Kind == KindUnknown {
					return s.doc, fmt.Errorf("not a sitemap or feed: its root element is <%s>", truncate(t.Name.Local, 40))
				}
				continue
			}
			if stop := s.start(t, depth); stop {
				return s.doc, nil
			}
		case xml.EndElement:
			s.end(t, depth)
			depth--
		case xml.CharData:
			s.text(t)
		}
	}
	if s.doc.Kind == KindUnknown {
		return s.doc, errors.New("not a sitemap or feed: no element in it")
	}
	return s.doc, nil
}

func rootKind(local string) Kind {
	switch strings.ToLower(local) {
	case "urlset":
		return KindURLSet
	case "sitemapindex":
		return KindIndex
	case "rss", "rdf":
		return KindRSS
	case "feed":
		return KindAtom
	}
	return KindUnknown
}

// start opens an entry or a field; stop is set once MaxEntries is passed.
func (s *xmlState) start(t xml.StartElement, depth int) (stop bool) {
	local := strings.ToLower(t.Name.Local)
	if s.cur == nil {
		var into *[]Entry
		switch {
		case local == "url" && s.doc.Kind == KindURLSet:
			into = &s.doc.Entries
		case local == "sitemap" && s.doc.Kind == KindIndex:
			into = &s.doc.Sitemaps
		case local == "item" && s.doc.Kind == KindRSS, local == "entry" && s.doc.Kind == KindAtom:
			into = &s.doc.Entries
		default:
			return false
		}
		if len(s.doc.Entries)+len(s.doc.Sitemaps) >= s.lim.MaxEntries {
			s.doc.More = true
			s.doc.Notes = append(s.doc.Notes, fmt.Sprintf("the document names more than %d entries; the rest were not read", s.lim.MaxEntries))
			return true
		}
		s.cur, s.into, s.item, s.depth = &Entry{}, into, local, depth
		s.date = ""
		// RSS 1.0 names the item's page in rdf:about.
		for _, a := range t.Attr {
			if local == "item" && strings.EqualFold(a.Name.Local, "about") {
				s.cur.URL = strings.TrimSpace(a.Value)
			}
		}
		return false
	}
	if depth != s.depth+1 && !(depth == s.depth+2 && isSubTitle(t.Name.Space, local)) {
		return false // deeper fields (an author's name, a news publication's) are not the entry's
	}
	s.f, s.buf, s.over, s.sub = fNone, s.buf[:0], false, ""
	switch s.doc.Kind {
	case KindURLSet, KindIndex:
		switch {
		case local == "loc" && depth == s.depth+1:
			s.f = fLoc
		case local == "lastmod" && depth == s.depth+1:
			s.f = fLastMod
		case local == "title" && depth == s.depth+2:
			s.f, s.sub = fSubTitle, t.Name.Space
		}
	case KindRSS:
		switch local {
		case "link":
			s.f = fLoc
		case "guid":
			if s.cur.URL == "" && !hasAttr(t, "isPermaLink", "false") {
				s.f = fLoc
			}
		case "title":
			s.f = fTitle
		case "pubdate", "date", "updated":
			s.f = fDate
		}
	case KindAtom:
		switch local {
		case "link":
			rel := attr(t, "rel")
			if href := attr(t, "href"); href != "" && (rel == "" || rel == "alternate") && (s.cur.URL == "" || rel == "alternate") {
				s.cur.URL = strings.TrimSpace(href)
			}
		case "id":
			// An entry's id is a URL at times; its link wins.
		case "title":
			s.f = fTitle
		case "updated", "published":
			if local == "updated" || s.date == "" {
				s.f = fDate
			}
		}
	}
	return false
}

func isSubTitle(space, local string) bool {
	return local == "title" && space != ""
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Name.Local, name) {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func hasAttr(t xml.StartElement, name, value string) bool {
	return strings.EqualFold(attr(t, name), value)
}

func (s *xmlState) text(t xml.CharData) {
	if s.cur == nil || s.f == fNone || s.over {
		return
	}
	if len(s.buf)+len(t) > s.lim.MaxField {
		s.over = true
		return
	}
	s.buf = append(s.buf, t...)
}

func (s *xmlState) end(t xml.EndElement, depth int) {
	if s.cur == nil {
		return
	}
	if depth == s.depth && strings.EqualFold(t.Name.Local, s.item) {
		if s.date != "" && s.cur.LastMod == "" {
			s.cur.LastMod = feedDate(s.date)
		}
		if s.cur.URL != "" {
			*s.into = append(*s.into, *s.cur)
		}
		s.cur, s.f = nil, fNone
		return
	}
	if s.f == fNone {
		return
	}
	v := strings.TrimSpace(string(s.buf))
	f := s.f
	s.f = fNone
	if s.over || v == "" {
		return
	}
	switch f {
	case fLoc:
		if s.cur.URL == "" || s.doc.Kind == KindRSS {
			s.cur.URL = v
		}
	case fLastMod:
		s.cur.LastMod = truncate(v, 64)
	case fTitle:
		s.cur.Title = cleanTitle(v, s.lim.MaxTitleLen)
	case fSubTitle:
		if s.cur.Title == "" {
			s.cur.Title = cleanTitle(v, s.lim.MaxTitleLen)
		}
	case fDate:
		s.date = truncate(v, 64)
	}
}

// cleanTitle folds a title's spaces and keeps at most n characters of it,
// as valid UTF-8.
func cleanTitle(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// feedDates are the date spellings feeds use (RFC 822 and its variants in
// RSS, RFC 3339 in Atom and Dublin Core).
var feedDates = []string{time.RFC3339Nano, time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700", "Mon, 02 Jan 2006 15:04 -0700", time.RFC822Z, time.RFC822, "2006-01-02T15:04:05", "2006-01-02"}

// feedDate is a feed's date as RFC 3339 when it parses, else as written.
func feedDate(v string) string {
	for _, layout := range feedDates {
		if t, err := time.Parse(layout, v); err == nil {
			if layout == "2006-01-02" {
				return v
			}
			return t.Format(time.RFC3339)
		}
	}
	return v
}

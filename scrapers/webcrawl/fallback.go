package webcrawl

import (
	"bytes"
	"net/url"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// Pages that show their text only once their scripts run still carry it in
// their HTML, where a browser without scripts (or before them) does not
// show it: in <noscript> (Discourse's forums) or in elements hidden until
// the page hydrates (visibility:hidden on the whole page). When the visible
// text is this small, those are read instead, and the item says so.

// hiddenFallback is the visible text (bytes) under which the page's hidden
// text is looked at.
const hiddenFallback = 1000

const (
	noteNoscript = "the page shows little text without scripts: its content was read from its <noscript> elements"
	noteHidden   = "the page hides its content until its scripts run: its hidden elements were read"
	noteWider    = "the main region held too little of the page's text: a wider part of the page was taken"
	noteWhole    = "no main region held the page's text: the whole page was taken, furniture removed"
	noteSecond   = "no main region held the page's text: go-trafilatura's choice of content was taken"
	noteEmpty    = "nothing but page furniture held text: the whole page was taken as it is"
	noteLDBody   = "the page's HTML shows almost no text without its scripts: its text was read from its JSON-LD"
	noteNoText   = "the page's HTML holds no text: its scripts build what a browser shows; crawl it with render: true to read that"
)

// scanFallback returns the scan to extract from when sc found too little
// visible text, with a note when it is not sc.
func scanFallback(sc *scanned, body []byte, pageURL *url.URL, lim Limits) (*scanned, []string) {
	if len(sc.noscript) > 2*sc.inkBytes+200 {
		ns := scan(sc.noscript, pageURL, lim)
		if ns.inkBytes > 2*sc.inkBytes+200 {
			ns.meta, ns.cut = sc.meta, append(sc.cut, ns.cut...)
			if len(sc.links) >= len(ns.links) {
				ns.links, ns.linksTotal = sc.links, sc.linksTotal
			}
			return ns, []string{noteNoscript}
		}
	}
	hidden := scanPage(body, pageURL, lim, true)
	if hidden.inkBytes > 2*sc.inkBytes+200 {
		return hidden, []string{noteHidden}
	}
	return sc, nil
}

// secondOpinion is go-trafilatura's main content of the page (doc, already
// cut to the limits), for the pages where the region choice failed (it held
// too little of the page, or everything looked like furniture): nil when it
// finds less than a tenth of the text the chosen part held (total is what
// was left after pruning). It asks go-trafilatura for no date: the host's
// build replaces go-htmldate, its date finder, with a stand-in that finds
// none (go.mod, internal/htmldatestub), so that go-dateparser's tables are
// not built at every start for a call made on about 1% of pages.
func secondOpinion(doc []byte, pageURL *url.URL, total int) *html.Node {
	res, err := trafilatura.Extract(bytes.NewReader(doc), trafilatura.Options{OriginalURL: pageURL, EnableFallback: true,
		ExcludeComments: false, IncludeImages: true, IncludeLinks: true, HtmlDateMode: trafilatura.Disabled})
	if err != nil || res == nil || res.ContentNode == nil {
		return nil
	}
	if n := measureText(res.ContentNode, nil); n < secondOpinionMin || 10*n < total {
		return nil
	}
	return res.ContentNode
}

// secondOpinionMin is the text a second opinion must hold to be taken.
const secondOpinionMin = 200

package webcrawl

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The main region of a page, whatever its kind. Page furniture is pruned
// from the whole body first (the site's header, navigation, footer,
// sidebars, cookie and newsletter boxes, share bars), then the region that
// holds the page's own content is chosen: the page's <main> when it has one
// that holds the content, else the pruned body. Articles are narrowed
// further to their text (see mainContent); other kinds of page (services,
// products, collections, listings, forums, documentation) keep the whole
// region, since their content is spread over many blocks, not one.

// furnitureTokens are class or id words (split at '-', '_' and spaces) that
// name page furniture.
var furnitureTokens = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true,
	"newsletter": true, "subscribe": true, "subscription": true, "signup": true,
	"popup": true, "modal": true, "overlay": true, "lightbox": true,
	"share": true, "sharing": true, "sharebar": true, "sharebuttons": true, "social": true, "socials": true,
	"breadcrumb": true, "breadcrumbs": true, "skip": true, "skiplink": true,
	"sidebar": true, "related": true, "recommended": true, "recommendations": true,
	"advert": true, "advertisement": true, "ads": true, "ad": true, "adsbygoogle": true, "sponsored": true,
	"promo": true, "footer": true, "navbar": true, "nav": true, "navigation": true, "menu": true,
	"megamenu": true, "offcanvas": true, "toc": true, "pagination": true, "pager": true,
	"masthead": true, "topbar": true,
	// the fine print under an offer or a chart: disclaimers and footnotes
	"disclaimer": true, "disclaimers": true, "footnotes": true, "footnote": true, "legal": true,
	// a menu's panels, hints shown on hover, the site's trending stories
	// (a dropdown that is an accordion's panel is content: see furniture)
	"dropdown": true, "tooltip": true, "popover": true, "trending": true,
	// facets, filters and sorting beside a listing
	"filter": true, "filters": true, "facet": true, "facets": true, "refinements": true, "sort": true, "sorting": true,
	"announcement": true, "announcements": true, "upsell": true, "crosssell": true,
	// text for screen readers only: a browser shows none of it
	"visuallyhidden": true, "screenreader": true, "offscreen": true, "sronly": true,
	"onetrust": true, "cky": true,
	// a carousel's copies of its slides
	"cloned": true,
}

// productFurniture are words naming what buyers wrote about a product
// (review widgets) and what else the shop would sell (on a product's page,
// a carousel's slides are other products: eBay's "carousel__list", a
// theme's "product-carousel").
var productFurniture = map[string]bool{"review": true, "reviews": true, "yotpo": true, "okendo": true, "jdgm": true,
	"judgeme": true, "stamped": true, "trustpilot": true, "bazaarvoice": true, "bv": true, "ugc": true,
	"recommendation": true, "recommendations": true, "upsells": true, "recently": true, "carousel": true}

// articleFurniture are words that name what sits around an article's text
// (its comments, author box, tags, date line, photo captions and credits
// such as WordPress's wp-caption-text); forums keep their comments and
// authors.
var articleFurniture = map[string]bool{"comment": true, "comments": true, "disqus": true, "respond": true,
	"author": true, "authors": true, "byline": true, "bio": true, "meta": true, "tags": true, "tag": true,
	"categories": true, "cta": true, "caption": true, "credit": true}

// boxWords are the furniture words that name a small box (a date line, an
// author's card, a tag list, a call to action, fine print): an element so
// named that holds running text is not that box (HubSpot's "meta_field"
// around a post's body, a law firm's "legal-services" sections).
var boxWords = map[string]bool{"author": true, "authors": true, "byline": true, "bio": true, "meta": true,
	"tags": true, "tag": true, "categories": true, "cta": true, "legal": true}

// boxText is the paragraph text above which an element is not a box.
const boxText = 400

var furnitureRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true,
	"menu": true, "menubar": true, "dialog": true, "alertdialog": true, "tooltip": true,
}

// classWordEnd is what separates the words of a class name.
func classWordEnd(r rune) bool { return r == '-' || r == '_' || r == ':' || r == '.' }

// classTokens calls f with each lower-cased word of n's class and id.
func classTokens(n *html.Node, f func(string) bool) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		for name := range strings.FieldsSeq(strings.ToLower(a.Val)) {
			if wpPreset(name) {
				continue
			}
			for w := range strings.FieldsFuncSeq(name, classWordEnd) {
				if f(w) {
					return true
				}
			}
		}
	}
	return false
}

// textSizes measures the text under each element once.
type textSizes map[*html.Node]int

// measureText is the text under n, recorded for n and every element under
// it in sizes (nil: the total alone).
func measureText(n *html.Node, sizes textSizes) int {
	t := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			t += textLen(c.Data)
		case html.ElementNode:
			t += measureText(c, sizes)
		}
	}
	if sizes != nil {
		sizes[n] = t
	}
	return t
}

// furniture says whether n is page furniture, by its tag, role or class.
func furniture(n *html.Node, inContent bool, kind pageKind, para int) bool {
	article := kind == kindArticle
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer:
		return true
	case atom.Form:
		return kind != kindForum || !textForm(n, para)
	case atom.Header:
		return !inContent
	case atom.Body, atom.Main, atom.Article, atom.Table, atom.Tbody, atom.Tr, atom.Td, atom.Pre, atom.Code, atom.H1:
		return false
	}
	if furnitureRoles[strings.ToLower(attrOf(n, "role"))] {
		return true
	}
	if srOnly(n) || postFurniture(n) || kind == kindForum && forumFurniture(n) || consentPlatform(n) {
		return true
	}
	return classTokens(n, func(w string) bool {
		// An accordion's panels (a FAQ's answers) are named its "dropdown".
		if boxWords[w] && para > boxText || w == "dropdown" && classTokens(n, func(w string) bool { return w == "accordion" }) {
			return false
		}
		return furnitureTokens[w] || article && articleFurniture[w] || kind == kindProduct && productFurniture[w]
	})
}

// furnitureUnder lists the furniture under n, outermost first. An element
// holding more than half of the page's text, or half of its paragraphs, is
// never furniture, whatever its class says (a site that wraps its content in
// class="sidebar-first-only"): it is looked into instead.
func furnitureUnder(n *html.Node, sz *regionSizes, inContent bool, kind pageKind, out []*html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		in := inContent || c.DataAtom == atom.Main || c.DataAtom == atom.Article || strings.EqualFold(attrOf(c, "role"), "main")
		if furniture(c, inContent, kind, sz.para[c]) && (!sz.holdsContent(c) && !sz.aroundMain[c] || overlay(c, sz.firstH1)) {
			out = append(out, c)
		} else {
			out = furnitureUnder(c, sz, in, kind, out)
		}
	}
	return out
}

// regionSizes are the text and paragraph text under each element.
// aroundMain holds the elements the page's <main> (or role=main) is under:
// such an element wraps the content whatever its class says (Bootstrap's
// "row-offcanvas" around the whole page).
type regionSizes struct {
	text, para         textSizes
	totalText, totalPa int
	aroundMain         map[*html.Node]bool
	// firstH1 is the page's first <h1>: its title, by which a dialog
	// holding another <h1> (the terms of service) is told from the page.
	firstH1 *html.Node
}

func measureRegion(body *html.Node) *regionSizes {
	sz := &regionSizes{text: textSizes{}, para: textSizes{}, aroundMain: map[*html.Node]bool{}}
	sz.totalText = measureText(body, sz.text)
	sz.totalPa = paraText(body, false, sz.para)
	markAroundMain(body, sz.aroundMain)
	sz.firstH1 = findElement(body, atom.H1)
	return sz
}

// markAroundMain records in around every element above a <main> under n.
func markAroundMain(n *html.Node, around map[*html.Node]bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.Main || strings.EqualFold(attrOf(c, "role"), "main") {
			for a := c.Parent; a != nil && !around[a]; a = a.Parent {
				around[a] = true
			}
		}
		markAroundMain(c, around)
	}
}

func (sz *regionSizes) holdsContent(n *html.Node) bool {
	return 2*sz.text[n] > sz.totalText || sz.totalPa > 0 && 2*sz.para[n] >= sz.totalPa
}

// paraText is the text in paragraphs and preformatted blocks.
func paraText(n *html.Node, in bool, sizes textSizes) int {
	return textInside(n, in, sizes, func(c *html.Node, in bool) bool {
		return in || c.DataAtom == atom.P || c.DataAtom == atom.Pre
	})
}

// textInside is the text under n that lies inside the elements inside says
// (given whether their parent is), recorded for n and every element under
// it in sizes.
func textInside(n *html.Node, in bool, sizes textSizes, inside func(c *html.Node, in bool) bool) int {
	t := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if in {
				t += textLen(c.Data)
			}
		case html.ElementNode:
			t += textInside(c, inside(c, in), sizes, inside)
		}
	}
	sizes[n] = t
	return t
}

// mainRegion is the element holding the page's own content after pruning:
// its <main> (or role=main) when that holds at least a quarter of the text,
// else the body.
func mainRegion(body *html.Node, sizes textSizes) *html.Node {
	total := sizes[body]
	var best *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Main || strings.EqualFold(attrOf(c, "role"), "main") {
				if 4*sizes[c] >= total && (best == nil || sizes[c] > sizes[best]) {
					best = c
				}
			}
			walk(c)
		}
	}
	walk(body)
	if best == nil {
		return body
	}
	return best
}

// chooseContent prunes the furniture under body and returns the nodes that
// hold the page's content, in document order.
func chooseContent(body *html.Node, kind pageKind) ([]*html.Node, string) {
	sz := measureRegion(body)
	gone := furnitureUnder(body, sz, false, kind, nil)
	removed := 0
	for _, n := range gone {
		removed += sz.text[n]
	}
	if sz.totalText > 0 && float64(removed) >= wholePageShare*float64(sz.totalText) && sz.totalText-removed < wholePageLeft {
		// Everything looks like furniture: the page is its own content.
		// (A page whose menus and reviews dwarf the product or the question
		// still has it: what is left is kept when it is a few paragraphs.)
		// The page's own landmarks (its header, navigation, footer) are
		// still not its content: only they go.
		for _, n := range gone {
			if landmark(n) {
				n.Parent.RemoveChild(n)
			}
		}
		dropWordFurniture(body, kind, sz.para)
		return []*html.Node{body}, noteWhole
	}
	for _, n := range gone {
		n.Parent.RemoveChild(n)
	}
	// The page's sizes are measured again after the pruning, into the same
	// map; the paragraph map is the later passes' scratch. (A page of
	// 100,000 elements makes each map a few MB: they are not made anew.)
	sizes, scratch := sz.text, sz.para
	clear(sizes)
	left := measureText(body, sizes)
	region := mainRegion(body, sizes)
	chosen, text := region, bodyByName(articleBody(region, scratch), scratch)
	if kind == kindArticle {
		chosen = text
		dropLinkLists(chosen, scratch)
		sizes[chosen] = measureText(chosen, nil)
	} else if text != region && float64(textOf(text, sizes)) >= otherShare*float64(sizes[region]) {
		chosen = text
	}
	dropRepeats(chosen, kind == kindForum)
	if kind != kindProduct {
		dropCaptions(chosen)
	}
	if kind == kindProduct || kind == kindForum {
		dropMenus(chosen)
	}
	dropWordFurniture(chosen, kind, scratch)
	if tooLittle(textOf(chosen, sizes), left) {
		wider := body
		if chosen != region && !tooLittle(sizes[region], left) {
			wider = region
		}
		dropWordFurniture(wider, kind, scratch)
		return []*html.Node{wider}, noteWider
	}
	if lead := leadBefore(region, chosen); lead != nil {
		return []*html.Node{lead, chosen}, ""
	}
	return []*html.Node{chosen}, ""
}

// dropWordFurniture unlinks, under n, the furniture told by its words (see
// furniture_words.go): lone calls to action, lines of furniture, and the
// sections whose heading names an aside. It runs on whatever part of the
// page is taken, a wider one too.
func dropWordFurniture(n *html.Node, kind pageKind, scratch textSizes) {
	dropCallsToAction(n)
	dropFurnitureLines(n)
	dropFurnitureRuns(n)
	dropAsides(n, kind == kindArticle, scratch)
}

// landmark says whether n is furniture by its tag or role, not its class.
func landmark(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Footer, atom.Header:
		return true
	}
	switch strings.ToLower(attrOf(n, "role")) {
	case "navigation", "banner", "contentinfo":
		return true
	}
	return false
}

// textOf is n's text from sizes, measured when n is not in them.
func textOf(n *html.Node, sizes textSizes) int {
	if t, ok := sizes[n]; ok {
		return t
	}
	return measureText(n, nil)
}

// tooLittle says whether a chosen part holding text characters is too
// small for a page holding total: under a tenth of it, on a page with more
// than a few lines.
func tooLittle(text, total int) bool {
	return total > 500 && 10*text < total
}

// wholePageShare is the share of a page's text that, found to be furniture,
// means the finding is wrong.
const wholePageShare = 0.9

// wholePageLeft is the text left after pruning that is content enough,
// whatever share of the page it is.
const wholePageLeft = 1000

// blockText is the text an element holds in the blocks an article is made
// of (paragraphs, quotes, code, list items, headings, table cells), measured once for every element.
func blockText(n *html.Node, in bool, sizes textSizes) int {
	return textInside(n, in, sizes, func(c *html.Node, in bool) bool {
		switch c.DataAtom {
		case atom.P, atom.Pre, atom.Blockquote, atom.Li, atom.Dd, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Td, atom.Figcaption:
			return true
		case atom.A:
			return false
		}
		return in
	})
}

// articleBody narrows an article's region to the smallest element that
// holds nearly all of its running text (the lowest element with at least
// articleShare of it), so that what sits beside the text (bylines, share
// bars, related links, newsletter boxes) is left out.
func articleBody(region *html.Node, sizes textSizes) *html.Node {
	clear(sizes)
	total := blockText(region, false, sizes)
	if total == 0 {
		return region
	}
	n := region
	for {
		var next *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && float64(sizes[c]) >= articleShare*float64(total) && container(c) {
				next = c
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
}

const articleShare = 0.85

// otherShare is the share of its region's text the running text of a page
// that is not an article must hold to be taken alone.
const otherShare = 0.7

// srOnly says whether n's class hides it from all but screen readers
// (sr-only, visually-hidden, screen-reader-text), or n is a skip link.
func srOnly(n *html.Node) bool {
	c := strings.ToLower(attrOf(n, "class"))
	if c != "" && (strings.Contains(c, "sr-only") || strings.Contains(c, "visually-hidden") || strings.Contains(c, "screen-reader") ||
		strings.Contains(c, "visuallyhidden") || strings.Contains(c, "element-invisible") || strings.Contains(c, "u-hidden")) {
		return true
	}
	if n.DataAtom == atom.A && strings.HasPrefix(attrOf(n, "href"), "#") {
		t := strings.ToLower(nodeText(n, 64))
		return strings.Contains(t, "skip to") || strings.Contains(t, "jump to")
	}
	return false
}

// dropLinkLists unlinks, inside an article's text, the blocks that are
// lists of links (related stories, "read next", tag clouds): blocks whose
// text is mostly link text, that hold no paragraph of their own and less
// than two fifths of the article (more is the article: a list of recipes).
func dropLinkLists(root *html.Node, text textSizes) {
	clear(text)
	link := textSizes{}
	measureLinks(root, false, text, link)
	unlinkWhere(root, func(c *html.Node) bool {
		switch c.DataAtom {
		case atom.Ul, atom.Ol, atom.Div, atom.Section, atom.Dl:
			t := text[c]
			return t > 0 && float64(link[c]) > linkListShare*float64(t) && 5*t <= 2*text[root] && !hasLongParagraph(c)
		}
		return false
	}, nil)
}

const linkListShare = 0.6

func measureLinks(n *html.Node, inLink bool, text, link textSizes) (int, int) {
	t, l := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			k := textLen(c.Data)
			t += k
			if inLink {
				l += k
			}
		case html.ElementNode:
			ct, cl := measureLinks(c, inLink || c.DataAtom == atom.A, text, link)
			t += ct
			l += cl
		}
	}
	text[n], link[n] = t, l
	return t, l
}

// hasLongParagraph says whether n holds a paragraph of running text.
func hasLongParagraph(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == atom.P && textLen(nodeText(c, 400)) >= 120 || hasLongParagraph(c) {
			return true
		}
	}
	return false
}

// container says whether n only holds blocks, so that narrowing may go into
// it: not a paragraph, heading, list, quote, code or a table of data, whose
// structure is the content.
func container(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Dl, atom.Li,
		atom.Pre, atom.Code, atom.Blockquote, atom.Figure, atom.Details:
		return false
	case atom.Table:
		return layoutTable(n)
	}
	return true
}

// layoutTable says whether a table lays out blocks (a cell holds a div, a
// paragraph or another table) rather than holding data (headers, a caption).
func layoutTable(t *html.Node) bool {
	layout := false
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Th, atom.Thead, atom.Caption:
				return false
			case atom.Div, atom.P, atom.Table:
				layout = true
				continue
			}
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return walk(t) && layout
}

// dropRepeats unlinks blocks whose text repeats an earlier block's word for
// word: pages that lay out the same text twice (once for small screens, once
// for large; a carousel's cloned slides) show it once. Short texts (a
// price, "Sold out") may repeat on their own and are kept, unless a label
// without a figure repeats chromeRepeats times and more (cards' chrome);
// code is not looked into (its lines repeat: a JSON sample's "customer": null).
//
// On a thread, a list item that holds blocks is looked into: NodeBB lays
// its posts out as a list's items, and each reply repeats the post it
// answers above its own text.
func dropRepeats(n *html.Node, thread bool) {
	seen := map[string]bool{}
	shortCount := map[string]int{}
	var short []*html.Node
	var shortText []string
	var walk func(n *html.Node, code bool)
	walk = func(n *html.Node, code bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && c.DataAtom != atom.Pre && c.DataAtom != atom.Code {
				if leafBlock(c) && !(thread && c.DataAtom == atom.Li && holdsBlock(c)) {
					t := clean(nodeText(c, 4096))
					min := repeatMin
					if heading(c) {
						min = repeatHeading
					}
					if len(t) >= min {
						if seen[t] {
							n.RemoveChild(c)
						}
						seen[t] = true
					} else if t != "" && !code && !hasDigit(t) && chromeBlock(c) {
						shortCount[t]++
						short = append(short, c)
						shortText = append(shortText, t)
					}
				} else {
					walk(c, code || c.DataAtom == atom.Pre || c.DataAtom == atom.Code || c.DataAtom == atom.Table)
				}
			}
			c = next
		}
	}
	walk(n, false)
	// A label without a figure that every card repeats ("Quick view",
	// "Compare", "New", "Add to cart") is the cards' chrome, not their
	// content: a name or a price differs from card to card.
	for i, c := range short {
		if shortCount[shortText[i]] >= chromeRepeats && c.Parent != nil {
			c.Parent.RemoveChild(c)
		}
	}
}

// chromeBlock says whether a short block may be a card's chrome: not a
// heading (sections titled alike: "Overview", "Pros", "Cons"), nor a list
// item or a definition (a feature list: "Vegan", "Password manager").
func chromeBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Dt, atom.Dd:
		return false
	}
	return true
}

// chromeRepeats is how many times a short label repeats to be chrome.
const chromeRepeats = 4

// leafBlock says whether n is a block of text holding no other block.
func leafBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Dt, atom.Dd, atom.Figcaption, atom.Blockquote:
		return true
	case atom.Div, atom.Span, atom.A, atom.Section:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && !inline(c) {
				return false
			}
		}
		return true
	}
	return false
}

func inline(n *html.Node) bool {
	switch n.DataAtom {
	case atom.A, atom.Span, atom.B, atom.Strong, atom.I, atom.Em, atom.Small, atom.Sup, atom.Sub, atom.Br, atom.Img, atom.Abbr, atom.Time, atom.Mark, atom.U, atom.S, atom.Code:
		return true
	}
	return false
}

// postFurnitureNames are class names that forums and Q&A sites give to
// what surrounds each post: the poster's statistics (joined, messages),
// signatures, vote and action bars, "click to expand" links, thread tools.
// The posts, with their authors and dates, stay.
var postFurnitureNames = newNameHints("userextras", "postprofile", "votecell", "js-vote", "post-taglist", "signature",
	"expandlink", "message-attribution-opposite", "actionbar", "post-controls", "postcontrols", "post-actions",
	"reactionsbar", "reactions-bar", "cauthorpane_info", "threadtools", "pagenav", "post-menu-area", "topic-map",
	// a poster's rank and banner ("Senior Member", "Supporter"), join date
	// and post count, a post's "Last edited by" and "Offline" lines
	// (XenForo, FluxBB, vBulletin, SMF, MyBB), and a thread's "Status"
	"usertitle", "userbanner", "extrauserinfo", "userinfo_extra", "memberaction", "user_info",
	"author_statistics", "postfoot", "postedit", "blockstatus",
	// a post's quote, report and like buttons and counts, "Top" links,
	// "Original Poster" and "Author" badges, a thread's print and tools
	// menu (phpBB, vBulletin, Invision, Discourse, MyBB), Stack Exchange's
	// "Add a comment" link and "Ask question" box
	"profile-icons", "topic-tools", "back2top", "threadstarter", "ipsbadges", "ipscomment_badges", "post-likes",
	"post_controls", "posttools",
	"comments-link", "js-bottom-notice",
	// a poster's badges and rank ("Science Advisor", "Discussion starter"),
	// Invision's topic overview (replies, views, top posters, popular days)
	"post-badges", "userrank", "discussion-starter", "ctopicoverview",
	// Invision's copies for phones of what the desktop layout shows (each
	// post's author and date again)
	"cauthorpane_mobile", "ipsresponsive_showphone",
	// old Reddit's copies of a score as it would be after an up or down
	// vote
	"score likes", "score dislikes")

func postFurniture(n *html.Node) bool {
	return postFurnitureNames.of(n)
}

// forumQuoteNames are the class names forum software gives to a post's
// quote of an earlier post (XenForo, phpBB, Invision, vBulletin) and to the
// comments under a Q&A site's question and answers: the thread already
// holds the quoted post, and a Q&A page's content is its question and
// answers.
var forumQuoteNames = newNameHints("bbcodeblock--quote", "bbcode_quote", "quotecontent",
	"js-comments-container", "comments-list")

func forumFurniture(n *html.Node) bool {
	if displayNone(n) {
		return true
	}
	if classTokens(n, func(w string) bool { return w == "avatar" }) && len(strings.TrimSpace(nodeText(n, 16))) <= 4 {
		// a poster's avatar: an image, or the first letter of the name
		// that stands beside it (XenForo, NodeBB)
		return true
	}
	return forumQuoteNames.of(n)
}

// overlay says whether n is a dialog laid over the page (a modal with the
// terms of service, a consent box): furniture however much text it holds,
// unless the page's own content is in it. A dialog whose <h1> is not the
// page's first (a shop's policies, each a modal titled in its own <h1>,
// after the product's name) is not the page.
func overlay(n, firstH1 *html.Node) bool {
	role := strings.ToLower(attrOf(n, "role"))
	strong := role == "dialog" || role == "alertdialog" || strings.EqualFold(attrOf(n, "aria-modal"), "true") ||
		classTokens(n, func(w string) bool { return w == "modal" || w == "popup" || w == "cookie" || w == "consent" })
	if !strong || findElement(n, atom.Main) != nil || findElement(n, atom.Article) != nil {
		return false
	}
	h1 := findElement(n, atom.H1)
	return h1 == nil || firstH1 != nil && h1 != firstH1
}

// linkStats are the links under an element: their count, how many are
// short (a menu's labels), and their text.
type linkStats struct{ text, linkText, links, short int }

// dropMenus unlinks, under root, the blocks that are menus: at least
// menuLinks links, most of their text link text and most links a word or
// two, with no paragraph of running text. (Cards of a shop's listing have
// long link text: a product's name.)
func dropMenus(root *html.Node) {
	var walk func(n *html.Node, inLink bool) linkStats
	walk = func(n *html.Node, inLink bool) linkStats {
		var st linkStats
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch c.Type {
			case html.TextNode:
				k := textLen(c.Data)
				st.text += k
				if inLink {
					st.linkText += k
				}
			case html.ElementNode:
				if c.DataAtom == atom.A && !inLink {
					cs := walk(c, true)
					st.text += cs.text
					st.linkText += cs.text
					st.links++
					if len(strings.TrimSpace(nodeText(c, 64))) < menuLabel {
						st.short++
					}
					break
				}
				cs := walk(c, inLink)
				if !inLink && cs.links >= menuLinks && 2*cs.linkText > cs.text && 2*cs.short > cs.links && !hasLongParagraph(c) {
					n.RemoveChild(c)
					break
				}
				st.text += cs.text
				st.linkText += cs.linkText
				st.links += cs.links
				st.short += cs.short
			}
			c = next
		}
		return st
	}
	walk(root, false)
}

const (
	menuLinks = 5
	menuLabel = 16
)

// wpPreset says whether a class name is one of WordPress's block editor
// presets (has-legal-font-size, has-footer-background-color): its middle is
// a colour's or a size's name, chosen by the theme, and says nothing of the
// block.
func wpPreset(name string) bool {
	if !strings.HasPrefix(name, "has-") {
		return false
	}
	for _, s := range []string{"-color", "-font-size", "-background-color", "-gradient-background", "-border-color"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// consentPlatform says whether n's class or id names a consent management
// platform's box ("cmp", "qc-cmp-ui", "privacy-cmp-banner"). A name that
// begins with "cmp-" is not one: Adobe Experience Manager's core components
// name every block so (cmp-container, cmp-text, cmp-teaser), the page's
// content among them.
func consentPlatform(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key != "class" && a.Key != "id" {
			continue
		}
		for name := range strings.FieldsSeq(strings.ToLower(a.Val)) {
			// "cmp" alone, or a word of the name after its first
			i := 0
			for w := range strings.FieldsFuncSeq(name, classWordEnd) {
				if w == "cmp" && (i > 0 || w == name) {
					return true
				}
				i++
			}
		}
	}
	return false
}

// repeatMin is the length (bytes) from which a repeated text is a repeat;
// repeatHeading is a heading's (a manual's headings repeat: "The Charge
// object").
const (
	repeatMin     = 16
	repeatHeading = 24
)

// bodyNames are the class names (and itemprop) that blogging and news
// software gives the element around a post's text (WordPress's
// entry-content, Elementor's theme-post-content, schema.org's articleBody).
var bodyNames = newNameHints("entry-content", "post-content", "article-body", "articlebody", "article-content",
	"article__body", "article__content", "post-body", "story-body", "entry-body", "post__content", "entry__content",
	"blog-content", "article-text", "story-content", "news-content", "post-text", "single-content", "content-body", "article-detail")

// bodyShare is the share of the narrowed region's running text an element
// named as a post's text must hold to be taken alone: what is beside it
// in the region (a sidebar of other posts' excerpts, a contact box) is not
// the article.
const bodyShare = 0.35

// bodyByName narrows n to the element under it that is named as the
// post's text, when that holds at least bodyShare of n's running text. A
// name that several elements bear names each post of a thread or each
// comment, not the article's text: it is not followed.
func bodyByName(n *html.Node, sizes textSizes) *html.Node {
	var named []*html.Node
	uses := map[string]int{}
	var walk func(m *html.Node)
	walk = func(m *html.Node) {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if strings.EqualFold(attrOf(c, "itemprop"), "articleBody") || bodyNames.of(c) {
				named = append(named, c)
				uses[attrOf(c, "class")]++
			}
			walk(c)
		}
	}
	walk(n)
	var best *html.Node
	for _, c := range named {
		if uses[attrOf(c, "class")] == 1 && container(c) && (best == nil || sizes[c] >= sizes[best]) {
			best = c
		}
	}
	if best == nil || float64(sizes[best]) < bodyShare*float64(sizes[n]) {
		return n
	}
	return best
}

// dropCaptions unlinks the captions (<figcaption>) under n: a photo's
// caption and credit are not the text a page is read for. A numbered
// caption ("Figure 2.", "Table 1") is kept: the text refers to it. A
// product's captions may say what the product is, and are kept.
func dropCaptions(n *html.Node) {
	unlinkWhere(n, func(c *html.Node) bool {
		return c.DataAtom == atom.Figcaption && !numberedCaption.MatchString(nodeText(c, 64))
	}, nil)
}

// numberedCaption is the start of a caption the text refers to by number.
var numberedCaption = regexp.MustCompile(`^\s*(?i:fig(ure)?|table|chart|exhibit)\.?\s*\d`)

// textForm says whether a thread's form wraps posts rather than fields:
// its text is nearly all paragraphs, or it holds paragraphs enough for
// several posts. Old Reddit wraps each comment's text in a form (for its
// editor), Invision a thread's posts (for its moderation tools); a search
// box, a login, a cookie choice or a reply box is mostly labels and links,
// with a line or two of paragraph. (The fields themselves are gone by now:
// the scan drops them. On other pages, a shop's grid of product cards may
// sit in a form too, so this is for threads only.)
func textForm(n *html.Node, para int) bool {
	return para >= textFormMin && 4*para >= 3*measureText(n, nil) || para >= textFormPosts
}

// textFormMin is the paragraph text from which a form may be text (a
// one-line comment); textFormPosts is the paragraph text that is posts
// whatever else the form holds (their authors' cards and signatures).
const (
	textFormMin   = 20
	textFormPosts = 500
)

// displayNone says whether n's class hides it at every screen size
// (Bootstrap's and Stack Exchange's "d-none" without a "d-md-block" that
// shows it on larger screens): Stack Exchange's MathJax sites write each
// post's "$\begingroup$" marks in such spans. (Shops and service pages
// show such blocks from their scripts: this is for threads only; on all
// pages it lowered product and service pages.)
func displayNone(n *html.Node) bool {
	c := attrOf(n, "class")
	if !strings.Contains(c, "d-none") {
		return false
	}
	none := false
	for _, w := range strings.Fields(c) {
		switch {
		case w == "d-none":
			none = true
		case strings.HasPrefix(w, "d-") && strings.Count(w, "-") >= 2, strings.Contains(w, ":d-"):
			return false // d-md-block, md:d-block: shown somewhere
		}
	}
	return none
}

// holdsBlock says whether n has a child that is not inline.
func holdsBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !inline(c) {
			return true
		}
	}
	return false
}

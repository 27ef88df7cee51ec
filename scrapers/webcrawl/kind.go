package webcrawl

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// pageKind is what a page is, as far as extraction cares: an article (one
// text: news, blog post, essay) is narrowed to its text; any other page
// keeps its whole main region.
type pageKind int

const (
	kindOther pageKind = iota
	kindArticle
	// kindProduct is one product's page: what it is, costs and does, not
	// what its buyers wrote about it.
	kindProduct
	// kindForum is a thread of posts (a forum, a Q&A page): every post
	// stays, with its author and date, but not what quotes an earlier post
	// again, nor the comments under a Q&A site's answers.
	kindForum
)

var (
	ldType = regexp.MustCompile(`"@type"\s*:\s*(\[[^\]]{0,512}\]|"[^"]{0,128}")`)
	// articleTypes are schema.org's article types.
	articleTypes = map[string]bool{"article": true, "newsarticle": true, "blogposting": true, "reportagenewsarticle": true,
		"analysisnewsarticle": true, "opinionnewsarticle": true, "reviewnewsarticle": true, "backgroundnewsarticle": true,
		"scholarlyarticle": true, "report": true, "liveblogposting": true, "posting": true}
	// otherTypes are types that make a page something else even when it
	// also names an article (a product page with a review article).
	otherTypes = map[string]bool{"product": true, "discussionforumposting": true, "qapage": true, "itemlist": true,
		"collectionpage": true, "searchresultspage": true, "techarticle": true, "apireference": true,
		"jobposting": true}
)

// ldTypes are the schema.org types a page's JSON-LD names, lower-cased.
func ldTypes(jsonLD string) []string {
	var out []string
	for _, m := range ldType.FindAllStringSubmatch(jsonLD, 64) {
		for _, t := range strings.Split(strings.Trim(m[1], "[]"), ",") {
			if t = schemaType(strings.Trim(strings.TrimSpace(t), `"`)); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// schemaType is a schema.org type's name, lower-cased, without the
// vocabulary's address ("http://schema.org/Article" is "article").
func schemaType(t string) string {
	return strings.ToLower(t[strings.LastIndexAny(t, "/:")+1:])
}

// productType says whether a schema.org type (as schemaType gives it) is a
// product's.
func productType(t string) bool { return t == "product" || t == "productgroup" }

// threadType says whether a schema.org type names a forum post or a Q&A
// page.
func threadType(t string) bool { return t == "discussionforumposting" || t == "qapage" }

// kindOf decides a page's kind from what it says about itself: its JSON-LD
// types, then og:type. A page that says nothing is not an article. A page
// whose JSON-LD names both an article and products is an article about
// products (a review, a buying guide), not a product's page.
func kindOf(m pageMeta, u *url.URL) pageKind {
	article, other, product, list, forum := false, false, false, false, false
	for _, t := range ldTypes(m.jsonLD) {
		forum = forum || threadType(t)
		isProduct := productType(t)
		article = article || articleTypes[t]
		other = other || otherTypes[t] && !isProduct && t != "itemlist"
		list = list || t == "itemlist"
		product = product || isProduct
	}
	forum = forum || m.threadItem
	og := strings.ToLower(strings.TrimSpace(m.ogType))
	switch {
	case forum || forumAddress(u) && !product && !article && og != "article":
		return kindForum
	case (product || og == "product") && !article:
		return kindProduct
	case other || list && !article:
		return kindOther
	case article || og == "article":
		return kindArticle
	case productPath(u):
		return kindProduct
	case articlePath(u):
		return kindArticle
	}
	return kindOther
}

// articleSegments are the folders news sites, blogs and public bodies put
// their articles in, in the languages of the tables (furniture_tables.go).
var articleSegments = map[string]bool{
	"news": true, "article": true, "articles": true, "artikel": true, "blog": true,
	"nachrichten": true, "aktuelles": true, "aktuell": true, "meldungen": true, "pressemitteilungen": true,
	"actualites": true, "actualite": true, "noticias": true, "noticia": true, "notizie": true, "wiadomosci": true,
	"uutiset": true, "nieuws": true,
}

// articlePath says whether a page's address is an article's, for pages
// that say nothing of themselves: a date in its path (/2019/05/, /2020-02/)
// or a news folder (/news/, /artikel/, /actualites/…) followed by the
// article's name.
func articlePath(u *url.URL) bool {
	if u == nil {
		return false
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i, s := range segs[:max(len(segs)-1, 0)] {
		if yearSegment(s) && (len(s) > 5 && monthSegment(s[5:]) || monthSegment(segs[i+1])) {
			return true
		}
		if articleSegments[strings.ToLower(s)] && len(segs[len(segs)-1]) >= 12 {
			return true
		}
	}
	return false
}

// yearSegment says whether s is a year from 1995 to 2099, alone or
// beginning a date ("2020-02").
func yearSegment(s string) bool {
	if len(s) < 4 || len(s) > 10 || !(strings.HasPrefix(s, "19") || strings.HasPrefix(s, "20")) {
		return false
	}
	for _, r := range s[:4] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s[:4] >= "1995" && (len(s) == 4 || s[4] == '-')
}

// monthSegment says whether s begins with a month's number, 01 to 12, or
// is a date's day after a year-month segment.
func monthSegment(s string) bool {
	if len(s) < 2 || s[0] < '0' || s[0] > '1' || s[1] < '0' || s[1] > '9' {
		return false
	}
	return s[:2] >= "01" && s[:2] <= "12" && (len(s) == 2 || !unicode.IsDigit(rune(s[2])))
}

// forumHosts are sites that are all threads; forumHostPrefixes and
// forumSegments are how other sites name theirs.
var (
	forumHosts = map[string]bool{"stackoverflow.com": true, "superuser.com": true, "serverfault.com": true, "askubuntu.com": true,
		"www.quora.com": true, "quora.com": true}
	forumHostPrefixes = []string{"forum.", "forums.", "community.", "discuss.", "discourse.", "bbs."}
	forumSegments     = map[string]bool{"forum": true, "forums": true, "thread": true, "threads": true, "topic": true,
		"topics": true, "t": true, "questions": true, "comments": true, "discussion": true, "discussions": true,
		"viewtopic.php": true, "showthread.php": true, "showtopic.php": true}
)

// forumAddress says whether a page's address is a thread's.
func forumAddress(u *url.URL) bool {
	if u == nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if forumHosts[host] || strings.HasSuffix(host, ".stackexchange.com") || host == "news.ycombinator.com" && u.Path == "/item" {
		return true
	}
	for _, p := range forumHostPrefixes {
		if strings.HasPrefix(host, p) || strings.HasPrefix(host, "www."+p) {
			return true
		}
	}
	// A thread's address names it by number after the word (/t/slug/123,
	// /topic/123-slug); /topic/headphones is a news site's tag.
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i, s := range segs {
		if forumSegments[strings.ToLower(s)] && (strings.HasSuffix(s, ".php") || slices.ContainsFunc(segs[i+1:], hasDigit)) {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// productPath says whether a page's address is a shop's address for one
// product (/products/<name>, Amazon's /dp/<id>, Walmart's /ip/<id>), for
// pages that say nothing of themselves.
func productPath(u *url.URL) bool {
	if u == nil {
		return false
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i, s := range segs[:max(len(segs)-1, 0)] {
		switch strings.ToLower(s) {
		case "products", "product", "dp", "ip":
			return segs[i+1] != ""
		}
	}
	return false
}

package sitemap

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// PageLinks are what an HTML page offers a map: its links, each with its
// text, and the feeds and sitemaps its head names.
type PageLinks struct {
	Title    string   // the page's <title>, spaces folded, at most 300 characters
	Links    []Entry  // <a href>, resolved against the page (and its <base>), in page order, each once
	Feeds    []string // <link rel="alternate" type="application/rss+xml" or atom> hrefs, resolved
	Sitemaps []string // <link rel="sitemap"> hrefs, resolved
	// Cut is set when the page had more links than asked for, or more
	// tokens than were read.
	Cut bool
}

// maxPageTokens bounds the tokens read from one page.
const maxPageTokens = 500_000

// ReadPage reads the links of an HTML page at base: at most maxLinks links
// and 20 feeds. Links that do not resolve to http or https URLs are left
// out; each is spelt as Canonical spells it.
func ReadPage(body []byte, base *url.URL, maxLinks int) PageLinks {
	var pl PageLinks
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(1 << 20)
	seen := map[string]int{} // canonical URL → index in Links
	var (
		inA       bool
		aIdx      = -1
		text      strings.Builder
		baseSet   bool
		skip      string // script, style, … : raw text that is no link's
		pageTitle strings.Builder
		inTitle   bool
	)
	closeA := func() {
		if inA && aIdx >= 0 && pl.Links[aIdx].Title == "" {
			pl.Links[aIdx].Title = cleanTitle(text.String(), 200)
		}
		inA, aIdx = false, -1
		text.Reset()
	}
	for n := 0; ; n++ {
		if n >= maxPageTokens {
			pl.Cut = true
			break
		}
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			var href, rel, typ, title string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "href":
					href = string(v)
				case "rel":
					rel = strings.ToLower(string(v))
				case "type":
					typ = strings.ToLower(strings.TrimSpace(string(v)))
				case "title", "aria-label":
					if title == "" {
						title = string(v)
					}
				}
			}
			switch tag {
			case "base":
				if !baseSet && href != "" {
					if b, err := Canonical(href, base); err == nil {
						base, baseSet = b, true
					}
				}
			case "a", "area":
				closeA()
				if href == "" || strings.Contains(rel, "nofollow") {
					continue
				}
				u, err := Canonical(href, base)
				if err != nil {
					continue
				}
				k := u.String()
				if i, ok := seen[k]; ok {
					if tag == "a" {
						inA, aIdx = true, i
					}
					continue
				}
				if len(pl.Links) >= maxLinks {
					pl.Cut = true
					continue
				}
				seen[k] = len(pl.Links)
				pl.Links = append(pl.Links, Entry{URL: k, Title: cleanTitle(title, 200)})
				if tag == "a" && tt == html.StartTagToken {
					inA, aIdx = true, len(pl.Links)-1
				}
			case "link":
				if href == "" {
					continue
				}
				rels := strings.Fields(rel)
				isFeed := has(rels, "alternate") && (strings.Contains(typ, "rss") || strings.Contains(typ, "atom"))
				if u, err := Canonical(href, base); err == nil {
					switch {
					case isFeed && len(pl.Feeds) < 20 && !has(pl.Feeds, u.String()):
						pl.Feeds = append(pl.Feeds, u.String())
					case has(rels, "sitemap") && len(pl.Sitemaps) < 20 && !has(pl.Sitemaps, u.String()):
						pl.Sitemaps = append(pl.Sitemaps, u.String())
					}
				}
			case "title":
				inTitle = tt == html.StartTagToken && pageTitle.Len() == 0
			case "script", "style", "template", "noscript", "svg":
				if tt == html.StartTagToken {
					skip = tag
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch tag := string(name); {
			case tag == "a":
				closeA()
			case tag == "title":
				inTitle = false
			case tag == skip:
				skip = ""
			}
		case html.TextToken:
			if inTitle && pageTitle.Len() < 2000 {
				pageTitle.Write(z.Text())
			}
			if inA && skip == "" && text.Len() < 1000 {
				text.Write(z.Text())
			}
		}
	}
	closeA()
	pl.Title = cleanTitle(pageTitle.String(), 300)
	return pl
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

package webcrawl

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/PuerkitoBio/goquery"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// Page is one crawled page, as the crawl tool returns it.
type Page struct {
	URL         string   `json:"url"`
	LoadedURL   string   `json:"loaded_url,omitempty"` // after redirects, when different
	Depth       int      `json:"depth"`
	Status      int      `json:"status"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Language    string   `json:"language,omitempty"`
	Markdown    string   `json:"markdown"`
	Truncated   bool     `json:"truncated,omitempty"` // markdown cut at max_length, or the page at the size cap
	Links       []string `json:"links"`
}

// Extract turns an HTML page into a Page: the main content as Markdown (by
// trafilatura, falling back to the whole body), title, description, language
// and the page's absolute http(s) links, in order, without duplicates.
func Extract(body []byte, pageURL *url.URL, maxLen int) (Page, error) {
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return Page{}, err
	}
	p := Page{URL: pageURL.String(), Links: []string{}}
	gq := goquery.NewDocumentFromNode(doc)
	base := pageURL
	if href, ok := gq.Find("base[href]").First().Attr("href"); ok {
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil {
			base = b
		}
	}
	p.Links = links(gq, base)
	p.Title = clean(gq.Find("title").First().Text())
	p.Description = clean(metaContent(gq, "description", "og:description"))
	p.Language = clean(firstNonEmpty(attr(gq.Find("html"), "lang"), metaContent(gq, "og:locale", "language")))

	res, err := trafilatura.ExtractDocument(doc, trafilatura.Options{OriginalURL: pageURL, EnableFallback: false, ExcludeComments: true, IncludeLinks: true, IncludeImages: false})
	var content *html.Node
	if err == nil && res != nil {
		content = res.ContentNode
		if p.Title == "" {
			p.Title = clean(res.Metadata.Title)
		}
		if p.Description == "" {
			p.Description = clean(res.Metadata.Description)
		}
		if p.Language == "" {
			p.Language = clean(res.Metadata.Language)
		}
	}
	var md string
	if content != nil {
		b, err := htmltomarkdown.ConvertNode(content, converterOptions(base)...)
		if err == nil {
			md = string(b)
		}
	}
	if strings.TrimSpace(md) == "" {
		// No main content found (a short or unusual page): convert the body.
		if bodyNode := gq.Find("body").Nodes; len(bodyNode) > 0 {
			gq.Find("script, style, noscript, template, svg, iframe").Remove()
			if b, err := htmltomarkdown.ConvertNode(bodyNode[0], converterOptions(base)...); err == nil {
				md = string(b)
			}
		}
	}
	md = strings.TrimSpace(strings.ToValidUTF8(md, "\uFFFD"))
	if utf8.RuneCountInString(md) > maxLen {
		md = truncateRunes(md, maxLen)
		p.Truncated = true
	}
	p.Markdown = md
	return p, nil
}

// converterOptions makes relative links and images absolute against base.
func converterOptions(base *url.URL) []converter.ConvertOptionFunc {
	return []converter.ConvertOptionFunc{converter.WithDomain(base.Scheme + "://" + base.Host)}
}

func links(gq *goquery.Document, base *url.URL) []string {
	seen := map[string]bool{}
	out := []string{}
	gq.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		href = strings.TrimSpace(href)
		if href == "" || strings.HasPrefix(href, "#") {
			return
		}
		u, err := base.Parse(href)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return
		}
		u.Fragment = ""
		s2 := u.String()
		if !seen[s2] {
			seen[s2] = true
			out = append(out, s2)
		}
	})
	return out
}

func metaContent(gq *goquery.Document, names ...string) string {
	for _, n := range names {
		sel := gq.Find(`meta[name="` + n + `"], meta[property="` + n + `"]`).First()
		if v, ok := sel.Attr("content"); ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func attr(s *goquery.Selection, name string) string {
	v, _ := s.First().Attr(name)
	return v
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func clean(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
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

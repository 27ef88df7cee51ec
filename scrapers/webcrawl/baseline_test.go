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

// baselinePage is the Page of the baseline pipeline.
type baselinePage struct {
	URL, Title, Description, Language, Markdown string
	Truncated                                   bool
	Links                                       []string
}

// extractBaseline is the pipeline as it was before issue 12, kept to measure
// against (BenchmarkExtract): it turns an HTML page into a baselinePage: the main content as Markdown (by
// trafilatura, falling back to the whole body), title, description, language
// and the page's absolute http(s) links, in order, without duplicates.
func extractBaseline(body []byte, pageURL *url.URL, maxLen int) (baselinePage, error) {
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return baselinePage{}, err
	}
	p := baselinePage{URL: pageURL.String(), Links: []string{}}
	gq := goquery.NewDocumentFromNode(doc)
	base := pageURL
	if href, ok := gq.Find("base[href]").First().Attr("href"); ok {
		if b, err := pageURL.Parse(strings.TrimSpace(href)); err == nil {
			base = b
		}
	}
	p.Links = baselineLinks(gq, base)
	p.Title = clean(gq.Find("title").First().Text())
	p.Description = clean(baselineMetaContent(gq, "description", "og:description"))
	p.Language = clean(firstNonEmpty(baselineAttr(gq.Find("html"), "lang"), baselineMetaContent(gq, "og:locale", "language")))

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
		b, err := htmltomarkdown.ConvertNode(content, baselineConverterOptions(base)...)
		if err == nil {
			md = string(b)
		}
	}
	if strings.TrimSpace(md) == "" {
		// No main content found (a short or unusual page): convert the body.
		if bodyNode := gq.Find("body").Nodes; len(bodyNode) > 0 {
			gq.Find("script, style, noscript, template, svg, iframe").Remove()
			if b, err := htmltomarkdown.ConvertNode(bodyNode[0], baselineConverterOptions(base)...); err == nil {
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
func baselineConverterOptions(base *url.URL) []converter.ConvertOptionFunc {
	return []converter.ConvertOptionFunc{converter.WithDomain(base.Scheme + "://" + base.Host)}
}

func baselineLinks(gq *goquery.Document, base *url.URL) []string {
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

func baselineMetaContent(gq *goquery.Document, names ...string) string {
	for _, n := range names {
		sel := gq.Find(`meta[name="` + n + `"], meta[property="` + n + `"]`).First()
		if v, ok := sel.Attr("content"); ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func baselineAttr(s *goquery.Selection, name string) string {
	v, _ := s.First().Attr(name)
	return v
}

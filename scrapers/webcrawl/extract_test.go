package webcrawl

import (
	"cmp"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

var realPages = []string{"ars-1", "bbc-1", "lemonde-1", "medium-1", "wikipedia"}

// headlineNotReadability are the titles the headline rule (pageTitle)
// gives where Readability's differ: Readability keeps a short <title>
// whole ("Mozilla - Wikipedia"), the rule takes the <h1> it confirms.
var headlineNotReadability = map[string]string{"wikipedia": "Mozilla"}

// readabilityMeta is what Mozilla's Readability found on a fixture page.
type readabilityMeta struct {
	Title   string  `json:"title"`
	Byline  *string `json:"byline"`
	Lang    string  `json:"lang"`
	Excerpt string  `json:"excerpt"`
}

func loadPage(tb testing.TB, name string) ([]byte, readabilityMeta) {
	tb.Helper()
	dir := scrapertest.RequireFixtures(tb)
	body, err := os.ReadFile(filepath.Join(dir, "webpages", name, "source.html"))
	if err != nil {
		tb.Fatal(err)
	}
	var meta readabilityMeta
	b, err := os.ReadFile(filepath.Join(dir, "webpages", name, "expected-metadata.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		tb.Fatal(err)
	}
	return body, meta
}

var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// plain is Markdown reduced to its words, for comparing text.
func plain(md string) string {
	md = mdLink.ReplaceAllString(md, "$1")
	md = strings.NewReplacer(`\[`, "[", `\]`, "]", "*", "", "_", "", "#", "", ">", "").Replace(md)
	return strings.Join(strings.Fields(md), " ")
}

// TestExtractRealPages holds the fixture pages to what Readability found:
// the same title and byline, the same language, and its excerpt among the
// main text (or, where Readability took the excerpt from the page's
// description, as the description).
func TestExtractRealPages(t *testing.T) {
	for _, name := range realPages {
		t.Run(name, func(t *testing.T) {
			body, meta := loadPage(t, name)
			u, _ := url.Parse("https://example.com/" + name)
			p, err := Extract(body, u, ExtractOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := cmp.Or(headlineNotReadability[name], meta.Title); p.Title != want {
				t.Errorf("title %q, want %q (Readability says %q)", p.Title, want, meta.Title)
			}
			want := ""
			if meta.Byline != nil {
				want = *meta.Byline
			}
			if p.Byline != want {
				t.Errorf("byline %q, Readability says %q", p.Byline, want)
			}
			if meta.Lang != "" && (p.Language == nil || !strings.EqualFold(*p.Language, meta.Lang)) {
				t.Errorf("language %v, Readability says %q", p.Language, meta.Lang)
			}
			text := plain(p.Markdown)
			excerpt := strings.Join(strings.Fields(strings.TrimSuffix(meta.Excerpt, "…")), " ")
			if !strings.Contains(text, excerpt) && !strings.HasPrefix(excerpt, strings.TrimSuffix(p.Description, "…")) {
				t.Errorf("Readability's excerpt %q is neither in the main text nor the description %q; text begins %.300q", excerpt, p.Description, text)
			}
			if len(text) < 2000 {
				t.Errorf("main text too short (%d chars): %q", len(text), text)
			}
			if len(p.Links) == 0 || p.LinksTotal < len(p.Links) {
				t.Errorf("links %d, links_total %d", len(p.Links), p.LinksTotal)
			}
			if strings.Contains(p.Markdown, "<script") || strings.Contains(p.Markdown, "function(") {
				t.Error("script in the markdown")
			}
		})
	}
}

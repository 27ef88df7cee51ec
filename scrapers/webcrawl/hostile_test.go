package webcrawl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Hostile pages, each built to cost as much as it can. Every one must be
// answered (no tool error, no panic) within the call's deadline, with the
// page's truncated reasons naming what was cut.

func linksPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><title>Links</title></head><body><main><p>A page that is nothing but links, a great many of them, one after another.</p>`)
	for i := range n {
		fmt.Fprintf(&b, `<a href="/p/%d">link %d</a> `, i, i)
	}
	b.WriteString(`</main></body></html>`)
	return []byte(b.String())
}

func repeatPage(head, unit, tail string, n int) []byte {
	return []byte(head + strings.Repeat(unit, n) + tail)
}

var hostilePages = map[string]struct {
	contentType string
	body        func() []byte
}{
	"/links": {"text/html", func() []byte { return linksPage(100_000) }},
	"/divs": {"text/html", func() []byte {
		return repeatPage("<html><body><p>Before the divs.</p>", "<div></div>", "</body></html>", 1_000_000)
	}},
	"/deep": {"text/html", func() []byte {
		return repeatPage("<html><body><p>Above the nesting, some text to read.</p>", "<div>", "deep text", 10_000)
	}},
	"/text": {"text/html", func() []byte {
		return repeatPage("<html><body><p>", "all work and no play ", "</p></body></html>", 50<<20/21)
	}},
	"/table": {"text/html", func() []byte {
		return repeatPage("<html><body><table><tr><th>Key</th><th>Value</th></tr>", "<tr><td>key</td><td>value</td></tr>", "</table></body></html>", 200_000)
	}},
	"/pre": {"text/html", func() []byte {
		return repeatPage(`<html><body><pre><code class="language-text">`, "a line of preformatted text\n", "</code></pre></body></html>", 100_000)
	}},
	// An article's page whose scripts would place 100,000 streamed parts,
	// under 256 KiB of JSON-LD: each part is read, the page's kind decided
	// once for them, and the element cap holds.
	"/streamed": {"text/html", func() []byte {
		ld := `<script type="application/ld+json">{"@type":"NewsArticle","description":"` + strings.Repeat("a long description ", 13_000) + `"}</script>`
		return repeatPage("<html><head>"+ld+"</head><body><p>The story's first paragraph.</p>", `<div hidden id="S:1"><p>streamed part 1</p></div>`, "</body></html>", 100_000)
	}},
	"/latin1": {"text/html; charset=utf-8", func() []byte {
		return []byte("<html><body><p>Un caf\xe9 cr\xe8me, na\xefvement servi \xe0 la terrasse du boulevard.</p></body></html>")
	}},
	"/liar": {"text/html; charset=iso-8859-1", func() []byte {
		return []byte("<html><body><p>Un café crème, naïvement servi à la terrasse — du boulevard.</p></body></html>")
	}},
	"/broken": {"text/html", func() []byte {
		return []byte("<html><body><p>Caf\xc3\xa9 with broken \xc3\x28 bytes \xff\xfe and \xed\xa0\x80 surrogates in a paragraph.</p></body></html>")
	}},
}

func hostileSite(t *testing.T) *httptest.Server {
	built := map[string][]byte{}
	for path, p := range hostilePages {
		built[path] = p.body()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := hostilePages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", p.contentType)
		w.Write(built[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	return srv
}

func reasons(it map[string]any) string {
	b, _ := json.Marshal(it["truncated"])
	return string(b)
}

func TestCrawlHostilePages(t *testing.T) {
	srv := hostileSite(t)
	var starts []string
	for path := range hostilePages {
		starts = append(starts, srv.URL+path)
	}
	st := testSettings()
	st.PageTimeout = 15 * time.Second
	items, err, out := run(t, st, map[string]any{"start_urls": starts, "max_length": 20_000})
	if err != nil {
		t.Fatalf("the crawl failed: %v", err)
	}
	if len(out.Failed) > 0 {
		t.Fatalf("pages failed: %+v", out.Failed)
	}
	got := byURL(items)
	page := func(path string) map[string]any {
		p := got[srv.URL+path]
		if p == nil {
			t.Fatalf("%s: no item", path)
		}
		if md, _ := p["markdown"].(string); utf8.RuneCountInString(md) > 20_000 {
			t.Errorf("%s: markdown of %d characters passes max_length", path, utf8.RuneCountInString(md))
		}
		return p
	}
	want := func(path string, codes ...string) map[string]any {
		p := page(path)
		for _, c := range codes {
			if !hasReason(p["truncated"], c) {
				t.Errorf("%s: truncated %s does not name %q", path, reasons(p), c)
			}
		}
		return p
	}

	links := want("/links", "links", "elements")
	if n := len(links["links"].([]any)); n != DefaultLimits().MaxLinks {
		t.Errorf("/links: %d links returned, want the cap %d", n, DefaultLimits().MaxLinks)
	}
	if links["links_total"] != 100_000.0 {
		t.Errorf("/links: links_total %v, want 100000", links["links_total"])
	}

	divs := want("/divs", "page_bytes", "elements")
	if !strings.Contains(divs["markdown"].(string), "Before the divs.") {
		t.Errorf("/divs: the text before the divs is lost: %q", divs["markdown"])
	}

	streamed := want("/streamed", "elements")
	if md := streamed["markdown"].(string); !strings.Contains(md, "The story's first paragraph.") || !strings.Contains(md, "streamed part 1") {
		t.Errorf("/streamed: want the first paragraph and the streamed parts: %.200q", md)
	}

	deep := want("/deep", "depth")
	if md := deep["markdown"].(string); !strings.Contains(md, "Above the nesting") || strings.Contains(md, "deep text") {
		t.Errorf("/deep: want the text above the nesting and none below the cap: %.200q", md)
	}

	want("/text", "page_bytes", "text", "max_length")

	table := want("/table", "elements", "max_length")
	if md := table["markdown"].(string); !strings.HasPrefix(md, "| Key | Value |\n|---|---|\n| key | value |") {
		t.Errorf("/table: not a GFM table: %.200q", md)
	}

	pre := want("/pre", "max_length")
	if md := pre["markdown"].(string); !strings.HasPrefix(md, "```text\na line of preformatted text\na line") {
		t.Errorf("/pre: not a fenced block keeping its lines: %.200q", md)
	}

	for path, text := range map[string]string{"/latin1": "Un café crème, naïvement servi à la terrasse", "/liar": "Un café crème, naïvement servi à la terrasse — du boulevard."} {
		if md := page(path)["markdown"].(string); !strings.Contains(md, text) {
			t.Errorf("%s: charset misread: %q", path, md)
		}
	}
	if md := page("/broken")["markdown"].(string); !utf8.ValidString(md) || !strings.Contains(md, "Café with broken \uFFFD( bytes \uFFFD and \uFFFD surrogates") {
		t.Errorf("/broken: invalid UTF-8 not replaced: %q", md)
	}
	for _, it := range items {
		if _, err := json.Marshal(it); err != nil {
			t.Errorf("%s: item does not encode: %v", it["url"], err)
		}
	}
}

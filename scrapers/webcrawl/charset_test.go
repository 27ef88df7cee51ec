package webcrawl

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// charsetPages are served with a Content-Type header that may disagree with
// the page's own <meta>: the header decides, as in a browser (a BOM before
// either).
var charsetPages = map[string]struct {
	contentType string
	body        func() []byte
}{
	"/header-1251-meta-utf8": {"text/html; charset=windows-1251", func() []byte {
		return []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2, \xec\xe8\xf0! \xdd\xf2\xee \xf1\xf2\xf0\xe0\xed\xe8\xf6\xe0 \xed\xe0 \xf0\xf3\xf1\xf1\xea\xee\xec.</p></body></html>")
	}},
	"/header-sjis-meta-latin1": {`text/html; charset="Shift_JIS"`, func() []byte {
		return []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x81\x41\x90\xa2\x8a\x45\x81\x42</p></body></html>")
	}},
	"/meta-only-1251": {"text/html", func() []byte {
		return []byte("<html><head><meta charset=\"windows-1251\"></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2, \xec\xe8\xf0!</p></body></html>")
	}},
	"/bom-beats-header": {"text/html; charset=windows-1252", func() []byte {
		return append([]byte("\xef\xbb\xbf"), "<html><body><p>Grüße aus Köln, straße.</p></body></html>"...)
	}},
}

func TestCrawlCharsetsAsBrowsersDecide(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := charsetPages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", p.contentType)
		w.Write(p.body())
	}))
	defer srv.Close()
	want := map[string]string{
		"/header-1251-meta-utf8":   "Привет, мир! Это страница на русском.",
		"/header-sjis-meta-latin1": "こんにちは、世界。",
		"/meta-only-1251":          "Привет, мир!",
		"/bom-beats-header":        "Grüße aus Köln, straße.",
	}
	var starts []string
	for path := range want {
		starts = append(starts, srv.URL+path)
	}
	items, err, out := run(t, testSettings(), map[string]any{"start_urls": starts})
	if err != nil || len(out.Failed) > 0 {
		t.Fatalf("the crawl failed: %v %+v", err, out.Failed)
	}
	got := byURL(items)
	for path, text := range want {
		p := got[srv.URL+path]
		if p == nil {
			t.Fatalf("%s: no item", path)
		}
		if md := p["markdown"].(string); !strings.Contains(md, text) {
			t.Errorf("%s: charset misread: %q, want %q", path, md, text)
		}
	}
}

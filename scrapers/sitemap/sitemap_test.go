package sitemap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func ExampleParse() {
	doc, _ := Parse([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url><loc>https://example.com/</loc><lastmod>2026-11-30</lastmod></url>
  <url><loc>https://example.com/news/rain</loc>
    <news:news><news:publication><news:name>The Example</news:name></news:publication><news:title>Rain all week</news:title></news:news>
  </url>
</urlset>`), Limits{})
	fmt.Println(doc.Kind)
	for _, e := range doc.Entries {
		fmt.Printf("%s %q %q\n", e.URL, e.LastMod, e.Title)
	}
	// Output:
	// sitemap
	// https://example.com/ "2026-11-30" ""
	// https://example.com/news/rain "" "Rain all week"
}

func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		doc      string
		kind     Kind
		entries  []Entry
		sitemaps []Entry
	}{
		{"index", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<sitemap><loc> https://e.com/s1.xml </loc><lastmod>2026-01-02T03:04:05Z</lastmod></sitemap>
			<sitemap><loc>https://e.com/s2.xml.gz</loc></sitemap></sitemapindex>`,
			KindIndex, nil, []Entry{{URL: "https://e.com/s1.xml", LastMod: "2026-01-02T03:04:05Z"}, {URL: "https://e.com/s2.xml.gz"}}},
		{"image and video titles", `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="v">
			<url><loc>https://e.com/a</loc><image:image><image:loc>https://e.com/a.png</image:loc><image:title>A picture</image:title></image:image></url>
			<url><loc>https://e.com/b</loc><video:video><video:title>A  film
			</video:title><video:content_loc>https://e.com/b.mp4</video:content_loc></video:video></url>
			<url><lastmod>2026-01-01</lastmod></url></urlset>`,
			KindURLSet, []Entry{{URL: "https://e.com/a", Title: "A picture"}, {URL: "https://e.com/b", Title: "A film"}}, nil},
		{"rss 2.0", `<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Blog</title><link>https://e.com/</link>
			<item><title>Caf` + "\xe9" + ` opens</title><link>https://e.com/cafe</link><pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item>
			<item><title>Perma</title><guid>https://e.com/perma</guid></item>
			<item><title>No link</title><guid isPermaLink="false">tag:1</guid></item></channel></rss>`,
			KindRSS, []Entry{{URL: "https://e.com/cafe", LastMod: "2026-12-01T10:00:00Z", Title: "Café opens"}, {URL: "https://e.com/perma", Title: "Perma"}}, nil},
		{"rss 1.0", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
			<channel rdf:about="https://e.com/"><title>x</title></channel>
			<item rdf:about="https://e.com/one"><title>One</title><link>https://e.com/one</link><dc:date>2026-11-02T01:00:00+01:00</dc:date></item></rdf:RDF>`,
			KindRSS, []Entry{{URL: "https://e.com/one", LastMod: "2026-11-02T01:00:00+01:00", Title: "One"}}, nil},
		{"atom", `<feed xmlns="http://www.w3.org/2005/Atom"><title>F</title><link href="https://e.com/"/>
			<entry><title type="html">Post &amp; more</title><link rel="edit" href="https://e.com/edit/1"/><link rel="alternate" href="/p/1"/><updated>2026-10-01T00:00:00Z</updated><author><name>Ann</name></author></entry>
			<entry><title>Two</title><link href="https://e.com/p/2"/><published>2026-09-01T00:00:00Z</published></entry></feed>`,
			KindAtom, []Entry{{URL: "/p/1", LastMod: "2026-10-01T00:00:00Z", Title: "Post & more"}, {URL: "https://e.com/p/2", LastMod: "2026-09-01T00:00:00Z", Title: "Two"}}, nil},
		{"text", "\ufeffhttps://e.com/a\r\n\nhttps://e.com/b\n", KindText, []Entry{{URL: "https://e.com/a"}, {URL: "https://e.com/b"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse([]byte(tc.doc), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Kind != tc.kind || !reflect.DeepEqual(doc.Entries, tc.entries) || !reflect.DeepEqual(doc.Sitemaps, tc.sitemaps) || len(doc.Notes) > 0 {
				t.Fatalf("got %s %+v %+v notes %q\nwant %s %+v %+v", doc.Kind, doc.Entries, doc.Sitemaps, doc.Notes, tc.kind, tc.entries, tc.sitemaps)
			}
		})
	}
}

func TestNotASitemap(t *testing.T) {
	for _, doc := range []string{"", "<html><body>hi</body></html>", "just some words\nand more\nand more", "<<<", "<?xml version='1.0'?>"} {
		if d, err := Parse([]byte(doc), Limits{}); err == nil {
			t.Errorf("%q read as a %s: %+v", doc, d.Kind, d)
		}
	}
}

func TestBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := range 100 {
		fmt.Fprintf(&b, "<url><loc>https://e.com/%d</loc></url>", i)
	}
	b.WriteString("</urlset>")
	doc, err := Parse([]byte(b.String()), Limits{MaxEntries: 10})
	if err != nil || len(doc.Entries) != 10 || !doc.More || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "more than 10") {
		t.Fatalf("cut at 10 entries: %d entries, more %v, notes %q, err %v", len(doc.Entries), doc.More, doc.Notes, err)
	}
	// Broken part way: what came before is kept, noted.
	doc, err = Parse([]byte(b.String()[:200]), Limits{})
	if err != nil || len(doc.Entries) == 0 || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "broken") {
		t.Fatalf("a document cut short: %d entries, notes %q, err %v", len(doc.Entries), doc.Notes, err)
	}
	// A field past MaxField is dropped, not kept cut.
	long := "<urlset><url><loc>https://e.com/" + strings.Repeat("a", 5000) + "</loc></url><url><loc>https://e.com/ok</loc></url></urlset>"
	doc, _ = Parse([]byte(long), Limits{})
	if len(doc.Entries) != 1 || doc.Entries[0].URL != "https://e.com/ok" {
		t.Fatalf("an overlong loc: %+v", doc.Entries)
	}
	// Tokens.
	doc, _ = Parse([]byte(b.String()), Limits{MaxTokens: 50})
	if len(doc.Entries) >= 100 || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "50 XML tokens") {
		t.Fatalf("token bound: %d entries, notes %q", len(doc.Entries), doc.Notes)
	}
}

func TestGunzipBomb(t *testing.T) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	zeros := make([]byte, 1<<20)
	for range 64 { // 64 MiB of zeros, about 64 KiB compressed
		w.Write(zeros)
	}
	w.Close()
	out, cut, err := Gunzip(z.Bytes(), 1<<20)
	if err != nil || !cut || len(out) != 1<<20 {
		t.Fatalf("a 64 MiB bomb under a 1 MiB bound: %d bytes, cut %v, err %v", len(out), cut, err)
	}
	// Whole, and broken.
	var small bytes.Buffer
	w = gzip.NewWriter(&small)
	w.Write([]byte("<urlset><url><loc>https://e.com/</loc></url></urlset>"))
	w.Close()
	out, cut, err = Gunzip(small.Bytes(), 1<<20)
	if err != nil || cut || !strings.HasPrefix(string(out), "<urlset>") {
		t.Fatalf("a small gzip: %q %v %v", out, cut, err)
	}
	if _, _, err = Gunzip(small.Bytes()[:len(small.Bytes())-12], 1<<20); err == nil {
		t.Fatal("a broken gzip stream read without an error")
	}
	if _, _, err = Gunzip([]byte("plain"), 10); err == nil {
		t.Fatal("plain text read as gzip")
	}
}

func TestCanonical(t *testing.T) {
	base, _ := url.Parse("https://Example.COM/dir/page")
	for raw, want := range map[string]string{
		"HTTPS://WWW.Example.com:443/a/../b?q=1#frag": "https://www.example.com/b?q=1",
		"../up":                      "https://example.com/up",
		"//other.org":                "https://other.org/",
		"/a b":                       "https://example.com/a%20b",
		"http://example.com:80/x/./": "http://example.com/x/",
	} {
		u, err := Canonical(raw, base)
		if err != nil || u.String() != want {
			t.Errorf("Canonical(%q) = %v, %v; want %s", raw, u, err, want)
		}
	}
	for _, raw := range []string{"mailto:a@b.c", "javascript:alert(1)", "https://u:p@e.com/", "", "ftp://e.com/", strings.Repeat("a", 5000)} {
		if u, err := Canonical(raw, base); err == nil {
			t.Errorf("Canonical(%q) = %v, want an error", raw, u)
		}
	}
	if !SameSite("WWW.Example.com.", "example.com", false) || SameSite("blog.example.com", "example.com", false) ||
		!SameSite("blog.example.com", "example.com", true) || SameSite("badexample.com", "example.com", true) {
		t.Fatal("SameSite")
	}
}

func TestReadPage(t *testing.T) {
	base, _ := url.Parse("https://e.com/dir/")
	page := `<html><head><title> The
		page </title><base href="/root/"><link rel="alternate" type="application/rss+xml" href="/feed.xml">
		<link rel="alternate" type="application/atom+xml" href="https://e.com/atom">
		<link rel="alternate" hreflang="fr" href="/fr/"><link rel="sitemap" type="application/xml" href="/sm.xml"></head>
		<body><a href="a">The <b>A</b> page</a><script>var a = "<a href=x>"</script>
		<a href="a#top">again</a><a href="mailto:x@e.com">mail</a><a href="/b" title="Bee"><img alt=""></a>
		<a href="/c" rel="nofollow">no</a><a href="/d">` + strings.Repeat("d", 400) + `</a></body></html>`
	pl := ReadPage([]byte(page), base, 10)
	want := []Entry{{URL: "https://e.com/root/a", Title: "The A page"}, {URL: "https://e.com/b", Title: "Bee"}, {URL: "https://e.com/d", Title: strings.Repeat("d", 200) + "…"}}
	if !reflect.DeepEqual(pl.Links, want) || pl.Cut || pl.Title != "The page" {
		t.Fatalf("links: %+v cut %v title %q", pl.Links, pl.Cut, pl.Title)
	}
	if !reflect.DeepEqual(pl.Feeds, []string{"https://e.com/feed.xml", "https://e.com/atom"}) || !reflect.DeepEqual(pl.Sitemaps, []string{"https://e.com/sm.xml"}) {
		t.Fatalf("feeds %q sitemaps %q", pl.Feeds, pl.Sitemaps)
	}
	if pl := ReadPage([]byte(page), base, 1); len(pl.Links) != 1 || !pl.Cut {
		t.Fatalf("cut at one link: %+v", pl)
	}
}

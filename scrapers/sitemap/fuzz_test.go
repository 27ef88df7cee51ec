package sitemap

import (
	"bytes"
	"compress/gzip"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

var xmlSeeds = []string{
	`<urlset><url><loc>https://e.com/</loc><lastmod>2026-01-01</lastmod></url></urlset>`,
	`<sitemapindex><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>`,
	`<urlset xmlns:news="n"><url><loc>https://e.com/n</loc><news:news><news:title>T</news:title></news:news></url></urlset>`,
	`<?xml version="1.0" encoding="windows-1252"?><rss><channel><item><title>` + "\x93q\x94" + `</title><link>https://e.com/x</link><pubDate>Mon, 2 Jan 2006 15:04:05 -0700</pubDate></item></channel></rss>`,
	`<rdf:RDF><item rdf:about="https://e.com/r"><title>r</title></item></rdf:RDF>`,
	`<feed><entry><link href="/a"/><link rel="alternate" href="/b"/><title>t</title><updated>x</updated></entry></feed>`,
	"https://e.com/a\nhttps://e.com/b\n",
	`<urlset><url><loc>https://e.com/<url><loc>x</loc></url></loc></url>`,
	`<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><urlset><url><loc>&a;&a;&a;</loc></url></urlset>`,
	`<urlset><url><loc><![CDATA[https://e.com/c]]></loc></url></urlset>`,
	strings.Repeat("<sitemapindex>", 200),
}

// FuzzParse reads arbitrary bytes as a sitemap or feed: never a panic,
// never more entries than the bound, every title short and valid UTF-8.
func FuzzParse(f *testing.F) {
	for _, s := range xmlSeeds {
		f.Add([]byte(s))
	}
	lim := Limits{MaxEntries: 20, MaxTokens: 5000, MaxField: 512, MaxTitleLen: 40}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Parse(b, lim)
		if err != nil {
			if len(doc.Entries)+len(doc.Sitemaps) > 0 {
				t.Fatalf("an error with entries: %v", err)
			}
			return
		}
		if n := len(doc.Entries) + len(doc.Sitemaps); n > lim.MaxEntries {
			t.Fatalf("%d entries past the bound of %d", n, lim.MaxEntries)
		}
		for _, e := range append(doc.Entries, doc.Sitemaps...) {
			if e.URL == "" || len(e.URL) > lim.MaxField || len(e.LastMod) > 64*3 {
				t.Fatalf("entry out of bounds: %+v", e)
			}
			if !utf8.ValidString(e.Title) || utf8.RuneCountInString(e.Title) > lim.MaxTitleLen+1 {
				t.Fatalf("title %q", e.Title)
			}
		}
	})
}

// FuzzGunzip decompresses arbitrary bytes under a bound: never more than
// the bound out.
func FuzzGunzip(f *testing.F) {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(bytes.Repeat([]byte("<url>"), 10000))
	w.Close()
	f.Add(z.Bytes())
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, cut, _ := Gunzip(b, 4096)
		if len(out) > 4096 || cut && len(out) != 4096 {
			t.Fatalf("%d bytes out, cut %v", len(out), cut)
		}
	})
}

// FuzzReadPage reads arbitrary bytes as a page: links within the bound,
// each an http or https URL without a fragment.
func FuzzReadPage(f *testing.F) {
	for _, s := range []string{
		`<base href="//x.org/"><a href="a">a</a><a href="#">top</a><link rel=alternate type=application/rss+xml href=/f>`,
		`<a href="javascript:x">j</a><a href=" https://E.com/ ">e</a><area href=/m>`,
		`<a href=/a><a href=/b>` + strings.Repeat("<b>", 100),
	} {
		f.Add([]byte(s))
	}
	base, _ := url.Parse("https://e.com/p")
	f.Fuzz(func(t *testing.T, b []byte) {
		pl := ReadPage(b, base, 5)
		if len(pl.Links) > 5 || len(pl.Feeds) > 20 {
			t.Fatalf("%d links, %d feeds", len(pl.Links), len(pl.Feeds))
		}
		for _, l := range pl.Links {
			u, err := url.Parse(l.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Fragment != "" || !utf8.ValidString(l.Title) {
				t.Fatalf("link %+v", l)
			}
		}
	})
}

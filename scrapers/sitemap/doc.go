// Package sitemap reads the documents a site lists its pages in: XML
// sitemaps (urlset and sitemapindex, with the news, image and video
// extensions' titles), plain-text sitemaps, RSS 1.0 and 2.0 and Atom feeds,
// gzipped or not, and the links and feed links of an HTML page. It only
// parses: fetching, politeness and robots.txt are its caller's (web-crawl's
// map tool).
//
// Every reader is bounded, since the documents come from sites that may be
// hostile: the bytes read and decompressed ([Gunzip] cuts a gzip bomb at its
// bound), the entries kept, the length of each field, and the tokens
// scanned. A document cut at a bound says so in its Notes; a document that
// is broken part way gives what came before the break, and says so.
//
// A file per idea: xml.go (sitemaps and feeds with encoding/xml), text.go
// (plain-text sitemaps), gzip.go (bounded decompression), html.go (a page's
// links and feeds), canonical.go (one spelling per URL).
package sitemap

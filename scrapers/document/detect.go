package document

import (
	"bytes"
	"mime"
	"net/url"
	"path"
	"strings"
)

// Detect says which kind of document a response is, from its media type
// (the Content-Type without parameters) first; for a type that says nothing
// (application/octet-stream, binary/octet-stream, none), from the URL's
// extension and then the first bytes. "" means it is not one of these:
// a web page, or a kind this package does not convert.
func Detect(mediaType string, u *url.URL, head []byte) Kind {
	mt := strings.ToLower(strings.TrimSpace(mediaType))
	if parsed, _, err := mime.ParseMediaType(mt); err == nil {
		mt = parsed
	}
	switch mt {
	case "application/pdf", "application/x-pdf", "application/acrobat", "applications/vnd.pdf", "text/pdf", "text/x-pdf":
		return PDF
	case "text/markdown", "text/x-markdown":
		return Markdown
	case "application/json", "text/json", "application/ld+json", "application/problem+json", "application/geo+json", "application/x-ndjson":
		return JSON
	case "text/csv", "application/csv", "text/tab-separated-values", "text/x-csv":
		return CSV
	case "application/rss+xml", "application/atom+xml", "application/feed+json", "application/x-rss+xml", "application/rdf+xml":
		return Feed
	case "text/plain":
		// A server names many files text/plain: the extension tells better.
		switch byExtension(u) {
		case Markdown, CSV, JSON:
			return byExtension(u)
		}
		return Text
	case "text/xml", "application/xml":
		if looksLikeFeed(head) {
			return Feed
		}
		return ""
	case "", "application/octet-stream", "binary/octet-stream", "application/x-download", "application/download", "application/force-download", "application/unknown":
		if k := byExtension(u); k != "" {
			return k
		}
		return sniff(head)
	}
	if strings.HasSuffix(mt, "+json") {
		return JSON
	}
	if strings.HasPrefix(mt, "application/vnd.openxmlformats-officedocument.") || strings.HasPrefix(mt, "application/vnd.oasis.opendocument.") ||
		strings.HasPrefix(mt, "application/vnd.ms-") || mt == "application/msword" || mt == "application/epub+zip" || mt == "application/rtf" {
		return Office
	}
	return ""
}

func byExtension(u *url.URL) Kind {
	if u == nil {
		return ""
	}
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".pdf":
		return PDF
	case ".md", ".markdown":
		return Markdown
	case ".txt":
		return Text
	case ".json":
		return JSON
	case ".csv", ".tsv":
		return CSV
	case ".rss", ".atom":
		return Feed
	case ".docx", ".doc", ".xlsx", ".xls", ".pptx", ".ppt", ".odt", ".ods", ".odp", ".epub", ".rtf":
		return Office
	}
	return ""
}

// sniff reads the first bytes: %PDF-, a feed's root element, JSON.
func sniff(head []byte) Kind {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(h, []byte("%PDF-")) || bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")):
		return PDF
	case looksLikeFeed(h):
		return Feed
	case len(h) > 0 && (h[0] == '{' || h[0] == '['):
		return JSON
	}
	return ""
}

func looksLikeFeed(head []byte) bool {
	h := head[:min(len(head), 2048)]
	return bytes.Contains(h, []byte("<rss")) || bytes.Contains(h, []byte("<feed")) && bytes.Contains(h, []byte("http://www.w3.org/2005/Atom")) || bytes.Contains(h, []byte("<rdf:RDF"))
}

package sitemap

import (
	"bytes"
	"fmt"
	"strings"
)

// parseText reads a plain-text sitemap: one absolute http or https URL a
// line (the sitemap protocol's text form). Lines that are not such URLs are
// skipped; a document with none is not a sitemap.
func parseText(b []byte, lim Limits) (Doc, error) {
	doc := Doc{Kind: KindText}
	skipped := 0
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		if len(s) > lim.MaxField || !(strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) || strings.ContainsAny(s, " \t<>\"") {
			skipped++
			if len(doc.Entries) == 0 && skipped >= 3 {
				return Doc{Kind: KindUnknown}, fmt.Errorf("not a sitemap or feed: it starts with lines that are not URLs")
			}
			continue
		}
		if len(doc.Entries) >= lim.MaxEntries {
			doc.More = true
			doc.Notes = append(doc.Notes, fmt.Sprintf("the document names more than %d entries; the rest were not read", lim.MaxEntries))
			break
		}
		doc.Entries = append(doc.Entries, Entry{URL: s})
	}
	if len(doc.Entries) == 0 {
		return Doc{Kind: KindUnknown}, fmt.Errorf("not a sitemap or feed: no URL in it")
	}
	if skipped > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d lines were not URLs and were skipped", skipped))
	}
	return doc, nil
}

package webcrawl

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
)

// toUTF8 decodes a page to UTF-8, choosing its encoding in the HTML
// standard's order: a byte order mark, then the Content-Type header's
// charset, then the page's <meta> (in its first 1,024 bytes), then
// detection; so when the header and <meta> disagree, the header decides, as
// in a browser. One exception comes first: bytes that are valid UTF-8 are
// taken as UTF-8 whatever the page or its headers claim (a legacy charset
// almost never yields valid multi-byte UTF-8 by chance, while pages that say
// latin-1 and send UTF-8 are common). Otherwise the declared charset decodes it. A page that claims UTF-8, or claims nothing, and holds
// valid multi-byte sequences is UTF-8 with stray bytes, each run of them
// becoming U+FFFD; one that claims UTF-8 without a single valid multi-byte
// sequence is read as Windows-1252, as is an undeclared one. The second result names the charset used.
func toUTF8(body []byte, contentType string) ([]byte, string) {
	if utf8.Valid(body) {
		return body, "utf-8"
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || !certain {
		if hasMultibyteUTF8(body) {
			// UTF-8 with stray bytes, as said or as it looks.
			return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
		}
		if name == "utf-8" {
			enc, name = charmap.Windows1252, "windows-1252"
		}
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
	}
	return bytes.ToValidUTF8(out, []byte("\uFFFD")), name
}

func hasMultibyteUTF8(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if size > 1 && r != utf8.RuneError {
			return true
		}
		b = b[size:]
	}
	return false
}

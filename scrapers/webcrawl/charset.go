package webcrawl

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
)

// toUTF8 decodes a page to UTF-8. Bytes that are valid UTF-8 are taken as
// UTF-8 whatever the page or its headers claim (a legacy charset almost never
// yields valid multi-byte UTF-8 by chance, while pages that say latin-1 and
// send UTF-8 are common). Otherwise the declared charset (Content-Type, BOM,
// <meta>) decodes it; a page that claims UTF-8 but holds not one valid
// multi-byte sequence is read as Windows-1252, and any byte still invalid
// becomes U+FFFD. The second result names the charset used.
func toUTF8(body []byte, contentType string) ([]byte, string) {
	if utf8.Valid(body) {
		return body, "utf-8"
	}
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" {
		if !hasMultibyteUTF8(body) {
			enc, name = charmap.Windows1252, "windows-1252"
		} else {
			return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
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

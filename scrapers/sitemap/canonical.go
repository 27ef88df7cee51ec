package sitemap

import (
	"fmt"
	"net/url"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// parser spells URLs as browsers do (the WHATWG URL standard): scheme and
// host lower case, default ports dropped, an empty path as "/", dot
// segments resolved, what must be escaped escaped.
var parser = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// MaxURLLength is the longest URL kept (the sitemap protocol allows 2,048
// characters; a little more is room for escaping).
const MaxURLLength = 4096

// Canonical resolves raw against base (nil: raw must be absolute) and
// returns it in one spelling: WHATWG's, without its fragment. Only http and
// https URLs without credentials are kept; anything else is an error.
func Canonical(raw string, base *url.URL) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("an empty URL")
	}
	if len(raw) > MaxURLLength {
		return nil, fmt.Errorf("a URL of %d characters, more than %d", len(raw), MaxURLLength)
	}
	var w *whatwg.Url
	var err error
	if base != nil {
		w, err = parser.ParseRef(base.String(), raw)
	} else {
		w, err = parser.Parse(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", truncate(raw, 100))
	}
	if s := w.Protocol(); s != "http:" && s != "https:" {
		return nil, fmt.Errorf("%q is not an http or https URL", truncate(raw, 100))
	}
	if w.Username() != "" || w.Password() != "" {
		return nil, fmt.Errorf("a URL with credentials")
	}
	href := w.Href(true)
	u, err := url.Parse(href)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not a URL with a host", truncate(raw, 100))
	}
	return u, nil
}

// SiteHost folds a host name to its site: lower case, without a final dot
// or a leading www., so that example.com and www.example.com are one site.
func SiteHost(h string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(h, ".")), "www.")
}

// SameSite says whether host is site's own (www. folded), or with
// subdomains, any host under it.
func SameSite(host, site string, subdomains bool) bool {
	h := SiteHost(host)
	return h == site || subdomains && strings.HasSuffix(h, "."+site)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

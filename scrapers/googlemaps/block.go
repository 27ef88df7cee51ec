package googlemaps

import (
	"bytes"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// detectBlock says whether Google answered with its "unusual traffic" page
// (/sorry/, reCAPTCHA) or its cookie-consent wall instead of Maps data. A
// bare 429 is left to the fetcher, which retries it; one that persists
// becomes a rate-limit block (scrapers.RateLimited).
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		return &scrapers.BlockedError{Site: "Google Maps", Kind: kind, URL: r.Request.URL}
	}
	if r.URL != nil {
		host := strings.ToLower(r.URL.Hostname())
		if strings.HasPrefix(r.URL.Path, "/sorry/") {
			return blocked(scrapers.BlockCaptcha)
		}
		if strings.HasPrefix(host, "consent.") {
			return blocked(scrapers.BlockConsentWall)
		}
	}
	body := r.Body
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte(xssiPrefix)) {
		return nil // a JSON answer is data
	}
	if bytes.Contains(body, []byte(`id="captcha-form"`)) || bytes.Contains(body, []byte("detected unusual traffic")) ||
		bytes.Contains(body, []byte("/sorry/index")) && bytes.Contains(body, []byte("g-recaptcha")) {
		return blocked(scrapers.BlockCaptcha)
	}
	if bytes.Contains(body, []byte(`action="https://consent.google.`)) {
		return blocked(scrapers.BlockConsentWall)
	}
	return nil
}

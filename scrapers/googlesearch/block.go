package googlesearch

import (
	"bytes"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// siteName is how errors name Google.
const siteName = "Google"

// detectBlock recognises Google's answers that are not results: the "unusual
// traffic" captcha (/sorry/ and its form), the consent interstitial, and the
// page that demands JavaScript.
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	if r.URL != nil {
		host := strings.ToLower(r.URL.Hostname())
		switch {
		case strings.HasPrefix(r.URL.Path, "/sorry/"):
			return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockCaptcha}
		case strings.HasPrefix(host, "consent.google."):
			return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockConsentWall}
		case strings.HasPrefix(r.URL.Path, "/httpservice/retry/enablejs"):
			return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRobotCheck}
		}
	}
	b := r.Body
	switch {
	case bytes.Contains(b, []byte(`id="captcha-form"`)),
		bytes.Contains(b, []byte("Our systems have detected unusual traffic")),
		bytes.Contains(b, []byte("/sorry/index")) && bytes.Contains(b, []byte("g-recaptcha")):
		return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockCaptcha}
	case bytes.Contains(b, []byte(`action="https://consent.google.`)):
		return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockConsentWall}
	case bytes.Contains(b, []byte("/httpservice/retry/enablejs")) && !bytes.Contains(b, []byte(`id="rso"`)):
		return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRobotCheck}
	}
	return nil
}

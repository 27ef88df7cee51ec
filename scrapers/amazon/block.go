package amazon

import (
	"bytes"
	"net/http"

	"github.com/surfsense/pluginhost/scrapers"
)

// Amazon answers a scraper it distrusts in two ways: a captcha page (a form
// posting to /errors/validateCaptcha, "Enter the characters you see below",
// served with 200 or 503) and the "Sorry! Something went wrong" page with the
// dogs of Amazon, served with 503 when it throttles.
var (
	captchaMarks = [][]byte{
		[]byte("/errors/validateCaptcha"),
		[]byte("Enter the characters you see below"),
		[]byte("Type the characters you see in this image"),
	}
	throttleMarks = [][]byte{
		[]byte("Sorry! Something went wrong"),
		[]byte("Dogs of Amazon"),
		[]byte("ref=cs_503_link"),
	}
)

// detectBlock is the Site.DetectBlock of Amazon.
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	for _, m := range captchaMarks {
		if bytes.Contains(r.Body, m) {
			return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockCaptcha, URL: requestURL(r)}
		}
	}
	// The dog pictures also illustrate Amazon's 404 page; only a 5xx is a
	// throttle.
	if r.StatusCode >= http.StatusInternalServerError {
		for _, m := range throttleMarks {
			if bytes.Contains(r.Body, m) {
				return &scrapers.BlockedError{Site: siteName, Kind: scrapers.BlockRateLimited, URL: requestURL(r)}
			}
		}
	}
	return nil
}

func requestURL(r *scrapers.Response) string {
	if r.Request != nil {
		return r.Request.URL
	}
	if r.URL != nil {
		return r.URL.String()
	}
	return ""
}

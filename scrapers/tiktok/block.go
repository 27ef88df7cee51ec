package tiktok

import (
	"bytes"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// Markers of TikTok's captcha ("verify") pages and of its captcha answer to
// API calls.
var captchaMarkers = [][]byte{
	[]byte("tiktok-verify-page"),
	[]byte("captcha-verify-container"),
	[]byte("captcha_verify_container"),
	[]byte(`id="captcha_container"`),
}

// Markers of real data: a page holding them is not a block page even when a
// captcha script is mentioned in it.
var dataMarkers = [][]byte{
	[]byte(`"itemStruct"`),
	[]byte(`"userInfo"`),
	[]byte(`"challengeInfo"`),
	[]byte(`"itemList"`),
}

// detectBlock says whether TikTok answered with a captcha or a login wall
// instead of content. A 429 is left to the fetcher, which retries it; one
// that persists becomes a rate-limit block (scrapers.RateLimited).
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		return &scrapers.BlockedError{Site: "TikTok", Kind: kind, URL: r.Request.URL}
	}
	if r.URL != nil {
		p := strings.ToLower(r.URL.Path)
		if strings.HasPrefix(p, "/login") || strings.HasPrefix(p, "/signup") {
			return blocked(scrapers.BlockLoginWall)
		}
	}
	for _, m := range dataMarkers {
		if bytes.Contains(r.Body, m) {
			return nil
		}
	}
	for _, m := range captchaMarkers {
		if bytes.Contains(r.Body, m) {
			return blocked(scrapers.BlockCaptcha)
		}
	}
	// The API answers a flagged client with a small JSON verify challenge.
	if len(r.Body) < 8<<10 && bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte("{")) &&
		(bytes.Contains(r.Body, []byte(`"type":"verify"`)) || bytes.Contains(r.Body, []byte(`"verify_event"`))) {
		return blocked(scrapers.BlockCaptcha)
	}
	return nil
}

package indeed

import (
	"bytes"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// detectBlock says whether Indeed answered with a Cloudflare challenge, an
// hCaptcha or a sign-in wall instead of content. A bare 429 is left to the
// fetcher, which retries it; one that persists becomes a rate-limit block
// (scrapers.RateLimited).
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		return &scrapers.BlockedError{Site: "Indeed", Kind: kind, URL: r.Request.URL}
	}
	if r.URL != nil {
		p := strings.ToLower(r.URL.Path)
		if strings.HasPrefix(p, "/auth") || strings.HasPrefix(p, "/account/login") {
			return blocked(scrapers.BlockLoginWall)
		}
	}
	if strings.EqualFold(r.Header.Get("cf-mitigated"), "challenge") {
		return blocked(scrapers.BlockRobotCheck)
	}
	body := r.Body
	// Job cards or job data make a page a page, whatever scripts it loads
	// (real job pages load Cloudflare's challenge-platform script too).
	if mosaicJobCards.match(body) || initialData.match(body) {
		return nil
	}
	if bytes.Contains(body, []byte("_cf_chl_opt")) || bytes.Contains(body, []byte("<title>Just a moment...</title>")) {
		return blocked(scrapers.BlockRobotCheck)
	}
	if bytes.Contains(body, []byte("hcaptcha.com/1/api.js")) || bytes.Contains(body, []byte(`class="h-captcha"`)) {
		return blocked(scrapers.BlockCaptcha)
	}
	return nil
}

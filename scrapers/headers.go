package scrapers

import (
	"math/rand/v2"
	"net/http"
)

// browserProfile is one desktop browser's request headers. The User-Agent and
// the client hints (sec-ch-ua*) must agree, or a site sees a forgery.
type browserProfile struct {
	userAgent string
	secChUA   string
	platform  string
}

// browserProfiles are current desktop Chromium-family browsers. A fetcher
// keeps one profile per exit (direct, or each proxy) so that one address
// always looks like one browser.
var browserProfiles = []browserProfile{
	{
		userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		secChUA:   `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`,
		platform:  `"Windows"`,
	},
	{
		userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		secChUA:   `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`,
		platform:  `"macOS"`,
	},
	{
		userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
		secChUA:   `"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"`,
		platform:  `"Windows"`,
	},
	{
		userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		secChUA:   `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`,
		platform:  `"Linux"`,
	},
}

func randomProfile() browserProfile {
	return browserProfiles[rand.IntN(len(browserProfiles))]
}

// header returns the headers this browser sends with a top-level navigation
// (GET) or with a script's request (anything else). Accept-Encoding is left
// to the transport, which then decompresses gzip itself.
func (p browserProfile) header(method string) http.Header {
	h := http.Header{}
	h.Set("User-Agent", p.userAgent)
	h.Set("Accept-Language", "en-US,en;q=0.9")
	h.Set("Sec-Ch-Ua", p.secChUA)
	h.Set("Sec-Ch-Ua-Mobile", "?0")
	h.Set("Sec-Ch-Ua-Platform", p.platform)
	if method == http.MethodGet || method == "" {
		h.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8")
		h.Set("Sec-Fetch-Dest", "document")
		h.Set("Sec-Fetch-Mode", "navigate")
		h.Set("Sec-Fetch-Site", "none")
		h.Set("Sec-Fetch-User", "?1")
		h.Set("Upgrade-Insecure-Requests", "1")
	} else {
		h.Set("Accept", "*/*")
		h.Set("Sec-Fetch-Dest", "empty")
		h.Set("Sec-Fetch-Mode", "cors")
		h.Set("Sec-Fetch-Site", "same-origin")
	}
	return h
}

package reddit

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// Reddit's own block kinds, beside the shared ones (login wall, rate
// limited).
const (
	// blockNetwork is the 403 page Reddit serves clients it will not answer
	// anonymously ("You've been blocked by network security").
	blockNetwork = "network-security block page (HTTP 403)"
	// blockHTML is a web page (an interstitial, a challenge) served where a
	// .json endpoint was asked for.
	blockHTML = "web page where JSON was asked for"
)

// Markers of Reddit's block pages, current and older.
var networkBlockMarkers = [][]byte{
	[]byte("blocked by network security"),
	[]byte("Your request has been blocked due to a network policy"),
	[]byte("whoa there, pardner!"),
}

// detectBlock says whether Reddit answered with a login wall, its
// network-security block page, or a web page where JSON was asked for. A
// 429 is left to the fetcher, which retries it; one that persists becomes a
// rate-limit block (scrapers.RateLimited). A JSON error (a private or
// banned subreddit) is no block: the source failed, the site did not.
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		return &scrapers.BlockedError{Site: "Reddit", Kind: kind, URL: r.Request.URL}
	}
	if r.URL != nil {
		p := strings.ToLower(r.URL.Path)
		if strings.HasPrefix(p, "/login") || strings.HasPrefix(p, "/account/login") || strings.HasPrefix(p, "/over18") ||
			strings.HasPrefix(strings.ToLower(r.URL.Hostname()), "accounts.reddit.") {
			return blocked(scrapers.BlockLoginWall)
		}
	}
	if r.StatusCode == http.StatusTooManyRequests {
		return nil
	}
	html := looksHTML(r.Body)
	if html || r.StatusCode == http.StatusForbidden {
		for _, m := range networkBlockMarkers {
			if bytes.Contains(r.Body, m) {
				return blocked(blockNetwork)
			}
		}
	}
	if html && askedJSON(r.Request.URL) && r.StatusCode < 500 {
		return blocked(blockHTML)
	}
	return nil
}

// looksHTML reports whether a body is a web page rather than JSON.
func looksHTML(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '<'
}

// askedJSON reports whether a request was for one of Reddit's .json
// endpoints.
func askedJSON(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.HasSuffix(u.Path, ".json")
}

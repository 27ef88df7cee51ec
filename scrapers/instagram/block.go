package instagram

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// detectBlock says whether Instagram answered with a login wall (its login
// page, or the API's require_login answer, which it often gives anonymous
// readers today), a checkpoint challenge, or its "Please wait a few
// minutes" rate limit. A bare 429 is left to the fetcher, which retries it;
// one that persists becomes a rate-limit block (scrapers.RateLimited).
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		return &scrapers.BlockedError{Site: "Instagram", Kind: kind, URL: r.Request.URL}
	}
	if r.URL != nil {
		p := strings.ToLower(r.URL.Path)
		switch {
		case strings.HasPrefix(p, "/accounts/login"):
			return blocked(scrapers.BlockLoginWall)
		case strings.HasPrefix(p, "/challenge"):
			return blocked(scrapers.BlockRobotCheck)
		}
	}
	body := r.Body
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' && len(t) < 16<<10 {
		switch {
		case bytes.Contains(t, []byte(`"checkpoint_required"`)) || bytes.Contains(t, []byte(`"challenge_required"`)):
			return blocked(scrapers.BlockRobotCheck)
		case bytes.Contains(t, []byte(`"require_login":true`)) || bytes.Contains(t, []byte(`"require_login": true`)) || bytes.Contains(t, []byte(`"login_required"`)):
			return blocked(scrapers.BlockLoginWall)
		case bytes.Contains(t, []byte("Please wait a few minutes")):
			return blocked(scrapers.BlockRateLimited)
		}
	}
	if r.StatusCode == http.StatusTooManyRequests {
		return nil
	}
	// A login page served in place of the post (no redirect): its form and
	// none of the data a post page carries.
	if bytes.Contains(body, []byte(`id="loginForm"`)) && !bytes.Contains(body, []byte("xdt_api__v1__media__shortcode__web_info")) && !bytes.Contains(body, []byte("shortcode_media")) {
		return blocked(scrapers.BlockLoginWall)
	}
	return nil
}

package instagram

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
)

// blockErrorPage is the kind of block Instagram's error page is: the web
// app's shell saying "Something went wrong … the page could not be loaded",
// which it serves in place of an API answer or a page it will not show
// this reader.
const blockErrorPage = "generic error page"

// errorPageMarkers are the words of that page.
var errorPageMarkers = [][]byte{
	[]byte("Something went wrong"),
	[]byte("page could not be loaded"),
	[]byte("Page couldn't load"),
	[]byte("Page couldn\u2019t load"),
	[]byte("Page couldn’t load"),
}

// dataMarkers are what a page holding a post or a profile carries.
var dataMarkers = [][]byte{
	[]byte("xdt_api__v1__media__shortcode__web_info"),
	[]byte("shortcode_media"),
	[]byte(`property="og:title"`),
}

// detectBlock says whether Instagram answered with a login wall (its login
// page, or the API's require_login answer, which it often gives anonymous
// readers today), a checkpoint challenge, its "Please wait a few minutes"
// rate limit, or its error page (the app shell in place of an API answer,
// or saying something went wrong). A bare 429 is left to the fetcher, which
// retries it; one that persists becomes a rate-limit block
// (scrapers.RateLimited).
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
	hasData := false
	for _, m := range dataMarkers {
		if bytes.Contains(body, m) {
			hasData = true
			break
		}
	}
	// A login page served in place of the post (no redirect): its form and
	// none of the data a post page carries.
	if bytes.Contains(body, []byte(`id="loginForm"`)) && !hasData {
		return blocked(scrapers.BlockLoginWall)
	}
	// HTML where the API answers JSON is the web app's shell: Instagram
	// will not answer this reader (a 404 is left to the caller, which says
	// the account or post does not exist).
	if r.URL != nil && isAPIPath(r.URL.Path) && r.StatusCode != http.StatusNotFound {
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '<' {
			return blocked(blockErrorPage)
		}
	}
	if !hasData && r.StatusCode != http.StatusNotFound {
		for _, m := range errorPageMarkers {
			if bytes.Contains(body, m) {
				return blocked(blockErrorPage)
			}
		}
	}
	return nil
}

// isAPIPath says whether path is one of the endpoints that answer JSON.
func isAPIPath(path string) bool {
	p := strings.ToLower(path)
	return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/graphql")
}

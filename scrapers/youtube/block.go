package youtube

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

// siteName is how errors name the site.
const siteName = "YouTube"

// detectBlock says whether a response is one of YouTube's block pages rather
// than content:
//
//   - the cookie-consent interstitial (a redirect to consent.youtube.com or
//     consent.google.com, or a page whose form posts there) is a consent wall;
//   - HTTP 429 is rate limiting, and the "unusual traffic" / /das_captcha
//     reCAPTCHA page served with another status is a captcha;
//   - "Sign in to confirm you're not a bot" (a LOGIN_REQUIRED playability
//     status that gives that reason, or the page text) is a robot check.
//
// Video-specific refusals (private, age-restricted) are not blocks of the
// site; the extractors report them per video.
func detectBlock(r *scrapers.Response) *scrapers.BlockedError {
	blocked := func(kind string) *scrapers.BlockedError {
		be := &scrapers.BlockedError{Site: siteName, Kind: kind}
		if r.Request != nil {
			be.URL = r.Request.URL
		}
		return be
	}
	if r.URL != nil {
		host := strings.ToLower(r.URL.Hostname())
		if strings.HasPrefix(host, "consent.") {
			return blocked(scrapers.BlockConsentWall)
		}
		if strings.HasPrefix(r.URL.Path, "/sorry/") && (strings.HasSuffix(host, "google.com") || strings.HasSuffix(host, "youtube.com")) {
			return blocked(scrapers.BlockCaptcha)
		}
	}
	if r.StatusCode == http.StatusTooManyRequests {
		return blocked(scrapers.BlockRateLimited)
	}
	// Consent and captcha pages are small and carry their forms early; a
	// content page may be a megabyte, so only its head is searched for them.
	b := r.Body
	head := b[:min(len(b), 128<<10)]
	switch {
	case bytes.Contains(head, []byte(`action="https://consent.youtube.com/`)),
		bytes.Contains(head, []byte(`action="https://consent.google.com/`)):
		return blocked(scrapers.BlockConsentWall)
	case bytes.Contains(head, []byte(`action="/das_captcha`)),
		bytes.Contains(head, []byte(`id="captcha-form"`)),
		bytes.Contains(head, []byte("Our systems have detected unusual traffic")) && plainPage(b):
		return blocked(scrapers.BlockCaptcha)
	}
	if isBotCheck(b) {
		return blocked(scrapers.BlockRobotCheck)
	}
	return nil
}

// isBotCheck reports whether body carries YouTube's "Sign in to confirm
// you're not a bot" refusal: in a player response (LOGIN_REQUIRED with that
// reason) or as the text of a page that is not a watch page.
func isBotCheck(b []byte) bool {
	if !bytes.Contains(b, []byte("not a bot")) {
		return false
	}
	if bytes.Contains(b, []byte(`"LOGIN_REQUIRED"`)) && playabilityIsBotCheck(b) {
		return true
	}
	// A plain page saying so, not a watch page whose description, a comment
	// or a subtitle line merely says the words.
	return bytes.Contains(b, []byte("Sign in to confirm")) && plainPage(b)
}

// plainPage reports whether b is an HTML page without YouTube's data blobs:
// the only kind of answer whose words alone can make it a block page. JSON
// answers (comments), subtitle XML and content pages carry users' text,
// which may say anything.
func plainPage(b []byte) bool {
	t := bytes.TrimLeft(b[:min(len(b), 1024)], " \t\r\n\ufeff")
	if len(t) < 5 || t[0] != '<' {
		return false
	}
	lower := bytes.ToLower(t[:min(len(t), 64)])
	if !bytes.HasPrefix(lower, []byte("<!doctype html")) && !bytes.HasPrefix(lower, []byte("<html")) {
		return false
	}
	return !bytes.Contains(b, []byte("ytInitialPlayerResponse")) && !bytes.Contains(b, []byte("ytInitialData"))
}

// botReason reports whether a playability reason is the bot check.
func botReason(reason string) bool {
	return strings.Contains(strings.ToLower(reason), "not a bot")
}

// playabilityIsBotCheck reads the playabilityStatus objects of a player
// response (or a page embedding one) and reports whether one is the bot
// check. Reading the object, rather than looking for words near the status,
// keeps a description that happens to say "not a bot" from counting.
func playabilityIsBotCheck(b []byte) bool {
	pat := []byte(`"playabilityStatus"`)
	for n := 0; n < 3; n++ {
		i := bytes.Index(b, pat)
		if i < 0 {
			return false
		}
		b = b[i+len(pat):]
		rest := skipSpace(b)
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = skipSpace(rest[1:])
		if len(rest) == 0 || rest[0] != '{' {
			continue
		}
		end, err := valueEnd(rest)
		if err != nil {
			continue
		}
		raw := rest[:end]
		var ps struct {
			Status      string `json:"status"`
			Reason      any    `json:"reason"`
			ErrorScreen any    `json:"errorScreen"`
		}
		if json.Unmarshal(raw, &ps) != nil || ps.Status != "LOGIN_REQUIRED" {
			continue
		}
		if botReason(firstText(ps.Reason, jsonval.Get(ps.ErrorScreen, "playerErrorMessageRenderer", "reason"),
			jsonval.Get(ps.ErrorScreen, "playerErrorMessageRenderer", "subreason"))) {
			return true
		}
	}
	return false
}

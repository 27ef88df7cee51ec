package youtube

import (
	"fmt"
	"net/url"
	"strings"
)

// origin is YouTube's real origin. Items always name real YouTube URLs, also
// when YOUTUBE_BASE_URL sends the requests elsewhere.
const origin = "https://www.youtube.com"

// videoIDLen is the length of every YouTube video id.
const videoIDLen = 11

// isVideoID reports whether s has the shape of a video id: 11 characters of
// A-Z a-z 0-9 - _.
func isVideoID(s string) bool {
	if len(s) != videoIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// videoID returns the video id a YouTube video URL names. It knows
// www/m/music.youtube.com/watch?v=ID, youtu.be/ID, /shorts/ID, /embed/ID,
// /live/ID, /v/ID, youtube-nocookie.com/embed/ID, and a bare id. onSite
// decides whether a host belongs to YouTube (it also accepts the host of
// YOUTUBE_BASE_URL); nil accepts YouTube's own hosts only.
func videoID(raw string, onSite func(*url.URL) bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if isVideoID(raw) {
		return raw, nil
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a URL", raw)
	}
	if onSite == nil {
		onSite = isYouTubeHost
	}
	if !onSite(u) {
		return "", fmt.Errorf("%q is not a YouTube URL", raw)
	}
	host := strings.ToLower(u.Hostname())
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	var id string
	switch {
	case host == "youtu.be" || strings.HasSuffix(host, ".youtu.be"):
		id = segs[0]
	case len(segs) >= 2 && (segs[0] == "shorts" || segs[0] == "embed" || segs[0] == "live" || segs[0] == "v" || segs[0] == "e"):
		id = segs[1]
	case segs[0] == "watch" || segs[0] == "":
		id = u.Query().Get("v")
	}
	if !isVideoID(id) {
		return "", fmt.Errorf("%q does not name a YouTube video (expected youtube.com/watch?v=<11-character id>, youtu.be/<id> or youtube.com/shorts/<id>)", raw)
	}
	return id, nil
}

// isYouTubeHost reports whether u is on one of YouTube's own hosts.
func isYouTubeHost(u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, d := range siteDomains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// watchURL is the canonical URL of a video.
func watchURL(id string) string { return origin + "/watch?v=" + url.QueryEscape(id) }

// searchURL is the results page of a query (videos only).
func searchURL(query string) string {
	return origin + "/results?" + url.Values{"search_query": {query}, "sp": {videosOnlyFilter}}.Encode()
}

// videosOnlyFilter is the results page's "Type: Video" filter (sp=EgIQAQ==).
const videosOnlyFilter = "EgIQAQ=="

// channelURL makes a channel's URL from its canonical path (/@Dave2D) or,
// failing that, its id.
func channelURL(canonical, id string) string {
	switch {
	case strings.HasPrefix(canonical, "http://"), strings.HasPrefix(canonical, "https://"):
		return strings.Replace(canonical, "http://", "https://", 1)
	case strings.HasPrefix(canonical, "/"):
		return origin + canonical
	case id != "":
		return origin + "/channel/" + url.PathEscape(id)
	}
	return ""
}

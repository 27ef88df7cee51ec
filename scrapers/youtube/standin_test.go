package youtube

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a local stand-in for YouTube: it serves watch and results pages
// and innertube answers from maps the test fills, and records every request
// so that tests can check what the plugin asked for.
type standIn struct {
	t   testing.TB
	srv *httptest.Server

	mu sync.Mutex
	// watch maps a video id to its watch page; other ids get an
	// "unavailable" player response.
	watch map[string]page
	// results maps a search query to its results page.
	results map[string]page
	// channels maps a channel tab's path (/@gophertalks/videos) to its page;
	// unknown ones are YouTube's 404 page.
	channels map[string]page
	// search, next, browse and player map a continuation token (or, for
	// player, a video id) to an innertube answer; unknown ones are 404.
	browse map[string]page
	search map[string]page
	next   map[string]page
	player map[string]page
	// timedtext maps "<v>/<lang>/<kind>" to a subtitle file.
	timedtext map[string]page
	// requests lists what was asked: "GET /watch GJLlxj_dtq8",
	// "POST search SEARCH-PAGE-2", "POST player Go_pher1234".
	requests []string
	// bodies keeps the decoded innertube request bodies, in order.
	bodies []innertubeRequest
	// header keeps the last innertube request's headers.
	header http.Header
	// wantKey, when set, is the API key every innertube request must carry.
	wantKey string
}

// page is one canned answer; delay holds it back (a slow site) until the
// request is cancelled or the delay passes.
type page struct {
	status int
	body   []byte
	delay  time.Duration
	// location, when set, redirects there (status 301 unless given).
	location string
}

// innertubeRequest is what the plugin posts to /youtubei/v1/*.
type innertubeRequest struct {
	Context struct {
		Client struct {
			ClientName    string `json:"clientName"`
			ClientVersion string `json:"clientVersion"`
			HL            string `json:"hl"`
			VisitorData   string `json:"visitorData"`
		} `json:"client"`
	} `json:"context"`
	Continuation string `json:"continuation"`
	VideoID      string `json:"videoId"`
}

func newStandIn(t testing.TB) *standIn {
	s := &standIn{
		t: t, watch: map[string]page{}, results: map[string]page{}, search: map[string]page{},
		channels: map[string]page{}, browse: map[string]page{},
		next: map[string]page{}, player: map[string]page{}, timedtext: map[string]page{},
	}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) log(r string) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}

// Requests returns a copy of the request log.
func (s *standIn) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Bodies returns a copy of the innertube request bodies.
func (s *standIn) Bodies() []innertubeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]innertubeRequest(nil), s.bodies...)
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var p page
	var ok bool
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/watch":
		id := q.Get("v")
		s.log("GET /watch " + id)
		if c, err := r.Cookie("SOCS"); err != nil || c.Value == "" {
			s.t.Errorf("watch page requested without the SOCS consent cookie")
		}
		s.mu.Lock()
		p, ok = s.watch[id]
		s.mu.Unlock()
		if !ok {
			p = page{body: []byte(`<script>var ytInitialPlayerResponse = {"playabilityStatus":{"status":"ERROR","reason":"Video unavailable"}};</script>`)}
		}
	case r.Method == http.MethodGet && r.URL.Path == "/results":
		query := q.Get("search_query")
		s.log("GET /results " + query)
		if q.Get("sp") != videosOnlyFilter {
			s.t.Errorf("results page asked without the videos filter: %q", r.URL.RawQuery)
		}
		s.mu.Lock()
		p, ok = s.results[query]
		s.mu.Unlock()
		if !ok {
			p = page{status: 404, body: []byte("no such query in the stand-in")}
		}
	case r.Method == http.MethodGet && channelTabRE.MatchString(r.URL.Path):
		s.log("GET " + r.URL.Path)
		if c, err := r.Cookie("SOCS"); err != nil || c.Value == "" {
			s.t.Errorf("channel page requested without the SOCS consent cookie")
		}
		s.mu.Lock()
		p, ok = s.channels[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			// YouTube's answer for a channel that does not exist.
			p = page{status: 404, body: []byte(`<!DOCTYPE html><html lang="en"><head><title>404 Not Found</title></head><body><p>This page isn't available. Sorry about that.</p></body></html>`)}
		}
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/youtubei/v1/"):
		method := strings.TrimPrefix(r.URL.Path, "/youtubei/v1/")
		b, _ := io.ReadAll(r.Body)
		var req innertubeRequest
		if err := json.Unmarshal(b, &req); err != nil {
			s.t.Errorf("innertube %s body is not JSON: %v", method, err)
		}
		if r.Header.Get("Content-Type") != "application/json" {
			s.t.Errorf("innertube %s without a JSON content type", method)
		}
		if s.wantKey != "" && q.Get("key") != s.wantKey {
			s.t.Errorf("innertube %s key = %q, want %q", method, q.Get("key"), s.wantKey)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, req)
		s.header = r.Header.Clone()
		var m map[string]page
		key := req.Continuation
		switch method {
		case "search":
			m = s.search
		case "next":
			m = s.next
		case "browse":
			m = s.browse
		case "player":
			m, key = s.player, req.VideoID
		}
		p, ok = m[key]
		s.mu.Unlock()
		s.log("POST " + method + " " + key)
		if !ok {
			p = page{status: 404, body: []byte(`{"error":{"code":404}}`)}
		}
	case r.Method == http.MethodGet && r.URL.Path == "/api/timedtext":
		key := q.Get("v") + "/" + q.Get("lang") + "/" + q.Get("kind")
		s.log("GET /api/timedtext " + key)
		s.mu.Lock()
		p, ok = s.timedtext[key]
		s.mu.Unlock()
		if !ok {
			p = page{body: nil} // YouTube answers an unknown track with an empty body
		}
	default:
		s.log(r.Method + " " + r.URL.String())
		p = page{status: 404, body: []byte("not served by the stand-in")}
	}
	if p.delay > 0 {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(p.delay):
		}
	}
	if p.location != "" {
		http.Redirect(w, r, p.location, cmp.Or(p.status, http.StatusMovedPermanently))
		return
	}
	if p.status == 0 {
		p.status = http.StatusOK
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/youtubei/"):
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	case r.URL.Path == "/api/timedtext":
		w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.WriteHeader(p.status)
	w.Write(p.body)
}

// plugin builds the YouTube plugin pointed at the stand-in.
func (s *standIn) plugin() scrapers.Plugin {
	s.t.Helper()
	return scrapertest.NewPlugin(s.t, New, map[string]string{"YOUTUBE_BASE_URL": s.srv.URL})
}

// genSearchPage makes an innertube search continuation answer holding n
// videos (ids Gen<page>_<n>) and, when next is set, a continuation token.
func genSearchPage(pageNo, n int, next string) []byte {
	var items []any
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("Gen%02d_%05d", pageNo, i)
		items = append(items, map[string]any{"videoRenderer": map[string]any{
			"videoId": id, "title": map[string]any{"runs": []any{map[string]any{"text": "Generated " + id}}},
			"lengthText": map[string]any{"simpleText": "3:00"}, "viewCountText": map[string]any{"simpleText": fmt.Sprintf("%d views", i)},
		}})
	}
	list := []any{map[string]any{"itemSectionRenderer": map[string]any{"contents": items}}}
	if next != "" {
		list = append(list, map[string]any{"continuationItemRenderer": map[string]any{
			"continuationEndpoint": map[string]any{"continuationCommand": map[string]any{"token": next}}}})
	}
	b, _ := json.Marshal(map[string]any{"onResponseReceivedCommands": []any{
		map[string]any{"appendContinuationItemsAction": map[string]any{"continuationItems": list}}}})
	return b
}

// genCommentsPage makes a /next answer with n comments in the older shape.
func genCommentsPage(prefix string, n int, next string) []byte {
	var list []any
	for i := 0; i < n; i++ {
		list = append(list, map[string]any{"commentThreadRenderer": map[string]any{"comment": map[string]any{"commentRenderer": map[string]any{
			"commentId": fmt.Sprintf("%s-%03d", prefix, i), "authorText": map[string]any{"simpleText": "@gen"},
			"contentText": map[string]any{"simpleText": fmt.Sprintf("comment %d", i)}, "voteCount": map[string]any{"simpleText": fmt.Sprint(i)},
		}}}})
	}
	if next != "" {
		list = append(list, map[string]any{"continuationItemRenderer": map[string]any{
			"continuationEndpoint": map[string]any{"continuationCommand": map[string]any{"token": next}}}})
	}
	b, _ := json.Marshal(map[string]any{"onResponseReceivedEndpoints": []any{
		map[string]any{"appendContinuationItemsAction": map[string]any{"continuationItems": list}}}})
	return b
}

// playerWithCaptions makes an innertube /player answer listing caption
// tracks, each "lang" or "lang:asr", with baseUrls on www.youtube.com.
func playerWithCaptions(id string, tracks ...string) []byte {
	var list []any
	for _, tr := range tracks {
		lang, kind, _ := strings.Cut(tr, ":")
		u := "https://www.youtube.com/api/timedtext?v=" + id + "&lang=" + lang
		if kind != "" {
			u += "&kind=" + kind
		}
		t := map[string]any{"baseUrl": u, "languageCode": lang, "name": map[string]any{"simpleText": lang}}
		if kind != "" {
			t["kind"] = kind
		}
		list = append(list, t)
	}
	b, _ := json.Marshal(map[string]any{
		"playabilityStatus": map[string]any{"status": "OK"},
		"videoDetails":      map[string]any{"videoId": id},
		"captions":          map[string]any{"playerCaptionsTracklistRenderer": map[string]any{"captionTracks": list}},
	})
	return b
}

// channelTabRE matches the paths of channel tabs the plugin asks for.
var channelTabRE = regexp.MustCompile(`^/(?:@[^/]+|channel/[^/]+|c/[^/]+|user/[^/]+)/(?:videos|streams)$`)

// genBrowsePage makes an innertube browse continuation answer of a channel's
// Videos tab holding n videos (ids Chn<page>_<n>) and, when next is set, a
// continuation token, as YouTube answers one: richItemRenderer cards in an
// appendContinuationItemsAction aimed at the tab's grid.
func genBrowsePage(pageNo, n int, next string) []byte {
	var items []any
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("Chn%02d_%05d", pageNo, i)
		items = append(items, map[string]any{"richItemRenderer": map[string]any{"content": map[string]any{"videoRenderer": map[string]any{
			"videoId": id, "title": map[string]any{"runs": []any{map[string]any{"text": "Channel video " + id}}},
			"thumbnail":         map[string]any{"thumbnails": []any{map[string]any{"url": "https://i.ytimg.com/vi/" + id + "/hqdefault.jpg", "width": 336, "height": 188}}},
			"publishedTimeText": map[string]any{"simpleText": fmt.Sprintf("%d months ago", pageNo)},
			"lengthText":        map[string]any{"simpleText": "10:00"}, "viewCountText": map[string]any{"simpleText": fmt.Sprintf("%d views", 1000+i)},
		}}, "trackingParams": "tp"}})
	}
	if next != "" {
		items = append(items, map[string]any{"continuationItemRenderer": map[string]any{
			"trigger":              "CONTINUATION_TRIGGER_ON_ITEM_SHOWN",
			"continuationEndpoint": map[string]any{"continuationCommand": map[string]any{"token": next, "request": "CONTINUATION_REQUEST_TYPE_BROWSE"}}}})
	}
	b, _ := json.Marshal(map[string]any{"responseContext": map[string]any{}, "trackingParams": "tp", "onResponseReceivedActions": []any{
		map[string]any{"clickTrackingParams": "ctp", "appendContinuationItemsAction": map[string]any{"continuationItems": items, "targetId": "browse-feedUCgophertalks00000000001videos"}}}})
	return b
}

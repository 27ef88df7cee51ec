package tiktok_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/tiktok"
)

// listSite is a stand-in for TikTok's listings: profile and hashtag pages,
// the profile item list (paged by the last video's time in milliseconds,
// as TikTok's), the hashtag item list (paged by offset) and the recommend
// item list of the trending feed (no cursor in its answers). Like TikTok,
// it answers an unsigned request (no X-Bogus) to a signed-only list with a
// 200 and an empty body.
type listSite struct {
	t   testing.TB
	log scrapertest.RequestLog
	// Videos of each listing.
	profile, hashtag, trending, bob int
	// signedTrending: the feed answers only signed requests.
	signedTrending bool
	// ignoreCount: every page holds 30 whatever count asked (TikTok
	// often sends more than asked).
	ignoreCount bool

	mu  sync.Mutex
	uas map[string]string // the last User-Agent per path
}

// created is the time of video i (newest first).
func created(i int) int64 { return 1700000000 - int64(i)*3600 }

func siteItem(prefix string, i int, user string) map[string]any {
	return map[string]any{"id": fmt.Sprintf("%s%017d", prefix, i), "desc": fmt.Sprintf("%s video %d #bread", user, i), "createTime": created(i),
		"author": map[string]any{"uniqueId": user, "nickname": strings.ToUpper(user[:1]) + user[1:]}, "isPinnedItem": i == 0,
		"stats": map[string]any{"playCount": 1500*i + 987, "diggCount": i}, "music": map[string]any{"id": "1", "title": "original sound", "authorName": user},
		"video": map[string]any{"duration": 12, "cover": "https://p16-sign.example.test/" + strconv.Itoa(i) + ".jpeg"}}
}

// lastUA is the User-Agent of the last request for path.
func (s *listSite) lastUA(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uas[path]
}

func (s *listSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	s.mu.Lock()
	if s.uas == nil {
		s.uas = map[string]string{}
	}
	s.uas[r.URL.Path] = r.UserAgent()
	s.mu.Unlock()
	q := r.URL.Query()
	signed := q.Get("X-Bogus") != "" && q.Get("msToken") != ""
	count, _ := strconv.Atoi(q.Get("count"))
	if s.ignoreCount || count <= 0 {
		count = 30
	}
	list := func(from, total int, item func(int) map[string]any, cursor func(end int) string) {
		items := []any{}
		for i := from; i < from+count && i < total; i++ {
			items = append(items, item(i))
		}
		end := from + len(items)
		body := map[string]any{"itemList": items, "hasMore": end < total, "statusCode": 0, "status_code": 0, "extra": map[string]any{"now": 1700000000000}}
		if cursor != nil {
			body["cursor"] = cursor(end)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(body)
	}
	empty := func() { // TikTok's answer to an unsigned request
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
	}
	html := func(name string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(scrapertest.Testdata(s.t, name))
	}
	switch r.URL.Path {
	case "/@chef.anna":
		html("profile.html")
	case "/@baker.bob":
		html("profile-app.html")
	case "/tag/bread":
		html("hashtag.html")
	case "/@baker.captcha":
		// The page's scripts lay TikTok's captcha over it instead of
		// listing the videos.
		b := strings.NewReplacer("baker.bob", "baker.captcha", "setTimeout(function () {",
			`document.body.insertAdjacentHTML("beforeend", '<div id="captcha_container" class="captcha_verify_container">Drag the slider</div>'); return; setTimeout(function () {`).
			Replace(string(scrapertest.Testdata(s.t, "profile-app.html")))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b))
	case "/api/post/item_list/":
		switch q.Get("secUid") {
		case "MS4wLjABAAAA-test-sec-uid":
			// The cursor is the time, in ms, of the last video sent.
			from := 0
			if c, _ := strconv.ParseInt(q.Get("cursor"), 10, 64); c > 0 {
				for from < s.profile && created(from)*1000 >= c {
					from++
				}
			}
			list(from, s.profile, func(i int) map[string]any { return siteItem("74", i, "chef.anna") },
				func(end int) string { return strconv.FormatInt(created(end-1)*1000, 10) })
		case "MS4wLjABAAAA-bob-sec-uid":
			if !signed {
				empty()
				return
			}
			list(0, s.bob, func(i int) map[string]any { return siteItem("73", i, "baker.bob") }, func(end int) string { return strconv.FormatInt(created(end-1)*1000, 10) })
		default:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`{"statusCode":10201,"status_code":10201,"statusMsg":""}`))
		}
	case "/api/challenge/item_list/":
		if q.Get("challengeID") != "6983" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write([]byte(`{"statusCode":10205,"statusMsg":""}`))
			return
		}
		from, _ := strconv.Atoi(q.Get("cursor"))
		list(from, s.hashtag, func(i int) map[string]any { return siteItem("75", i, "crumbs") }, func(end int) string { return strconv.Itoa(end) })
	case "/api/recommend/item_list/":
		if s.signedTrending && !signed {
			empty()
			return
		}
		from, _ := strconv.Atoi(q.Get("cursor"))
		list(from, s.trending, func(i int) map[string]any { return siteItem("76", i, "trend"+strconv.Itoa(i%4)) }, nil)
	default:
		http.NotFound(w, r)
	}
}

// walkCursor calls tool with args, then again with each answer's
// next_cursor, until there is none; it returns the items of every answer.
func walkCursor(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, max int) [][]map[string]any {
	t.Helper()
	var pages [][]map[string]any
	for call := 0; ; call++ {
		res, pg := scrapertest.CallTool(t, cs, tool, args)
		if res.IsError || pg.Partial {
			t.Fatalf("%s %v: error %v, partial %v %v: %.300s", tool, args, res.IsError, pg.Partial, pg.PartialReasons, scrapertest.Text(res))
		}
		pages = append(pages, pg.Items)
		c := nextCursor(t, res)
		if c == "" {
			return pages
		}
		if call >= max {
			t.Fatalf("%s: still a cursor after %d calls", tool, call+1)
		}
		args = map[string]any{"cursor": c, maxArg(tool): args[maxArg(tool)]}
	}
}

func maxArg(tool string) string {
	if tool == "comments" {
		return "max_comments"
	}
	return "max_items"
}

func nextCursor(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(scrapertest.Text(res)), &page); err != nil {
		t.Fatalf("%v: %s", err, scrapertest.Text(res))
	}
	if page.NextCursor == nil {
		return ""
	}
	if *page.NextCursor == "" {
		t.Errorf("next_cursor present and empty")
	}
	return *page.NextCursor
}

// idsOf checks that the videos of pages are the listing's, from the first
// on, none skipped or repeated, and returns how many there were.
func idsOf(t *testing.T, pages [][]map[string]any, prefix string, from int) int {
	t.Helper()
	n := 0
	for _, pg := range pages {
		for _, it := range pg {
			if it["type"] != "video" {
				continue
			}
			if want := fmt.Sprintf("%s%017d", prefix, from+n); it["id"] != want {
				t.Fatalf("video %d is %v, want %s: skipped or repeated", n, it["id"], want)
			}
			n++
		}
	}
	return n
}

// TestPagingThroughTheHost walks each TikTok listing with its cursor
// through a real host: a hashtag's and a profile's videos, a search, the
// trending feed and a video's comments, each served as TikTok pages them.
func TestPagingThroughTheHost(t *testing.T) {
	s := &listSite{t: t, profile: 23, hashtag: 25, trending: 17}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": srv.URL}, nil)

	pages := walkCursor(t, cs, "scrape", map[string]any{"hashtags": []string{"bread"}, "max_items": 10}, 5)
	if len(pages) != 3 || pages[0][0]["type"] != "hashtag" || len(pages[1]) != 10 || pages[1][0]["type"] != "video" || idsOf(t, pages, "75", 0) != 25 {
		t.Errorf("hashtag pages: %d calls", len(pages))
	}
	if reqs := s.log.WithPrefix("/api/challenge/item_list/"); len(reqs) != 3 || !strings.Contains(reqs[1], "cursor=10&") {
		t.Errorf("hashtag list requests %v", reqs)
	}

	// The profile page's own two videos, then the item list by time.
	pages = walkCursor(t, cs, "scrape", map[string]any{"profiles": []string{"chef.anna"}, "max_items": 9}, 5)
	if pages[0][1]["id"] != "7000000000000000001" || pages[0][1]["listed_via"] != "page data" || pages[0][3]["listed_via"] != "api" {
		t.Errorf("profile first page %v", pages[0])
	}
	var rest [][]map[string]any
	rest = append(rest, pages[0][3:])
	rest = append(rest, pages[1:]...)
	if n := idsOf(t, rest, "74", 0); n != 23 {
		t.Errorf("%d videos from the profile's item list, want 23", n)
	}

	pages = walkCursor(t, cs, "scrape", map[string]any{"trending": true, "max_items": 7}, 5)
	if len(pages) != 3 || idsOf(t, pages, "76", 0) != 17 || pages[0][0]["source"] != "https://www.tiktok.com/foryou" {
		t.Errorf("trending: %d calls %v", len(pages), pages[0][0])
	}
	if reqs := s.log.WithPrefix("/api/recommend/item_list/"); len(reqs) != 3 || !strings.Contains(reqs[0], "from_page=fyp") {
		t.Errorf("trending requests %v", reqs)
	}
	// The feed's URL reads it too.
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.tiktok.com/foryou"}, "max_items": 2})
	if res.IsError || len(pg.Items) != 2 || nextCursor(t, res) == "" {
		t.Errorf("foryou URL: %.300s", scrapertest.Text(res))
	}

	// A cursor belongs to its listing: given with another, or to the
	// other tool, it is refused naming cursor.
	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"hashtags": []string{"bread"}, "max_items": 1})
	c := nextCursor(t, res)
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"hashtags": []string{"rye"}, "cursor": c}, "cursor", "#bread")
	scrapertest.WantToolError(t, cs, "comments", map[string]any{"cursor": c}, "cursor", "scrape")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"cursor": "e30"}, "cursor")
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.tiktok.com/tag/bread"}, "cursor": c, "max_items": 1})
	if res.IsError || len(pg.Items) != 1 || pg.Items[0]["id"] != "7500000000000000001" {
		t.Errorf("cursor beside its own source: %.300s", scrapertest.Text(res))
	}
	// Two listings in one call: no next_cursor, since it could continue
	// only one.
	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"hashtags": []string{"bread"}, "trending": true, "max_items": 2})
	if nextCursor(t, res) != "" {
		t.Error("a call of two listings gave a next_cursor")
	}

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		if (tool.Name == "scrape" || tool.Name == "comments") && !strings.Contains(string(b), `"next_cursor"`) {
			t.Errorf("%s's output schema has no next_cursor: %s", tool.Name, b)
		}
		if tool.Name == "scrape" && !strings.Contains(fmt.Sprint(tool.InputSchema), "trending") {
			t.Errorf("scrape takes no trending: %v", tool.InputSchema)
		}
	}
}

// TestPagesLongerThanAsked: TikTok sending more than count asked leaves
// nothing out: next_cursor starts inside the page max_items stopped in.
func TestPagesLongerThanAsked(t *testing.T) {
	s := &listSite{t: t, hashtag: 50, ignoreCount: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": srv.URL}, nil)
	pages := walkCursor(t, cs, "scrape", map[string]any{"hashtags": []string{"bread"}, "max_items": 7}, 10)
	if n := idsOf(t, pages, "75", 0); n != 50 || len(pages) != 8 {
		t.Errorf("%d videos in %d calls", n, len(pages))
	}
}

// TestSearchAndCommentsCursors walks a video search and a video's comments
// with their cursors.
func TestSearchAndCommentsCursors(t *testing.T) {
	s := &searchSite{videos: 45, comments: 61}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": srv.URL}, nil)
	pages := walkCursor(t, cs, "scrape", map[string]any{"search_queries": []string{"rye"}, "max_items": 20}, 5)
	n := 0
	for _, pg := range pages {
		for _, v := range pg {
			if v["id"] != fmt.Sprintf("71%017d", n) || v["search_query"] != "rye" {
				t.Fatalf("search result %d: %v", n, v)
			}
			n++
		}
	}
	if n != 45 || len(pages) != 3 {
		t.Errorf("%d results in %d calls", n, len(pages))
	}
	pages = walkCursor(t, cs, "comments", map[string]any{"urls": []string{"https://www.tiktok.com/@chef.anna/video/7000000000000000001"}, "max_comments": 25}, 5)
	n = 0
	for _, pg := range pages {
		for _, c := range pg {
			if c["comment_id"] != fmt.Sprintf("72%017d", n) || c["url"] != "https://www.tiktok.com/@chef.anna/video/7000000000000000001" {
				t.Fatalf("comment %d: %v", n, c)
			}
			n++
		}
	}
	if n != 61 || len(pages) != 3 {
		t.Errorf("%d comments in %d calls", n, len(pages))
	}
	res, _ := scrapertest.CallTool(t, cs, "comments", map[string]any{"video_ids": []string{"7000000000000000001"}, "max_comments": 5})
	c := nextCursor(t, res)
	scrapertest.WantToolError(t, cs, "comments", map[string]any{"video_ids": []string{"7000000000000000002"}, "cursor": c}, "cursor", "7000000000000000001")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"cursor": c}, "cursor", "comments tool")
	res, pg := scrapertest.CallTool(t, cs, "comments", map[string]any{"video_ids": []string{"7000000000000000001"}, "cursor": c, "max_comments": 2})
	if res.IsError || len(pg.Items) != 2 || pg.Items[0]["comment_id"] != fmt.Sprintf("72%017d", 5) || pg.Items[0]["url"] != "https://www.tiktok.com/embed/v2/7000000000000000001" {
		t.Errorf("cursor beside its video: %.300s", scrapertest.Text(res))
	}
}

// TestSignedOnlyListings: the trending feed refusing unsigned requests is
// a tool error naming the endpoint; a profile whose item list refuses them
// and a host without a renderer give the profile, saying plainly why there
// are no videos.
func TestSignedOnlyListings(t *testing.T) {
	s := &listSite{t: t, signedTrending: true, bob: 30}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": srv.URL}, nil)
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"trending": true}, "TikTok", "trending (For You) feed", "/api/recommend/item_list/", "signed")
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"profiles": []string{"baker.bob"}})
	reasons := strings.Join(pg.PartialReasons, " ")
	if res.IsError || len(pg.Items) != 1 || pg.Items[0]["type"] != "profile" || !pg.Partial ||
		!strings.Contains(reasons, "no renderer") || !strings.Contains(reasons, "RENDERER_URL or CHROMIUM_BIN") || !strings.Contains(reasons, "@baker.bob") {
		t.Errorf("profile without a renderer: error %v, partial %v %q: %.300s", res.IsError, pg.Partial, reasons, scrapertest.Text(res))
	}
}

// TestProfileVideosFromTheRenderedPage: with Debian's chromium as the
// plugin's renderer, a profile whose item list refuses unsigned requests
// is rendered, its page's own script signs the request and writes the
// cards, and the videos are read from them.
func TestProfileVideosFromTheRenderedPage(t *testing.T) {
	bin := os.Getenv("CHROMIUM_BIN")
	if bin == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			t.Skip("no chromium on this machine (apt-get install chromium, or set CHROMIUM_BIN): the rendered profile test is skipped")
		}
		bin = p
	}
	s := &listSite{t: t, bob: 30}
	srv := httptest.NewServer(s)
	defer srv.Close()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{tiktok.New}, Env: map[string]string{
		"TIKTOK_BASE_URL": srv.URL, "CHROMIUM_BIN": bin, "RENDER_ALLOW_ADDRS": srv.Listener.Addr().String()}})
	cs := h.Connect(t, "tiktok", hosttest.License, nil)

	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"profiles": []string{"baker.bob"}, "max_items": 12})
	if res.IsError || len(pg.Items) != 13 || pg.Partial {
		t.Fatalf("error %v, %d items, partial %v %v: %.500s", res.IsError, len(pg.Items), pg.Partial, pg.PartialReasons, scrapertest.Text(res))
	}
	v0, v2 := pg.Items[1], pg.Items[3]
	if v0["listed_via"] != "rendered page" || v0["id"] != fmt.Sprintf("73%017d", 0) || v0["pinned"] != true ||
		v0["url"] != "https://www.tiktok.com/@baker.bob/video/"+fmt.Sprintf("73%017d", 0) || v0["description"] != "baker.bob video 0 #bread" ||
		v0["source"] != "https://www.tiktok.com/@baker.bob" || v0["cover"] != "https://p16-sign.example.test/0.jpeg" || v0["created_at"] != "2023-11-11T00:48:18Z" {
		t.Errorf("first card %v", v0)
	}
	if st, _ := v2["stats"].(map[string]any); st["plays"] != 4000.0 || v2["stats_rounded"] != true || v2["pinned"] != nil {
		t.Errorf("third card (3,987 plays written 4K) %v", v2)
	}
	if a, _ := v0["author"].(map[string]any); a["unique_id"] != "baker.bob" || a["nickname"] != "Bob Baker" {
		t.Errorf("author %v", v0["author"])
	}
	if nextCursor(t, res) != "" {
		t.Error("a rendered page gave a next_cursor")
	}
	resp, err := http.Get(h.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready struct{ Parts map[string]string }
	json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if st := ready.Parts["tiktok renderer"]; !strings.HasPrefix(st, "ok (Chrome/") {
		t.Errorf("/readyz tiktok renderer after a render: %q (parts %v)", st, ready.Parts)
	}
	if ua := s.lastUA("/@baker.bob"); strings.Contains(ua, "Headless") || !strings.Contains(ua, "Chrome/") {
		t.Errorf("the rendered page was asked with User-Agent %q", ua)
	}
	var unsigned, signed int
	for _, r := range s.log.WithPrefix("/api/post/item_list/") {
		if strings.Contains(r, "X-Bogus") {
			signed++
		} else {
			unsigned++
		}
	}
	if unsigned != 1 || signed != 1 {
		t.Errorf("item list requests: %d unsigned (the plugin's), %d signed (the page's)", unsigned, signed)
	}
	// A captcha laid over the rendered page is named as the block it is,
	// beside the profile read before it.
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"profiles": []string{"baker.captcha"}})
	if e, _ := pg.Items[len(pg.Items)-1]["error"].(string); res.IsError || !pg.Partial || len(pg.Items) != 2 || pg.Items[0]["type"] != "profile" || !strings.Contains(e, "TikTok blocked the request with a captcha") {
		t.Errorf("captcha over the rendered page: %.500s", scrapertest.Text(res))
	}
	// More asked than the page shows: all 30 cards, and why not the 45.
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"profiles": []string{"baker.bob"}, "max_items": 40, "max_age_seconds": 0})
	if res.IsError || len(pg.Items) != 31 || !pg.Partial || !strings.Contains(strings.Join(pg.PartialReasons, " "), "showed 30 of its 45 videos") {
		t.Errorf("40 asked: error %v, %d items, %v", res.IsError, len(pg.Items), pg.PartialReasons)
	}
}

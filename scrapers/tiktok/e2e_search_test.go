package tiktok_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/tiktok"
)

// searchSite is a stand-in for TikTok's web API: keyword search of videos
// and users and a video's comment list, paged as TikTok pages them
// (offset or cursor, has_more 1/0), and the empty 200 it gives requests
// without its web client's signature.
type searchSite struct {
	log      scrapertest.RequestLog
	videos   int // results of a video search
	users    int
	comments int // comments of video 7000000000000000001
}

func (s *searchSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	q := r.URL.Query()
	count, _ := strconv.Atoi(q.Get("count"))
	w.Header().Set("Content-Type", "application/json")
	page := func(from, total int, item func(int) any, list string) {
		var out []any
		for i := from; i < from+count && i < total; i++ {
			out = append(out, item(i))
		}
		more := 0
		if from+len(out) < total {
			more = 1
		}
		json.NewEncoder(w).Encode(map[string]any{list: out, "has_more": more, "cursor": from + len(out), "status_code": 0, "extra": map[string]any{"now": 1}})
	}
	switch r.URL.Path {
	case "/api/search/item/full/":
		if q.Get("keyword") == "needs signing" {
			return // 200, empty body: what TikTok answers an unsigned search
		}
		from, _ := strconv.Atoi(q.Get("offset"))
		page(from, s.videos, func(i int) any {
			return map[string]any{"id": fmt.Sprintf("71%017d", i), "desc": q.Get("keyword") + " video " + strconv.Itoa(i), "createTime": 1700000000 + i,
				"author": map[string]any{"uniqueId": "baker" + strconv.Itoa(i%3), "nickname": "Baker"}, "stats": map[string]any{"playCount": 10 * i, "diggCount": i}}
		}, "item_list")
	case "/api/search/user/full/":
		from, _ := strconv.Atoi(q.Get("cursor"))
		page(from, s.users, func(i int) any {
			return map[string]any{"user_info": map[string]any{"uid": strconv.Itoa(600 + i), "unique_id": "baker_" + strconv.Itoa(i), "nickname": "Baker " + strconv.Itoa(i),
				"signature": "I bake", "follower_count": 1000 + i, "total_favorited": 5000, "aweme_count": 12, "sec_uid": "MS4w" + strconv.Itoa(i),
				"avatar_thumb": map[string]any{"url_list": []any{"https://p16.example.test/a.jpeg"}}, "custom_verify": map[bool]string{true: "Verified account", false: ""}[i == 0]}, "position": i}
		}, "user_list")
	case "/api/comment/list/":
		switch q.Get("aweme_id") {
		case "7000000000000000001":
			from, _ := strconv.Atoi(q.Get("cursor"))
			page(from, s.comments, func(i int) any {
				return map[string]any{"cid": fmt.Sprintf("72%017d", i), "text": "comment " + strconv.Itoa(i), "create_time": 1700000100 + i, "digg_count": 100 - i%100,
					"reply_comment_total": i % 4, "author_pin": i == 0, "is_author_digged": i == 1, "comment_language": "en", "aweme_id": q.Get("aweme_id"),
					"user": map[string]any{"uid": strconv.Itoa(900 + i), "unique_id": "fan_" + strconv.Itoa(i), "nickname": "Fan " + strconv.Itoa(i)}}
			}, "comments")
		case "7000000000000000002":
			return // unsigned: empty body
		case "7000000000000000003":
			w.Write([]byte(`{"type":"verify","verify_event":"","fixed":true,"code":10000,"from":"","version":"","region":"va","subtype":"slide"}`))
		default:
			w.Write([]byte(`{"status_code":5,"status_msg":"Invalid parameters"}`))
		}
	default:
		http.NotFound(w, r)
	}
}

// TestSearchAndCommentsThroughTheHost: keyword search of videos and users
// paged to max_items, comments paged to max_comments, and the endpoints
// that want a signature or show a captcha named in the answer.
func TestSearchAndCommentsThroughTheHost(t *testing.T) {
	s := &searchSite{videos: 55, users: 7, comments: 130}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cs := hosttest.ConnectPlugin(t, "tiktok", tiktok.New, map[string]string{"TIKTOK_BASE_URL": srv.URL}, nil)
	if titles := scrapertest.ToolTitles(t, cs); titles["comments"] != "TikTok comments" {
		t.Fatalf("tools %v", titles)
	}

	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"sourdough"}, "max_items": 45})
	if res.IsError || len(pg.Items) != 45 || pg.Partial {
		t.Fatalf("video search: error %v, %d items, partial %v: %.300s", res.IsError, len(pg.Items), pg.Partial, scrapertest.Text(res))
	}
	v := pg.Items[44]
	if v["type"] != "video" || v["id"] != "7100000000000000044" || v["search_query"] != "sourdough" || v["source"] != "https://www.tiktok.com/search/video?q=sourdough" ||
		v["url"] != "https://www.tiktok.com/@baker2/video/7100000000000000044" {
		t.Errorf("video %v", v)
	}
	reqs := s.log.WithPrefix("/api/search/item/full/")
	if len(reqs) != 3 {
		t.Fatalf("video search requests %v, want 3 pages of 20", reqs)
	}
	for i, off := range []string{"0", "20", "40"} {
		if !strings.Contains(reqs[i], "offset="+off+"&") || !strings.Contains(reqs[i], "keyword=sourdough") {
			t.Errorf("page %d: %s", i, reqs[i])
		}
	}
	// Users, by search_type and by a search URL; the list ends before max_items.
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"baker"}, "search_type": "users", "max_items": 50,
		"urls": []string{"https://www.tiktok.com/search/user?q=baker&t=1"}})
	if res.IsError || len(pg.Items) != 14 || pg.Partial {
		t.Fatalf("user search: error %v, %d items: %.300s", res.IsError, len(pg.Items), scrapertest.Text(res))
	}
	u := pg.Items[0]
	if u["type"] != "profile" || u["unique_id"] != "baker_0" || u["url"] != "https://www.tiktok.com/@baker_0" || u["verified"] != true || u["search_query"] != "baker" ||
		u["stats"].(map[string]any)["followers"] != 1000.0 || u["sec_uid"] != "MS4w0" {
		t.Errorf("user %v", u)
	}
	// A search TikTok will not answer unsigned: the result names the
	// endpoint and why, beside the search that worked.
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"needs signing", "rye"}, "max_items": 3})
	if res.IsError || len(pg.Items) != 4 || !pg.Partial {
		t.Fatalf("signed search: error %v, %d items: %.400s", res.IsError, len(pg.Items), scrapertest.Text(res))
	}
	if e, _ := pg.Items[0]["error"].(string); !strings.Contains(e, "/api/search/item/full/") || !strings.Contains(e, "signed") || strings.Contains(e, "may have changed") {
		t.Errorf("failed search item %v", pg.Items[0])
	}
	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"needs signing"}})
	if text := scrapertest.Text(res); !res.IsError || !strings.Contains(text, "X-Bogus") || !strings.Contains(text, "video search") {
		t.Errorf("signed search alone: error %v, %q", res.IsError, text)
	}

	res, pg = scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"https://www.tiktok.com/@chef.anna/video/7000000000000000001?lang=en"}, "max_comments": 120})
	if res.IsError || len(pg.Items) != 120 || pg.Partial {
		t.Fatalf("comments: error %v, %d items: %.300s", res.IsError, len(pg.Items), scrapertest.Text(res))
	}
	c0, c1, c3 := pg.Items[0], pg.Items[1], pg.Items[3]
	if c0["type"] != "comment" || c0["url"] != "https://www.tiktok.com/@chef.anna/video/7000000000000000001" || c0["comment_id"] != "7200000000000000000" || c0["text"] != "comment 0" ||
		c0["author"] != "fan_0" || c0["author_nickname"] != "Fan 0" || c0["likes"] != 100.0 || c0["reply_count"] != 0.0 || c0["is_pinned"] != true || c0["created_at"] != "2023-11-14T22:15:00Z" {
		t.Errorf("comment 0 %v", c0)
	}
	if c1["liked_by_author"] != true || c3["reply_count"] != 3.0 || c3["video_id"] != "7000000000000000001" {
		t.Errorf("comments 1, 3: %v %v", c1, c3)
	}
	creqs := s.log.WithPrefix("/api/comment/list/")
	if len(creqs) != 3 || !strings.Contains(creqs[2], "cursor=100") || !strings.Contains(creqs[2], "count=20") || !strings.Contains(creqs[0], "count=50") {
		t.Errorf("comment requests %v, want 50, 50 and 20 from cursors 0, 50, 100", creqs)
	}
	res, pg = scrapertest.CallTool(t, cs, "comments", map[string]any{"video_ids": []string{"7000000000000000001"}})
	if res.IsError || len(pg.Items) != 20 || pg.Items[0]["url"] != "https://www.tiktok.com/embed/v2/7000000000000000001" {
		t.Errorf("default 20 by id: error %v, %d items", res.IsError, len(pg.Items))
	}
	for id, want := range map[string]string{"7000000000000000002": "/api/comment/list/", "7000000000000000003": "captcha", "7000000000000000004": "Invalid parameters"} {
		res, _ = scrapertest.CallTool(t, cs, "comments", map[string]any{"video_ids": []string{id}})
		if text := scrapertest.Text(res); !res.IsError || !strings.Contains(text, want) || !strings.Contains(text, "TikTok") {
			t.Errorf("comments of %s: error %v, %q; want one saying %q", id, res.IsError, text, want)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"comments", map[string]any{}, "urls"},
		{"comments", map[string]any{"video_ids": []string{"12ab"}}, "video_ids"},
		{"comments", map[string]any{"urls": []string{"https://www.tiktok.com/@a"}}, "urls"},
		{"comments", map[string]any{"video_ids": []string{"7000000000000000001"}, "max_comments": 501}, "max_comments"},
		{"scrape", map[string]any{"search_queries": []string{"x"}, "search_type": "sounds"}, "search_type"},
		{"scrape", map[string]any{"search_queries": []string{"x"}, "max_items": 101}, "max_items"},
		{"scrape", map[string]any{"urls": []string{"https://www.tiktok.com/search?q="}}, "urls"},
		{"scrape", map[string]any{"search_queries": make([]string, 21)}, "search_queries"},
	} {
		res, _ := scrapertest.CallTool(t, cs, c.tool, c.args)
		if text := scrapertest.Text(res); !res.IsError || !strings.Contains(text, c.arg) {
			t.Errorf("%s %v: error %v, %q; want one naming %s", c.tool, c.args, res.IsError, text, c.arg)
		}
	}
}

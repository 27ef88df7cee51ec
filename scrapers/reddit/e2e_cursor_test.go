package reddit_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// nextCursor is the next_cursor of a result ("" when absent).
func nextCursor(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var p struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(textOf(res)), &p); err != nil {
		t.Fatalf("%v: %s", err, textOf(res))
	}
	return p.NextCursor
}

// TestCommentPermalink: a link to one comment gives that comment's thread,
// its context above it (the link's ?context=, else 3 levels) and its replies,
// with the post it is under, as Reddit's own permalink page shows them.
func TestCommentPermalink(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	link := "https://www.reddit.com/r/golang/comments/1h0aaa1/go_124_released_whats_new/c0003/"
	res, pg := call(t, cs, map[string]any{"urls": []string{link}})
	if res.IsError || len(pg.Items) != 1 {
		t.Fatalf("error %v: %s", res.IsError, textOf(res))
	}
	th := pg.Items[0]
	post, _ := th["post"].(map[string]any)
	if th["type"] != "comment_thread" || th["comment_id"] != "c0003" || th["context"] != 3.0 || th["url"] != link ||
		post["id"] != "1h0aaa1" || post["title"] != "Go 1.24 released & what's new" || post["comments"] != nil {
		t.Errorf("thread = %v", th)
	}
	type want struct {
		id, parent string
		depth      float64
		focus      bool
	}
	wants := []want{{"c0001", "", 0, false}, {"c0002", "c0001", 1, false}, {"c0003", "c0002", 2, true}, {"c0005", "c0003", 3, false}, {"c0006", "c0005", 4, false}}
	cms := comments(t, th)
	if len(cms) != len(wants) {
		t.Fatalf("comments %v", cms)
	}
	for i, w := range wants {
		c := cms[i]
		if c["id"] != w.id || c["depth"] != w.depth || (c["focus"] == true) != w.focus || (w.parent != "" && c["parent_id"] != w.parent) || (w.parent == "" && c["parent_id"] != nil) {
			t.Errorf("comment %d = %v, want %+v", i, c, w)
		}
	}
	if cms[4]["more_replies"] != 2.0 || th["more_comments"] != 2.0 {
		t.Errorf("more: %v %v", cms[4]["more_replies"], th["more_comments"])
	}
	reqs := s.log.WithPrefix("/comments/1h0aaa1.json")
	if len(reqs) != 1 {
		t.Fatalf("requests %v", reqs)
	}
	if q := query(t, reqs[0]); q.Get("comment") != "c0003" || q.Get("context") != "3" || q.Get("depth") != "7" || q.Get("limit") != "20" || q.Get("sort") != "confidence" || q.Get("raw_json") != "1" {
		t.Errorf("permalink asked %v", q)
	}

	// context=0 (here through a share link to the comment): the comment
	// first, at its own depth, naming its parent; max_comment_depth 1
	// keeps one level of replies below it.
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/r/golang/s/CmNt0001"}, "max_comment_depth": 1})
	if res.IsError || len(pg.Items) != 1 {
		t.Fatalf("share link: %s", textOf(res))
	}
	cms = comments(t, pg.Items[0])
	if len(cms) != 2 || cms[0]["id"] != "c0003" || cms[0]["focus"] != true || cms[0]["depth"] != 2.0 || cms[0]["parent_id"] != "c0002" ||
		cms[1]["id"] != "c0005" || cms[1]["more_replies"] != 3.0 || pg.Items[0]["context"] != 0.0 {
		t.Errorf("context 0: %v", cms)
	}

	// A comment Reddit does not have under the post: a failure that says so.
	res, _ = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/comments/1h0aaa1/_/zz999/"}})
	if !res.IsError || !strings.Contains(textOf(res), "no such comment") {
		t.Errorf("missing comment: %s", textOf(res))
	}
}

// TestListingCursorWalksPages: a subreddit read in two calls with the cursor
// the first returned gives the posts that follow, without a gap or a repeat,
// asking Reddit with after and count as its own pager does; a cursor given
// with other arguments is refused.
func TestListingCursorWalksPages(t *testing.T) {
	s := &standIn{listed: 70, pageCap: 25}
	cs := connect(t, s)
	res, pg := call(t, cs, map[string]any{"subreddits": []string{"many"}, "sort": "new", "max_items": 30})
	cursor := nextCursor(t, res)
	if res.IsError || len(pg.Items) != 30 || cursor == "" {
		t.Fatalf("first page: error %v, %d items, cursor %q", res.IsError, len(pg.Items), cursor)
	}
	res, pg = call(t, cs, map[string]any{"subreddits": []string{"many"}, "sort": "new", "max_items": 30, "cursor": cursor})
	if res.IsError || len(pg.Items) != 30 {
		t.Fatalf("second page: %s", textOf(res))
	}
	for i, it := range pg.Items {
		if it["title"] != fmt.Sprintf("post %d", 30+i) {
			t.Fatalf("second page item %d: %v", i, it["title"])
		}
	}
	reqs := s.log.WithPrefix("/r/many/new.json")
	if q := query(t, reqs[2]); len(reqs) != 4 || q.Get("after") != "t3_p"+strconv.FormatInt(29, 36) || q.Get("count") != "30" {
		t.Errorf("requests %v", reqs)
	}
	third := nextCursor(t, res)
	res, pg = call(t, cs, map[string]any{"subreddits": []string{"many"}, "sort": "new", "max_items": 30, "cursor": third})
	if res.IsError || len(pg.Items) != 10 || pg.Items[0]["title"] != "post 60" || nextCursor(t, res) != "" {
		t.Errorf("last page: %d items, cursor %q", len(pg.Items), nextCursor(t, res))
	}

	// The same listing however it is named: a URL, the default order
	// spelled out.
	hot, _ := call(t, cs, map[string]any{"subreddits": []string{"many"}, "max_items": 5})
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/r/many/hot/"}, "max_items": 5, "cursor": nextCursor(t, hot)})
	if res.IsError || len(pg.Items) != 5 || pg.Items[0]["title"] != "post 5" {
		t.Errorf("hot by URL: %s", textOf(res))
	}
	// The cursor belongs to r/many sorted by new.
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"subreddits": []string{"many"}, "sort": "top", "cursor": cursor}, "cursor", "another listing")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"subreddits": []string{"many", "golang"}, "sort": "new", "cursor": cursor}, "cursor", "one listing")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"subreddits": []string{"many"}, "cursor": "t3_abc"}, "cursor")
	// A user's later page does not read the account again.
	res, pg = call(t, cs, map[string]any{"users": []string{"gopher_anna"}, "max_items": 2})
	userCursor := nextCursor(t, res)
	if res.IsError || len(pg.Items) != 3 || userCursor == "" {
		t.Fatalf("user: %s", textOf(res))
	}
	res, pg = call(t, cs, map[string]any{"users": []string{"u/gopher_anna"}, "max_items": 2, "cursor": userCursor})
	if res.IsError || len(pg.Items) != 1 || pg.Items[0]["title"] != "anna's post 2" || len(s.log.WithPrefix("/user/gopher_anna/about.json")) != 1 {
		t.Errorf("user's second page: %s", textOf(res))
	}
	// Two listings in one call: no cursor, since it could continue one only.
	res, _ = call(t, cs, map[string]any{"subreddits": []string{"many", "golang"}, "max_items": 1})
	if res.IsError || nextCursor(t, res) != "" {
		t.Errorf("two listings: cursor %q", nextCursor(t, res))
	}
}

package reddit_test

import (
	"strings"
	"testing"
)

// comments returns a post item's comments.
func comments(t *testing.T, post map[string]any) []map[string]any {
	t.Helper()
	list, _ := post["comments"].([]any)
	out := make([]map[string]any, len(list))
	for i, c := range list {
		out[i] = c.(map[string]any)
	}
	return out
}

// TestPostAndCommentTree reads a post by URL (and by short and share link)
// with its comments in thread order, each naming its depth and parent, and
// the bounds on count and depth counted in more_replies and more_comments.
func TestPostAndCommentTree(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	res, pg := call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/r/golang/comments/1h0aaa1/go_124_released_whats_new/"}})
	if res.IsError || len(pg.Items) != 1 {
		t.Fatalf("error %v, items %v", res.IsError, pg.Items)
	}
	post := pg.Items[0]
	cms := comments(t, post)
	type want struct {
		id, parent, author string
		depth, replies     float64
		more               any
	}
	wants := []want{
		{"c0001", "", "rustacean_rita", 0, 1, nil},
		{"c0002", "c0001", "bench_bob", 1, 1, 3.0},
		{"c0003", "c0002", "gopher_anna", 2, 0, nil},
		{"c0004", "", "AutoModerator", 0, 0, nil},
	}
	if len(cms) != len(wants) {
		t.Fatalf("comments %v", cms)
	}
	for i, w := range wants {
		c := cms[i]
		if c["id"] != w.id || c["author"] != w.author || c["depth"] != w.depth || c["replies"] != w.replies || c["more_replies"] != w.more || (w.parent == "" && c["parent_id"] != nil) || (w.parent != "" && c["parent_id"] != w.parent) {
			t.Errorf("comment %d = %v, want %+v", i, c, w)
		}
	}
	if cms[0]["body"] != "`testing.B.Loop` & the new map implementation." || cms[0]["score"] != 120.0 || cms[0]["created_at"] != "2025-02-11T19:01:40Z" ||
		cms[0]["url"] != "https://www.reddit.com/r/golang/comments/1h0aaa1/go_124_released_whats_new/c0001/" {
		t.Errorf("first comment %v", cms[0])
	}
	if cms[1]["edited"] != true || cms[2]["is_submitter"] != true || cms[3]["stickied"] != true {
		t.Errorf("flags: %v %v %v", cms[1], cms[2], cms[3])
	}
	if post["more_comments"] != 140.0 || post["comment_count"] != 143.0 {
		t.Errorf("post more_comments %v comment_count %v", post["more_comments"], post["comment_count"])
	}
	reqs := s.log.WithPrefix("/comments/1h0aaa1.json")
	if len(reqs) != 1 {
		t.Fatalf("thread requests %v", reqs)
	}
	if q := query(t, reqs[0]); q.Get("limit") != "20" || q.Get("depth") != "4" || q.Get("sort") != "confidence" || q.Get("raw_json") != "1" {
		t.Errorf("thread asked %v", q)
	}

	// max_comment_depth 1 cuts c0003 and the three below it; max_comments 2
	// keeps the first two and counts the rest.
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://redd.it/1h0aaa1"}, "max_comment_depth": 1, "comment_sort": "new"})
	if cms = comments(t, pg.Items[0]); res.IsError || len(cms) != 3 || cms[1]["more_replies"] != 4.0 || cms[1]["replies"] != 0.0 || pg.Items[0]["more_comments"] != 141.0 {
		t.Errorf("depth 1: %v more %v", cms, pg.Items[0]["more_comments"])
	}
	if reqs := s.log.WithPrefix("/comments/1h0aaa1.json"); query(t, reqs[1]).Get("sort") != "new" || query(t, reqs[1]).Get("depth") != "2" {
		t.Errorf("thread asked %v", reqs[1])
	}
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/r/golang/s/AbCdEf123"}, "max_comments": 2})
	if res.IsError {
		t.Fatalf("share link: %s", textOf(res))
	}
	if cms = comments(t, pg.Items[0]); len(cms) != 2 || cms[1]["id"] != "c0002" || cms[1]["more_replies"] != 4.0 || pg.Items[0]["more_comments"] != 142.0 {
		t.Errorf("max 2: %v more %v", cms, pg.Items[0]["more_comments"])
	}
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/comments/1h0aaa1/"}, "max_comments": 0})
	if res.IsError || pg.Items[0]["comments"] != nil || pg.Items[0]["title"] != "Go 1.24 released & what's new" {
		t.Errorf("no comments: %v", pg.Items)
	}
}

// TestUsersAndListedComments reads a user's profile and posts, and the
// comments of listed posts when include_comments asks.
func TestUsersAndListedComments(t *testing.T) {
	s := &standIn{listed: 120}
	cs := connect(t, s)
	res, pg := call(t, cs, map[string]any{"users": []string{"u/gopher_anna"}, "sort": "top", "time_filter": "all"})
	if res.IsError || len(pg.Items) != 4 {
		t.Fatalf("error %v, items %v", res.IsError, pg.Items)
	}
	u := pg.Items[0]
	if u["type"] != "user" || u["name"] != "gopher_anna" || u["url"] != "https://www.reddit.com/user/gopher_anna/" || u["total_karma"] != 55444.0 ||
		u["link_karma"] != 15234.0 || u["comment_karma"] != 40210.0 || u["created_at"] != "2014-12-31T04:26:40Z" || u["verified"] != true ||
		u["description"] != "Writes Go. Bakes bread." || !strings.HasPrefix(u["icon"].(string), "https://styles.redditmedia.com/") {
		t.Errorf("user %v", u)
	}
	if posts := ofType(pg.Items, "post"); len(posts) != 3 || posts[0]["source"] != "https://www.reddit.com/user/gopher_anna/" {
		t.Errorf("posts %v", posts)
	}
	if reqs := s.log.WithPrefix("/user/gopher_anna/submitted.json"); len(reqs) != 1 || query(t, reqs[0]).Get("sort") != "top" || query(t, reqs[0]).Get("t") != "all" {
		t.Errorf("submitted requests %v", reqs)
	}

	res, pg = call(t, cs, map[string]any{"subreddits": []string{"many"}, "max_items": 3, "include_comments": true, "max_comments": 5})
	if res.IsError || len(pg.Items) != 3 {
		t.Fatalf("include_comments: error %v, %v", res.IsError, pg.Items)
	}
	for _, p := range pg.Items {
		if cms := comments(t, p); len(cms) != 1 || cms[0]["body"] != "first!" {
			t.Errorf("post %v: comments %v", p["id"], cms)
		}
	}
	// At most 100 threads per call: the rest come without comments, said.
	res, pg = call(t, cs, map[string]any{"subreddits": []string{"many"}, "search_queries": []string{"x"}, "max_items": 100, "include_comments": true})
	if res.IsError || len(pg.Items) != 105 || !pg.Partial || !strings.Contains(strings.Join(pg.PartialReasons, " "), "first 100 posts") {
		t.Fatalf("thread budget: error %v, %d items, partial %v %v", res.IsError, len(pg.Items), pg.Partial, pg.PartialReasons)
	}
	if pg.Items[99]["comments"] == nil || pg.Items[100]["comments"] != nil {
		t.Errorf("comments on the 100th and 101st posts: %v / %v", pg.Items[99]["comments"], pg.Items[100]["comments"])
	}
	if n := len(s.log.WithPrefix("/comments/")); n != 103 {
		t.Errorf("%d thread requests, want 103 (3 + the budget of 100)", n)
	}
}

// TestBlocksAndErrors: each kind of block is a tool error naming Reddit and
// the block; a private subreddit fails its source, saying why.
func TestBlocksAndErrors(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	for sub, want := range map[string]string{
		"walled":     "login wall",
		"netblocked": "network-security block page",
		"adults":     "web page where JSON was asked for",
		"busy":       "rate limited",
	} {
		res, _ := call(t, cs, map[string]any{"subreddits": []string{sub}})
		if text := textOf(res); !res.IsError || !strings.Contains(text, "Reddit") || !strings.Contains(text, want) {
			t.Errorf("r/%s: error %v, %q; want a tool error naming Reddit and %q", sub, res.IsError, text, want)
		}
	}
	res, _ := call(t, cs, map[string]any{"subreddits": []string{"secret"}})
	if text := textOf(res); !res.IsError || !strings.Contains(text, "private") {
		t.Errorf("private subreddit: error %v, %q", res.IsError, text)
	}
	// A failed source beside a good one: the good one's posts, the failure
	// named, the result partial.
	res, pg := call(t, cs, map[string]any{"subreddits": []string{"secret", "golang"}})
	if res.IsError || !pg.Partial || len(pg.Items) != 5 || !strings.Contains(pg.Items[0]["error"].(string), "private") {
		t.Errorf("mixed: error %v, partial %v, items %v", res.IsError, pg.Partial, pg.Items)
	}
	// Without the front page's cookie Reddit blocks: a session the block
	// ended is loaded anew on the next call.
	call(t, cs, map[string]any{"subreddits": []string{"netblocked"}})
	loads := s.frontLoads.Load()
	if res, _ := call(t, cs, map[string]any{"subreddits": []string{"golang"}}); res.IsError {
		t.Errorf("after a block: %s", textOf(res))
	}
	if s.frontLoads.Load() != loads+1 {
		t.Errorf("front page loads %d → %d, want one more after a block", loads, s.frontLoads.Load())
	}
}

// TestArgumentsThroughTheHost: bad arguments are tool errors naming the
// argument and its rule.
func TestArgumentsThroughTheHost(t *testing.T) {
	cs := connect(t, &standIn{})
	for _, c := range []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{}, "urls"},
		{map[string]any{"subreddits": []string{"golang"}, "max_items": 101}, "max_items"},
		{map[string]any{"subreddits": []string{"golang"}, "max_items": 0}, "max_items"},
		{map[string]any{"urls": []string{"https://redd.it/abc"}, "max_comments": 501}, "max_comments"},
		{map[string]any{"urls": []string{"https://redd.it/abc"}, "max_comment_depth": 11}, "max_comment_depth"},
		{map[string]any{"subreddits": []string{"golang"}, "sort": "relevance"}, "sort"},
		{map[string]any{"search_queries": []string{"go"}, "sort": "rising"}, "sort"},
		{map[string]any{"subreddits": []string{"golang"}, "time_filter": "decade"}, "time_filter"},
		{map[string]any{"subreddits": []string{"golang"}, "comment_sort": "random"}, "comment_sort"},
		{map[string]any{"subreddits": []string{"no spaces"}}, "subreddits"},
		{map[string]any{"users": []string{"a/b"}}, "users"},
		{map[string]any{"urls": []string{"https://example.com/r/golang"}}, "urls"},
		{map[string]any{"urls": []string{"https://www.reddit.com/settings/"}}, "urls"},
		{map[string]any{"subreddits": make([]string, 21)}, "subreddits"},
	} {
		res, _ := call(t, cs, c.args)
		if text := textOf(res); !res.IsError || !strings.Contains(text, c.arg) {
			t.Errorf("%v: error %v, %q; want one naming %s", c.args, res.IsError, text, c.arg)
		}
	}
}

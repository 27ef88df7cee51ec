package instagram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestScrapeProfilesAndPosts lists a profile's recent posts from the web
// profile endpoint and reads posts and reels from the JSON their pages
// embed, through a real host.
func TestScrapeProfilesAndPosts(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	if titles := scrapertest.ToolTitles(t, cs); titles["scrape"] != "Scrape Instagram" || titles["details"] != "Instagram details" {
		t.Fatalf("tools %v", titles)
	}
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"usernames": []string{"@crumbandco"}})
	if res.IsError || len(pg.Items) != 3 {
		t.Fatalf("error %v, items %v: %s", res.IsError, pg.Items, text(res))
	}
	img, reel, side := pg.Items[0], pg.Items[1], pg.Items[2]
	if img["url"] != "https://www.instagram.com/p/DAaaaaaaaa1/" || img["type"] != "post" || img["media_type"] != "image" || img["like_count"] != 2310.0 ||
		img["comment_count"] != 87.0 || img["taken_at"] != "2025-06-01T10:00:00Z" || img["owner_username"] != "crumbandco" || img["location"] != "Leeds, United Kingdom" ||
		img["source"] != "https://www.instagram.com/crumbandco/" || !has(img["caption"].(string), "Sourdough Saturday") {
		t.Errorf("image post %v", img)
	}
	if tags, _ := img["hashtags"].([]any); len(tags) != 3 || tags[0] != "sourdough" {
		t.Errorf("hashtags %v", img["hashtags"])
	}
	if m, _ := img["mentions"].([]any); len(m) != 1 || m[0] != "flourmill.leeds" {
		t.Errorf("mentions %v", img["mentions"])
	}
	if reel["type"] != "reel" || reel["url"] != "https://www.instagram.com/reel/DAaaaaaaaa2/" || reel["view_count"] != 120455.0 || reel["duration"] != 31.4 ||
		reel["video_url"] != "https://scontent.cdninstagram.com/o1/v/t16/vid2.mp4?efg=x&_nc_ht=y" {
		t.Errorf("reel %v", reel)
	}
	if m := list(side["media"]); side["media_type"] != "carousel" || len(m) != 2 || m[1]["type"] != "video" || m[1]["url"] != "https://scontent.cdninstagram.com/o1/v/t16/side3b.mp4" {
		t.Errorf("carousel %v", side)
	}
	// Twelve asked by default; the timeline query says there are only the
	// three: the listing ends, whole, with no cursor.
	if pg.Partial || nextCursor(t, res) != "" {
		t.Errorf("partial %v %v, next_cursor %q", pg.Partial, pg.PartialReasons, nextCursor(t, res))
	}
	if q := s.log.WithPrefix("/graphql/query/"); len(q) != 1 || !has(q[0], "first%22%3A9") || !has(q[0], "QVFEeXh0") {
		t.Errorf("timeline requests %v: want one for the 9 posts after web_profile_info's end_cursor", q)
	}
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.instagram.com/crumbandco/"}, "max_items": 2})
	if res.IsError || len(pg.Items) != 2 || pg.Partial || nextCursor(t, res) == "" {
		t.Errorf("max_items 2: error %v, %d items, partial %v, next_cursor %q", res.IsError, len(pg.Items), pg.Partial, nextCursor(t, res))
	}

	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{
		"https://www.instagram.com/p/DAaaaaaaaa1/?img_index=1", "https://instagram.com/reel/DAaaaaaaaa2/", "https://www.instagram.com/oldtimer/p/DAaaaaaaaa9/"}})
	if res.IsError || len(pg.Items) != 3 {
		t.Fatalf("posts: error %v, items %v", res.IsError, pg.Items)
	}
	post, reel, old := pg.Items[0], pg.Items[1], pg.Items[2]
	if m := list(post["media"]); post["media_type"] != "carousel" || len(m) != 2 || m[1]["url"] != "https://scontent.cdninstagram.com/o1/v/t16/c2_720.mp4?efg=x" ||
		post["display_url"] != "https://scontent.cdninstagram.com/v/t51/img1_1080.jpg?stp=dst-jpg_e35&efg=x" || post["width"] != 1080.0 || post["owner_full_name"] != "Crumb & Co Bakery" ||
		post["comments"] != nil || post["like_count"] != 2310.0 {
		t.Errorf("post %v", post)
	}
	// Hidden like and view counts are left out, not zero.
	if reel["type"] != "reel" || reel["like_count"] != nil || reel["view_count"] != nil || reel["comment_count"] != 301.0 || reel["video_url"] == nil {
		t.Errorf("reel %v", reel)
	}
	if old["shortcode"] != "DAaaaaaaaa9" || old["like_count"] != 51.0 || old["owner_username"] != "oldtimer" || old["taken_at"] != "2017-07-14T02:40:00Z" {
		t.Errorf("graphql post %v", old)
	}
}

// TestDetails reads a profile's details and a post with its comments.
func TestDetails(t *testing.T) {
	cs := connect(t, &standIn{})
	res, pg := scrapertest.CallTool(t, cs, "details", map[string]any{"usernames": []string{"crumbandco", "hidden_baker"}, "urls": []string{"https://www.instagram.com/p/DAaaaaaaaa1/"}})
	if res.IsError || len(pg.Items) != 3 {
		t.Fatalf("error %v, items %v", res.IsError, pg.Items)
	}
	post, prof, hidden := pg.Items[0], pg.Items[1], pg.Items[2] // urls first, then usernames
	if prof["type"] != "profile" || prof["url"] != "https://www.instagram.com/crumbandco/" || prof["followers"] != 48213.0 || prof["following"] != 312.0 ||
		prof["post_count"] != 731.0 || prof["full_name"] != "Crumb & Co Bakery" || prof["verified"] != true || prof["business"] != true || prof["category"] != "Bakery" ||
		prof["external_url"] != "https://crumb.example.test/" || !has(prof["biography"].(string), "Leeds") || len(list(prof["recent_posts"])) != 3 ||
		!has(prof["profile_pic"].(string), "p320.jpg") {
		t.Errorf("profile %v", prof)
	}
	if hidden["private"] != true || hidden["followers"] != 10.0 || hidden["recent_posts"] != nil {
		t.Errorf("private profile %v", hidden)
	}
	// The page's comments connection, not the item's preview comments:
	// three, and the rest behind Instagram's cursor (the stand-in has no
	// more, so the listing ends there).
	if c := list(post["comments"]); len(c) != 3 || c[0]["username"] != "loaf_lover" || c[0]["like_count"] != 14.0 || c[0]["reply_count"] != 2.0 ||
		c[1]["text"] != "What flour do you use?" || c[2]["username"] != "leeds.eats" {
		t.Errorf("post comments %v", post["comments"])
	}
	// Original dimensions, not the largest thumbnail's; every carousel child.
	if m := list(post["media"]); post["width"] != 1080.0 || post["height"] != 1350.0 || len(m) != 2 || m[1]["height"] != 1920.0 ||
		m[1]["thumbnail"] != "https://scontent.cdninstagram.com/v/t51/c2.jpg" {
		t.Errorf("post media %v %v %v", post["width"], post["height"], post["media"])
	}
	if prof["read_from"] != "web_profile_info" {
		t.Errorf("read_from %v", prof["read_from"])
	}
}

// TestProfileFromTheLoggedOutPage: when the profile API asks for a login,
// details reads the logged-out profile page's meta tags and says so, and
// scrape lists the posts through the timeline query with the id the page
// names.
func TestProfileFromTheLoggedOutPage(t *testing.T) {
	s := &standIn{timeline: 5}
	cs := connect(t, s)
	res, pg := scrapertest.CallTool(t, cs, "details", map[string]any{"usernames": []string{"ryeandshine"}})
	if res.IsError || len(pg.Items) != 1 {
		t.Fatalf("error %v: %s", res.IsError, text(res))
	}
	p := pg.Items[0]
	if p["read_from"] != "profile page" || p["username"] != "ryeandshine" || p["full_name"] != "Rye & Shine" || p["followers"] != 12400.0 ||
		p["following"] != 1051.0 || p["post_count"] != 3287.0 || p["counts_rounded"] != true || p["id"] != "7700000001" ||
		p["biography"] != "Slow bread, fast friends.\nWholesale & café • Bristol" || !has(p["profile_pic"].(string), "rye_s150.jpg") {
		t.Errorf("profile from the page %v", p)
	}
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"usernames": []string{"ryeandshine"}})
	if res.IsError || len(pg.Items) != 5 || pg.Partial || pg.Items[4]["shortcode"] != "DT000000004" || pg.Items[0]["owner_username"] != "ryeandshine" {
		t.Fatalf("posts through the query: error %v, %d items: %.300s", res.IsError, len(pg.Items), text(res))
	}
}

// TestPagingPostsAndComments walks a profile's posts and a post's comments
// two pages at a time: each answer's next_cursor, given back as cursor,
// continues where it stopped, nothing skipped or repeated, until Instagram
// says there is no more; max_items or comments stopping inside a page is
// continued inside that page.
func TestPagingPostsAndComments(t *testing.T) {
	s := &standIn{timeline: 30, comments: 45}
	cs := connect(t, s)
	var codes []string
	cursor := ""
	for call := 0; ; call++ {
		args := map[string]any{"usernames": []string{"crumbandco"}, "max_items": 7}
		if cursor != "" {
			args = map[string]any{"cursor": cursor, "max_items": 7}
		}
		res, pg := scrapertest.CallTool(t, cs, "scrape", args)
		if res.IsError || pg.Partial {
			t.Fatalf("call %d: error %v, partial %v: %.300s", call, res.IsError, pg.Partial, text(res))
		}
		for _, it := range pg.Items {
			codes = append(codes, it["shortcode"].(string))
		}
		cursor = nextCursor(t, res)
		if cursor == "" {
			break
		}
		if call > 6 {
			t.Fatal("the cursor never ends")
		}
	}
	if len(codes) != 30 || codes[0] != "DAaaaaaaaa1" || codes[3] != "DT000000003" || codes[29] != "DT000000029" {
		t.Fatalf("posts %v", codes)
	}
	for i, c := range codes[3:] {
		if c != fmt.Sprintf("DT%09d", i+3) {
			t.Fatalf("post %d is %s: skipped or repeated", i+3, c)
		}
	}
	// The same cursor with the profile named beside it works; with
	// another profile, or given to details, it is refused naming cursor.
	res, _ := scrapertest.CallTool(t, cs, "scrape", map[string]any{"usernames": []string{"crumbandco"}, "max_items": 2})
	c := nextCursor(t, res)
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.instagram.com/crumbandco/"}, "cursor": c, "max_items": 2})
	if res.IsError || len(pg.Items) != 2 || pg.Items[0]["shortcode"] != "DAaaaaaaaa3" {
		t.Errorf("cursor beside its profile: %.300s", text(res))
	}
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"usernames": []string{"ryeandshine"}, "cursor": c}, "cursor", "@crumbandco")
	scrapertest.WantToolError(t, cs, "details", map[string]any{"cursor": c}, "cursor", "scrape")
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"cursor": "bm90IGEgY3Vyc29y"}, "cursor")

	// Comments: the page's three, then the pagination query, 20 at a time.
	var ids []string
	cursor = ""
	for call := 0; ; call++ {
		args := map[string]any{"urls": []string{"https://www.instagram.com/p/DAaaaaaaaa1/"}, "comments": 20}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, pg := scrapertest.CallTool(t, cs, "details", args)
		if res.IsError || pg.Partial || len(pg.Items) != 1 {
			t.Fatalf("comments call %d: error %v: %.300s", call, res.IsError, text(res))
		}
		for _, c := range list(pg.Items[0]["comments"]) {
			ids = append(ids, c["id"].(string))
		}
		cursor = nextCursor(t, res)
		if cursor != "" && pg.Items[0]["comments_next_cursor"] != cursor {
			t.Errorf("comments_next_cursor %v, next_cursor %q", pg.Items[0]["comments_next_cursor"], cursor)
		}
		if cursor == "" {
			break
		}
		if call > 4 {
			t.Fatal("the comments cursor never ends")
		}
	}
	if len(ids) != 45 {
		t.Fatalf("%d comments: %v", len(ids), ids)
	}
	for i, id := range ids {
		if id != fmt.Sprint(18000000000000001+i) {
			t.Fatalf("comment %d is %s: skipped or repeated", i, id)
		}
	}
	reqs := 0
	for _, r := range s.log.WithPrefix("/graphql/query/") {
		if r == "/graphql/query/" { // the POSTed pagination query
			reqs++
		}
	}
	if reqs != 3 {
		t.Fatalf("no comment pagination requests: %v", s.log.WithPrefix(""))
	}
	// A cursor continues alone too; comments 0 beside it is refused.
	res, _ = scrapertest.CallTool(t, cs, "details", map[string]any{"urls": []string{"https://www.instagram.com/p/DAaaaaaaaa1/"}, "comments": 2})
	c = nextCursor(t, res)
	res, pg = scrapertest.CallTool(t, cs, "details", map[string]any{"cursor": c, "comments": 2})
	if cm := list(pg.Items[0]["comments"]); res.IsError || len(cm) != 2 || cm[0]["id"] != "18000000000000003" || cm[1]["id"] != "18000000000000004" {
		t.Errorf("comments cursor alone: %.400s", text(res))
	}
	scrapertest.WantToolError(t, cs, "details", map[string]any{"cursor": c, "comments": 0}, "comments")
	scrapertest.WantToolError(t, cs, "details", map[string]any{"cursor": c, "urls": []string{"https://www.instagram.com/p/DAaaaaaaaa2/"}}, "cursor")

	// The output schemas declare next_cursor.
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		if (tool.Name == "scrape" || tool.Name == "details") && !has(string(b), `"next_cursor"`) {
			t.Errorf("%s's output schema has no next_cursor: %s", tool.Name, b)
		}
		if (tool.Name == "scrape" || tool.Name == "details") && !has(string(b), `"comments_next_cursor"`) && tool.Name == "details" {
			t.Errorf("details' output schema has no comments_next_cursor: %s", b)
		}
	}
}

// TestBlockedAfterTheFirstPage: the timeline or comments query answered
// with Instagram's error page after the first page was read gives what was
// read, partial, naming the block, with the cursor to try again from.
func TestBlockedAfterTheFirstPage(t *testing.T) {
	s := &standIn{timeline: 30, comments: 45, timelineShell: true}
	cs := connect(t, s)
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"usernames": []string{"crumbandco"}})
	if res.IsError || len(pg.Items) != 3 || !pg.Partial || !has(strings.Join(pg.PartialReasons, " "), "generic error page") || nextCursor(t, res) == "" {
		t.Errorf("timeline blocked: error %v, %d items, %v, next_cursor %q", res.IsError, len(pg.Items), pg.PartialReasons, nextCursor(t, res))
	}
	// Given back, the cursor asks the same page again: blocked still,
	// and nothing read, a tool error naming the block.
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"cursor": nextCursor(t, res)}, "Instagram", "generic error page")

	res, pg = scrapertest.CallTool(t, cs, "details", map[string]any{"urls": []string{"https://www.instagram.com/p/DNoLsdPost/"}})
	if res.IsError || len(pg.Items) != 1 || len(list(pg.Items[0]["comments"])) != 3 || !pg.Partial ||
		!has(strings.Join(pg.PartialReasons, " "), "stopped at 3 of 20") || pg.Items[0]["comments_next_cursor"] == nil {
		t.Errorf("comments blocked: error %v, %v: %.400s", res.IsError, pg.PartialReasons, text(res))
	}
}

// TestPagesThatDoNotSplit: Instagram answering a page longer than asked
// still leaves nothing out: next_cursor starts inside that page.
func TestPagesThatDoNotSplit(t *testing.T) {
	s := &standIn{timeline: 20, oddPages: true}
	cs := connect(t, s)
	seen := map[string]bool{}
	cursor := ""
	for call := 0; call < 10; call++ {
		args := map[string]any{"usernames": []string{"crumbandco"}, "max_items": 5}
		if cursor != "" {
			args = map[string]any{"cursor": cursor, "max_items": 5}
		}
		res, pg := scrapertest.CallTool(t, cs, "scrape", args)
		for _, it := range pg.Items {
			if seen[it["shortcode"].(string)] {
				t.Fatalf("%s repeated", it["shortcode"])
			}
			seen[it["shortcode"].(string)] = true
		}
		if cursor = nextCursor(t, res); cursor == "" {
			break
		}
	}
	if len(seen) != 20 {
		t.Errorf("%d of 20 posts", len(seen))
	}
}

// TestBlocksAndErrors: a login wall (the API's require_login, a redirect to
// the login page, the login page itself), a checkpoint and the rate limit
// are tool errors naming Instagram and the block; a private account, a
// missing account and a page without data fail saying why.
func TestBlocksAndErrors(t *testing.T) {
	cs := connect(t, &standIn{})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"scrape", map[string]any{"usernames": []string{"pageless"}}, "login wall"},
		{"details", map[string]any{"usernames": []string{"pageless"}}, "login wall"},
		{"scrape", map[string]any{"usernames": []string{"lockedout"}}, "asks a login for the posts of @lockedout"},
		{"details", map[string]any{"usernames": []string{"shellshock"}}, "generic error page"},
		{"details", map[string]any{"urls": []string{"https://www.instagram.com/p/DErrShell1/"}}, "generic error page"},
		{"scrape", map[string]any{"urls": []string{"https://www.instagram.com/p/DCheckpnt1/"}}, "robot check"},
		{"details", map[string]any{"urls": []string{"https://www.instagram.com/p/DLoginWall1/"}}, "login wall"},
		{"scrape", map[string]any{"urls": []string{"https://www.instagram.com/p/DLoginPage1/"}}, "login wall"},
		{"details", map[string]any{"usernames": []string{"checkpoint"}}, "robot check"},
		{"scrape", map[string]any{"usernames": []string{"busy"}}, "rate limited"},
		{"scrape", map[string]any{"usernames": []string{"hidden_baker"}}, "private account"},
		{"details", map[string]any{"usernames": []string{"nobody_here"}}, "not an Instagram account"},
		{"scrape", map[string]any{"urls": []string{"https://www.instagram.com/p/DNothing01/"}}, "no post data"},
	} {
		res, _ := scrapertest.CallTool(t, cs, c.tool, c.args)
		if !res.IsError || !has(text(res), "Instagram") && !has(text(res), "@") || !has(text(res), c.want) {
			t.Errorf("%s %v: error %v, %q; want one saying %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	// A login wall on one source beside a good one: what was read, partial.
	res, pg := scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.instagram.com/p/DAaaaaaaaa1/", "https://www.instagram.com/p/DLoginWall1/"}})
	if res.IsError || !pg.Partial || len(pg.Items) != 2 || !has(pg.Items[1]["error"].(string), "login wall") {
		t.Errorf("mixed: error %v, partial %v, items %v", res.IsError, pg.Partial, pg.Items)
	}
}

// TestArgumentsThroughTheHost: bad arguments are tool errors naming the
// argument.
func TestArgumentsThroughTheHost(t *testing.T) {
	cs := connect(t, &standIn{})
	for _, c := range []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"scrape", map[string]any{}, "urls"},
		{"details", map[string]any{}, "urls"},
		{"scrape", map[string]any{"usernames": []string{"a"}, "max_items": 51}, "max_items"},
		{"scrape", map[string]any{"usernames": []string{"a"}, "max_items": 0}, "max_items"},
		{"details", map[string]any{"usernames": []string{"a"}, "max_items": 5}, "max_items"},
		{"details", map[string]any{"usernames": []string{"a"}, "comments": 101}, "comments"},
		{"details", map[string]any{"usernames": []string{"a"}, "comments": -1}, "comments"},
		{"scrape", map[string]any{"usernames": []string{"a"}, "cursor": strings.Repeat("x", 5000)}, "cursor"},
		{"scrape", map[string]any{"cursor": 7}, "cursor"},
		{"scrape", map[string]any{"usernames": []string{"no spaces"}}, "usernames"},
		{"scrape", map[string]any{"usernames": []string{"explore"}}, "usernames"},
		{"details", map[string]any{"urls": []string{"https://www.instagram.com/explore/tags/bread/"}}, "urls"},
		{"details", map[string]any{"urls": []string{"https://example.com/p/DAaaaaaaaa1/"}}, "urls"},
		{"scrape", map[string]any{"urls": make([]string, 21)}, "urls"},
	} {
		res, _ := scrapertest.CallTool(t, cs, c.tool, c.args)
		if !res.IsError || !has(text(res), c.arg) {
			t.Errorf("%s %v: error %v, %q; want one naming %s", c.tool, c.args, res.IsError, text(res), c.arg)
		}
	}
}

// nextCursor is the next_cursor of a result ("" when absent).
func nextCursor(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	if res.IsError {
		return ""
	}
	if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
		t.Fatalf("%v: %s", err, text(res))
	}
	if page.NextCursor == nil {
		return ""
	}
	if *page.NextCursor == "" {
		t.Errorf("next_cursor is present and empty: %s", text(res))
	}
	return *page.NextCursor
}

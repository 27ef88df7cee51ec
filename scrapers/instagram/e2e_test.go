package instagram_test

import (
	"strings"
	"testing"

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
	// Twelve asked by default, three shown, more behind a login: said.
	if !pg.Partial || !has(strings.Join(pg.PartialReasons, " "), "older ones need a login") {
		t.Errorf("partial %v %v", pg.Partial, pg.PartialReasons)
	}
	res, pg = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.instagram.com/crumbandco/"}, "max_items": 2})
	if res.IsError || len(pg.Items) != 2 || pg.Partial {
		t.Errorf("max_items 2: error %v, %d items, partial %v", res.IsError, len(pg.Items), pg.Partial)
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
	if c := list(post["comments"]); len(c) != 2 || c[0]["username"] != "loaf_lover" || c[0]["like_count"] != 14.0 || c[1]["text"] != "What flour do you use?" {
		t.Errorf("post comments %v", post["comments"])
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
		{"scrape", map[string]any{"usernames": []string{"walled"}}, "login wall"},
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

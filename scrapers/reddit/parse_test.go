package reddit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestParseListingOwnFixture(t *testing.T) {
	l, err := parseListing(scrapertest.Testdata(t, "listing.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Posts) != 4 || l.After != "t3_1h0aaa4" {
		t.Fatalf("listing %+v", l)
	}
	if p := l.Posts[3]; len(p.Media) != 2 || p.Media[0].Type != "gallery_image" || p.Media[0].Width != 1920 || p.LinkURL != "https://www.reddit.com/gallery/1h0aaa4" {
		t.Errorf("gallery %+v", p)
	}
	if p := l.Posts[2]; len(p.Media) != 1 || p.Media[0].URL != "https://v.redd.it/vid123/DASH_720.mp4?source=fallback" || p.Media[0].Height != 720 {
		t.Errorf("video %+v", p.Media)
	}
}

func TestParseOddAndHostileAnswers(t *testing.T) {
	for name, body := range map[string]string{
		"empty":        ``,
		"html":         `<!DOCTYPE html><html>`,
		"not listing":  `{"kind":"Listing","data":{"children":"x"}}`,
		"array":        `[1,2]`,
		"broken":       `{"kind":"Listing","data":{`,
		"error object": `{"reason":"banned","message":"Not Found","error":404}`,
	} {
		if l, err := parseListing([]byte(body)); err == nil {
			t.Errorf("%s: listing %+v, want an error", name, l)
		}
	}
	var ae *apiError
	if _, err := parseListing([]byte(`{"reason":"quarantined","message":"Forbidden","error":403}`)); !errors.As(err, &ae) || !strings.Contains(err.Error(), "quarantined") {
		t.Errorf("quarantined: %v", err)
	}
	// Things of odd shape are skipped or read as zero values.
	l, err := parseListing([]byte(`{"kind":"Listing","data":{"after":5,"children":[null,"x",{"kind":"t3","data":{"id":"UPPER","title":"t"}},
		{"kind":"t3","data":{"id":"ok1","title":"fine","score":"12","created_utc":-5,"permalink":"//evil.example/x","url":"javascript:alert(1)","is_self":false,
		"preview":{"images":[{"source":{"url":"ftp://x"}},7]},"media":{"reddit_video":[]},"gallery_data":{"items":[{"media_id":{}}]},"media_metadata":[],"upvote_ratio":7}},
		{"kind":"t1","data":{"id":"c1"}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Posts) != 1 || l.After != "5" {
		t.Fatalf("posts %+v after %q", l.Posts, l.After)
	}
	p := l.Posts[0]
	if p.URL != "https://www.reddit.com/comments/ok1/" || p.LinkURL != "" || len(p.Media) != 0 || p.CreatedAt != "" || p.UpvoteRatio != nil || *p.Score != 12 {
		t.Errorf("odd post %+v", p)
	}
	if _, err := parseThread([]byte(`[{"kind":"Listing","data":{"children":[]}}]`), commentBounds{Max: 5}); !errors.Is(err, errNoPost) {
		t.Errorf("thread without post: %v", err)
	}
	if _, err := parseUser([]byte(`{"kind":"t2","data":{"name":""}}`)); !errors.Is(err, errNoUser) {
		t.Errorf("user without name: %v", err)
	}
}

// TestCommentBoundsOnDeepThreads: a thread nested far deeper than any bound
// is read within max_comment_depth, and what is cut is counted.
func TestCommentBoundsOnDeepThreads(t *testing.T) {
	const levels = 1500 // 5 JSON levels each, within encoding/json's 10,000
	body := `[{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"p1","title":"deep"}}]}},{"kind":"Listing","data":{"children":[`
	body += strings.Repeat(`{"kind":"t1","data":{"id":"c","body":"x","replies":{"kind":"Listing","data":{"children":[`, levels)
	body += strings.Repeat(`]}}}}`, levels) + `]}}]`
	p, err := parseThread([]byte(body), commentBounds{Max: 500, MaxDepth: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Comments) != 11 || p.Comments[10].Depth != 10 || p.Comments[10].ParentID != "c" {
		t.Fatalf("%d comments", len(p.Comments))
	}
	if p.MoreComments == 0 || p.Comments[10].MoreReplies != p.MoreComments {
		t.Errorf("more %d, last comment's more_replies %d", p.MoreComments, p.Comments[10].MoreReplies)
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(path string, status int, body string) *scrapers.Response {
		r := &scrapers.Response{Request: &scrapers.Request{URL: "https://www.reddit.com" + path}, StatusCode: status, Body: []byte(body)}
		r.URL, _ = r.URL.Parse("https://www.reddit.com" + path)
		return r
	}
	blocked := string(scrapertest.Testdata(t, "blocked.html"))
	for _, c := range []struct {
		r    *scrapers.Response
		kind string
	}{
		{resp("/login/?dest=x", 200, "<html>"), scrapers.BlockLoginWall},
		{resp("/over18?dest=x", 200, "<html>"), scrapers.BlockLoginWall},
		{resp("/r/x/hot.json", 403, blocked), blockNetwork},
		{resp("/", 403, blocked), blockNetwork},
		{resp("/r/x/hot.json", 200, string(scrapertest.Testdata(t, "interstitial.html"))), blockHTML},
		{resp("/r/x/hot.json", 429, "<html>Too Many Requests</html>"), ""},
		{resp("/r/x/hot.json", 503, "<html>down</html>"), ""},
		{resp("/r/x/hot.json", 403, `{"reason":"private","error":403}`), ""},
		{resp("/r/x/hot.json", 200, string(scrapertest.Testdata(t, "listing.json"))), ""},
		{resp("/", 200, string(scrapertest.Testdata(t, "front.html"))), ""},
	} {
		scrapertest.CheckBlock(t, detectBlock(c.r), c.kind, "Reddit")
	}
}

func FuzzParseListing(f *testing.F) {
	for _, name := range []string{"listing.json", "about.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"a","title":"b","media_metadata":{"x":{"s":{"u":5}}},"gallery_data":{"items":[{"media_id":"x"}]}}}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		l, err := parseListing(body)
		if err != nil {
			return
		}
		for _, p := range l.Posts {
			if p.ID == "" || p.Title == "" || !strings.HasPrefix(p.URL, origin+"/") {
				t.Fatalf("post without id, title or Reddit url: %+v", p)
			}
			for _, m := range p.Media {
				if !strings.HasPrefix(m.URL, "http") {
					t.Fatalf("media url %q", m.URL)
				}
			}
		}
		parseUser(body)
	})
}

func FuzzParseThread(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "thread.json")); err == nil {
		f.Add(b, 20, 3)
		f.Add(b, 1, 0)
	}
	f.Add([]byte(`[{"data":{"children":[{"kind":"t3","data":{"id":"a","title":"b"}}]}},{"data":{"children":[{"kind":"more","data":{"count":-4}},{"kind":"t1","data":{"id":"c","replies":{"data":{"children":[{"kind":"t1","data":{"id":"d"}}]}}}}]}}]`), 5, 0)
	f.Fuzz(func(t *testing.T, body []byte, maxc, depth int) {
		b := commentBounds{Max: maxc % 600, MaxDepth: depth % 12}
		p, err := parseThread(body, b)
		if err != nil {
			return
		}
		if len(p.Comments) > max(b.Max, 0) || p.MoreComments < 0 {
			t.Fatalf("%d comments (max %d), more %d", len(p.Comments), b.Max, p.MoreComments)
		}
		for i, c := range p.Comments {
			if c.Depth > b.MaxDepth || c.Replies < 0 || (c.Depth > 0) != (c.ParentID != "") {
				t.Fatalf("comment %d %+v beyond the bounds", i, c)
			}
		}
	})
}

func FuzzParseCommentThread(f *testing.F) {
	for _, name := range []string{"comment-context.json", "comment-alone.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b, "c0003", 20, 3)
			f.Add(b, "c0005", 1, 0)
		}
	}
	f.Add([]byte(`[{"data":{"children":[{"kind":"t3","data":{"id":"a","title":"b"}}]}},{"data":{"children":[{"kind":"t1","data":{"id":"c","depth":1e300,"parent_id":"t1_zz","replies":{"data":{"children":[{"kind":"t1","data":{"id":"d"}}]}}}}]}}]`), "d", 0, 0)
	f.Fuzz(func(t *testing.T, body []byte, focus string, maxc, depth int) {
		b := commentBounds{Max: maxc % 600, MaxDepth: depth % 12}
		th, err := parseCommentThread(body, focus, b)
		if err != nil {
			return
		}
		focused := 0
		for _, c := range th.Comments {
			if c.Focus {
				focused++
				if c.ID != focus {
					t.Fatalf("comment %s marked focus for %s", c.ID, focus)
				}
			}
			if c.Replies < 0 || c.Depth < 0 {
				t.Fatalf("comment %+v", c)
			}
		}
		if focused != 1 || th.Post.ID == "" || th.MoreComments < 0 {
			t.Fatalf("%d focused comments, post %q, more %d", focused, th.Post.ID, th.MoreComments)
		}
	})
}

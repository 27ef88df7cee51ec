package tiktok

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestParseCommentsWithRealFields builds comment list answers from the
// shared fixture of a real scrape's comments (its values as TikTok's API
// gave them, the user's names under "user" as the API nests them).
func TestParseCommentsWithRealFields(t *testing.T) {
	var parsed []map[string]any
	if err := json.Unmarshal(scrapertest.Fixture(t, "tiktok/scrapfly-comments-parsed.json"), &parsed); err != nil {
		t.Fatal(err)
	}
	var comments []any
	for _, c := range parsed {
		c["user"] = map[string]any{"unique_id": c["unique_id"], "nickname": c["nickname"]}
		delete(c, "unique_id")
		delete(c, "nickname")
		comments = append(comments, c)
	}
	body, _ := json.Marshal(map[string]any{"comments": comments, "cursor": 20, "has_more": 1, "total": 2700, "status_code": 0})
	pg, err := parseComments(body, "7198206283571285294", "https://www.tiktok.com/@x/video/7198206283571285294")
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Comments) != len(parsed) || !pg.HasMore || pg.Cursor != "20" || *pg.Total != 2700 {
		t.Fatalf("page %+v", pg)
	}
	c := pg.Comments[0]
	if c.Text != "Why do u have them" || c.Likes != 3252 || c.ReplyCount != 10 || c.Author != "jordan.wav" || c.CommentID != "7198708872234664710" ||
		c.Language != "en" || c.CreatedAt != "2023-02-11T01:47:18Z" || c.IsPinned {
		t.Errorf("comment %+v", c)
	}
}

func TestParseSearchAndCommentsHostile(t *testing.T) {
	var se *signedError
	for _, users := range []bool{false, true} {
		if _, err := parseSearch([]byte("  \n"), users); !errors.As(err, &se) || se.Endpoint == "" {
			t.Errorf("empty search answer: %v", err)
		}
		if _, err := parseSearch([]byte(`<html>`), users); !errors.Is(err, errNotJSON) {
			t.Errorf("html: %v", err)
		}
		var st *statusError
		if _, err := parseSearch([]byte(`{"status_code":2483,"status_msg":"bad"}`), users); !errors.As(err, &st) {
			t.Errorf("status: %v", err)
		}
	}
	pg, err := parseSearch([]byte(`{"item_list":[null,7,{"id":""},{"id":123,"author":["x"]}],"has_more":"yes","cursor":{}}`), false)
	if err != nil || len(pg.Videos) != 1 || pg.Videos[0].URL == "" || pg.HasMore || pg.Cursor != "" {
		t.Errorf("odd search page %+v %v", pg, err)
	}
	pg, err = parseSearch([]byte(`{"user_list":[{"user_info":{"unique_id":"../x"}},{"user_info":{"unique_id":"ok.name","follower_count":-3,"secret":1}}],"has_more":0}`), true)
	if err != nil || len(pg.Profiles) != 1 || pg.Profiles[0].Stats.Followers != nil || !pg.Profiles[0].Private {
		t.Errorf("odd user page %+v %v", pg, err)
	}
	if _, err := parseComments(nil, "1", "u"); !errors.As(err, &se) || se.Endpoint != commentListPath {
		t.Errorf("empty comments: %v", err)
	}
	cp, err := parseComments([]byte(`{"comments":[{"cid":""},{"cid":5,"digg_count":-1,"create_time":1e20,"user":"x"}],"total":-1}`), "1", "u")
	if err != nil || len(cp.Comments) != 1 || cp.Comments[0].Likes != 0 || cp.Comments[0].CreatedAt != "" || cp.Total != nil {
		t.Errorf("odd comments %+v %v", cp, err)
	}
}

func FuzzParseSearch(f *testing.F) {
	f.Add([]byte(`{"item_list":[{"id":"1","author":{"uniqueId":"a"}}],"has_more":1,"cursor":20}`), false)
	f.Add([]byte(`{"user_list":[{"user_info":{"unique_id":"a","follower_count":"9"}}],"has_more":1,"cursor":"10"}`), true)
	f.Add([]byte(``), true)
	f.Fuzz(func(t *testing.T, body []byte, users bool) {
		pg, err := parseSearch(body, users)
		if err != nil {
			return
		}
		for _, v := range pg.Videos {
			if v.ID == "" || v.URL == "" {
				t.Fatalf("video %+v", v)
			}
		}
		for _, p := range pg.Profiles {
			if !usernameRE.MatchString(p.UniqueID) || p.URL == "" {
				t.Fatalf("profile %+v", p)
			}
		}
	})
}

func FuzzParseComments(f *testing.F) {
	f.Add([]byte(`{"comments":[{"cid":"1","text":"hi","user":{"unique_id":"a"},"digg_count":3,"reply_comment_total":2}],"has_more":1,"cursor":20,"total":5}`))
	f.Add([]byte(`{"status_code":5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		pg, err := parseComments(body, "1", "https://www.tiktok.com/@a/video/1")
		if err != nil {
			return
		}
		for _, c := range pg.Comments {
			if c.CommentID == "" || c.Likes < 0 || c.ReplyCount < 0 || c.URL == "" {
				t.Fatalf("comment %+v", c)
			}
		}
	})
}

// FuzzArgs: the arguments of both tools decode to an *ArgError or to
// sources within the bounds.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{"urls":["https://www.tiktok.com/@a/video/12345","https://www.tiktok.com/search/user?q=b"],"search_queries":["c"],"search_type":"users","max_items":100}`,
		`{"video_ids":["7000000000000000001"],"max_comments":500}`,
		`{"hashtags":["#x"],"profiles":["@y"]}`, `{"search_type":"x"}`, `{"urls":["https://www.tiktok.com/search?q="]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		isArgErr := func(err error) {
			var ae *scrapers.ArgError
			if !errors.As(err, &ae) || ae.Arg == "" {
				t.Fatalf("error %v is not an argument error", err)
			}
		}
		var s scrapeArgs
		if err := scrapers.DecodeArgs(raw, &s); err != nil {
			isArgErr(err)
		} else {
			if s.maxItems < 1 || s.maxItems > maxMaxItems || len(s.urls)+len(s.profiles)+len(s.hashtags)+len(s.searches) == 0 {
				t.Fatalf("accepted %+v", s)
			}
			for _, q := range s.searches {
				if q.query == "" {
					t.Fatalf("empty search accepted: %+v", s)
				}
			}
		}
		var c commentsArgs
		if err := scrapers.DecodeArgs(raw, &c); err != nil {
			isArgErr(err)
		} else if c.maxComments < 1 || c.maxComments > maxMaxComments || len(c.videos) == 0 || len(c.videos) > 2*maxSources {
			t.Fatalf("accepted %+v", c)
		} else {
			for _, v := range c.videos {
				if !videoIDRE.MatchString(v.id) {
					t.Fatalf("video %+v", v)
				}
			}
		}
	})
}

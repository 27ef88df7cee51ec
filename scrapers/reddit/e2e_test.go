package reddit_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestSubredditPosts reads a subreddit through a real host: the front page
// once for the anonymous cookie, then the listing with raw_json=1 (the
// stand-in refuses JSON requests without either).
func TestSubredditPosts(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	if titles := scrapertest.ToolTitles(t, cs); titles["scrape"] != "Scrape Reddit" {
		t.Fatalf("tools %v", titles)
	}
	res, pg := call(t, cs, map[string]any{"subreddits": []string{"r/golang"}})
	if res.IsError {
		t.Fatalf("tool error: %s", scrapertest.Text(res))
	}
	posts := ofType(pg.Items, "post")
	if len(posts) != 4 || pg.Partial {
		t.Fatalf("%d posts, partial %v: %s", len(posts), pg.Partial, scrapertest.Text(res))
	}
	self, link, video, gallery := posts[0], posts[1], posts[2], posts[3]
	if self["url"] != "https://www.reddit.com/r/golang/comments/1h0aaa1/go_124_released_whats_new/" || self["title"] != "Go 1.24 released & what's new" ||
		self["author"] != "gopher_anna" || self["score"] != 812.0 || self["comment_count"] != 143.0 || self["flair"] != "discussion" ||
		self["created_at"] != "2025-02-11T18:53:20Z" || self["upvote_ratio"] != 0.97 || self["stickied"] != true || self["author_flair"] != "gopher" ||
		!strings.HasPrefix(self["selftext"].(string), "Go 1.24 is out.") || self["link_url"] != nil || self["source"] != "https://www.reddit.com/r/golang/" {
		t.Errorf("self post: %v", self)
	}
	// raw_json=1: the link keeps its & (Reddit escapes it as &amp; without).
	if link["link_url"] != "https://blog.example.test/swiss-maps?ref=reddit&x=1" || link["domain"] != "blog.example.test" || link["flair"] != "show & tell" {
		t.Errorf("link post: %v", link)
	}
	if m := link["media"].([]any); len(m) != 1 || m[0].(map[string]any)["url"] != "https://external-preview.redd.it/abc.jpg?auto=webp&s=1a2b" || m[0].(map[string]any)["width"] != 1200.0 {
		t.Errorf("link post media: %v", link["media"])
	}
	if m, _ := video["media"].([]any); len(m) != 1 || m[0].(map[string]any)["type"] != "video" || video["nsfw"] != true || video["spoiler"] != true {
		t.Errorf("video post: %v", video)
	}
	if m, _ := gallery["media"].([]any); len(m) != 2 || m[1].(map[string]any)["url"] != "https://preview.redd.it/img2.png?width=800&format=png&s=cd" || gallery["author"] != "[deleted]" {
		t.Errorf("gallery post: %v", gallery)
	}
	if n := s.frontLoads.Load(); n != 1 {
		t.Errorf("front page loaded %d times, want once", n)
	}
	// A second call uses the same anonymous session.
	if res, _ := call(t, cs, map[string]any{"subreddits": []string{"golang"}, "sort": "new"}); res.IsError {
		t.Fatalf("second call: %s", scrapertest.Text(res))
	}
	if n := s.frontLoads.Load(); n != 1 {
		t.Errorf("front page loaded %d times after two calls, want once", n)
	}
	// The listing's after leads to an empty page, which ends it.
	if got := s.log.WithPrefix("/r/golang/new.json"); len(got) != 2 || !strings.Contains(got[1], "after=t3_1h0aaa4") {
		t.Errorf("new listing requests: %v", got)
	}
}

// TestPagingSortTimeAndMaxItems: listings page with after (and count) up
// to max_items, sort and time_filter reach Reddit on every page, and a
// listing that ends early ends the source.
func TestPagingSortTimeAndMaxItems(t *testing.T) {
	s := &standIn{listed: 260, pageCap: 40}
	cs := connect(t, s)
	res, pg := call(t, cs, map[string]any{"subreddits": []string{"many"}, "sort": "top", "time_filter": "week", "max_items": 100})
	if res.IsError || len(pg.Items) != 100 || pg.Partial {
		t.Fatalf("error %v, %d items, partial %v", res.IsError, len(pg.Items), pg.Partial)
	}
	for i, it := range pg.Items {
		if it["title"] != fmt.Sprintf("post %d", i) {
			t.Fatalf("item %d: %v", i, it)
		}
	}
	reqs := s.log.WithPrefix("/r/many/top.json")
	if len(reqs) != 3 {
		t.Fatalf("requests %v, want 3 pages of 40, 40 and 20", reqs)
	}
	for i, want := range []struct{ limit, after, count string }{{"100", "", ""}, {"60", "t3_p13", "40"}, {"20", "t3_p27", "80"}} {
		q := query(t, reqs[i])
		if q.Get("t") != "week" || q.Get("limit") != want.limit || q.Get("after") != want.after || q.Get("count") != want.count || q.Get("raw_json") != "1" {
			t.Errorf("page %d asked %v, want limit %s after %q count %q", i, q, want.limit, want.after, want.count)
		}
	}

	// A listing shorter than max_items is read to its end, and is whole.
	s.listed = 60
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://old.reddit.com/r/many/controversial/?t=year"}, "max_items": 100})
	if res.IsError || len(pg.Items) != 60 || pg.Partial {
		t.Fatalf("short listing: error %v, %d items, partial %v", res.IsError, len(pg.Items), pg.Partial)
	}
	if reqs := s.log.WithPrefix("/r/many/controversial.json"); len(reqs) != 2 || query(t, reqs[0]).Get("t") != "year" {
		t.Errorf("short listing requests %v", reqs)
	}
	// sort without time_filter sends no t.
	res, _ = call(t, cs, map[string]any{"subreddits": []string{"many"}, "max_items": 1, "sort": "rising"})
	if reqs := s.log.WithPrefix("/r/many/rising.json"); res.IsError || len(reqs) != 1 || query(t, reqs[0]).Has("t") {
		t.Errorf("rising: error %v, requests %v", res.IsError, reqs)
	}
}

// TestSearches: site-wide searches and a subreddit's own, with their sort,
// time window and the query on every item.
func TestSearches(t *testing.T) {
	s := &standIn{}
	cs := connect(t, s)
	res, pg := call(t, cs, map[string]any{"search_queries": []string{"generics"}, "max_items": 12, "sort": "new", "time_filter": "month"})
	if res.IsError || len(pg.Items) != 5 {
		t.Fatalf("search: error %v, %d items: %s", res.IsError, len(pg.Items), scrapertest.Text(res))
	}
	if pg.Items[0]["search_query"] != "generics" || pg.Items[0]["title"] != "generics result 0" ||
		pg.Items[0]["source"] != "https://www.reddit.com/search/?q=generics" {
		t.Errorf("search item %v", pg.Items[0])
	}
	reqs := s.log.WithPrefix("/search.json")
	if len(reqs) != 1 {
		t.Fatalf("search requests %v", reqs)
	}
	if q := query(t, reqs[0]); q.Get("q") != "generics" || q.Get("sort") != "new" || q.Get("t") != "month" || q.Get("type") != "link" || q.Get("limit") != "12" {
		t.Errorf("search asked %v", q)
	}
	res, pg = call(t, cs, map[string]any{"urls": []string{"https://www.reddit.com/r/golang/search/?q=iterators&sort=top"}, "max_items": 3})
	if res.IsError || len(pg.Items) != 3 {
		t.Fatalf("subreddit search: error %v, %d items", res.IsError, len(pg.Items))
	}
	if reqs := s.log.WithPrefix("/r/golang/search.json"); len(reqs) != 1 || query(t, reqs[0]).Get("restrict_sr") != "1" || query(t, reqs[0]).Get("sort") != "top" {
		t.Errorf("subreddit search requests %v", reqs)
	}
}

func query(t *testing.T, requestURI string) url.Values {
	t.Helper()
	u, err := url.Parse(requestURI)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

package tiktok

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a local TikTok: pages from testdata (and the real itemStruct
// when present), item_list APIs that page through generated videos.
type standIn struct {
	t          testing.TB
	listed     int // videos each listing holds
	slowAfter  int // item_list requests answered before the API hangs (0: never)
	emptyLists bool
	apiCalls   atomic.Int32
}

func listItem(n int, user string) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("75%017d", n), "desc": fmt.Sprintf("video %d #bread", n), "createTime": 1700000000 + n,
		"author":     map[string]any{"uniqueId": user, "nickname": user},
		"stats":      map[string]any{"playCount": 100 * n, "diggCount": n},
		"textExtra":  []any{map[string]any{"hashtagName": "bread"}},
		"video":      map[string]any{"duration": 10, "cover": "https://cdn.example.test/c.jpg"},
		"challenges": []any{},
	}
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/@cookwithhali/video/7655821461772406047":
		it, err := scrapertest.ReadFixture("tiktok/video-item-struct.json") // never Skip off the test's goroutine
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(videoPage(s.t, it))
	case r.URL.Path == "/@chef.anna/video/7000000000000000001":
		w.Write(scrapertest.Testdata(s.t, "video.html"))
	case r.URL.Path == "/@chef.anna/video/7000000000000000404":
		w.Write(scrapertest.Testdata(s.t, "private.html"))
	case r.URL.Path == "/ZMabc123/": // a vm.tiktok.com short link
		http.Redirect(w, r, "/@chef.anna/video/7000000000000000001?_r=1", http.StatusFound)
	case r.URL.Path == "/ZMnoauthor/":
		http.Redirect(w, r, "/@someone/video/42?is_from_webapp=1", http.StatusFound)
	case r.URL.Path == "/@someone/video/42":
		w.Write(videoPage(s.t, []byte(`{"id":"42","desc":"no author here"}`)))
	case r.URL.Path == "/@chef.anna":
		w.Write(scrapertest.Testdata(s.t, "profile.html"))
	case r.URL.Path == "/@walled":
		http.Redirect(w, r, "/login?redirect_url=%2F%40walled", http.StatusFound)
	case r.URL.Path == "/login":
		w.Write([]byte(`<html><body>Log in to TikTok</body></html>`))
	case r.URL.Path == "/@captcha" || r.URL.Path == "/tag/captcha":
		w.Write(scrapertest.Testdata(s.t, "verify.html"))
	case r.URL.Path == "/@busy":
		w.Header().Set("Retry-After", "0")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case r.URL.Path == "/@gone":
		http.Error(w, "not here", http.StatusNotFound)
	case r.URL.Path == "/tag/bread":
		w.Write(scrapertest.Testdata(s.t, "hashtag.html"))
	case r.URL.Path == "/api/post/item_list/" || r.URL.Path == "/api/challenge/item_list/":
		n := int(s.apiCalls.Add(1))
		if s.slowAfter > 0 && n > s.slowAfter {
			<-r.Context().Done() // hang until the client gives up
			return
		}
		if s.emptyLists {
			return // TikTok's answer to unsigned requests: 200, empty body
		}
		q := r.URL.Query()
		if (r.URL.Path == "/api/post/item_list/" && q.Get("secUid") != "MS4wLjABAAAA-test-sec-uid") ||
			(r.URL.Path == "/api/challenge/item_list/" && q.Get("challengeID") != "6983") {
			http.Error(w, "bad listing", http.StatusBadRequest)
			return
		}
		cursor, _ := strconv.Atoi(q.Get("cursor"))
		count, _ := strconv.Atoi(q.Get("count"))
		var list []any
		for i := cursor; i < cursor+count && i < s.listed; i++ {
			list = append(list, listItem(i+1, "baker"))
		}
		json.NewEncoder(w).Encode(map[string]any{"itemList": list, "cursor": strconv.Itoa(cursor + len(list)), "hasMore": cursor+len(list) < s.listed, "statusCode": 0})
	default:
		http.NotFound(w, r)
	}
}

// serve starts s as the stand-in origin and builds the plugin against it.
func serve(t *testing.T, s *standIn) scrapers.Plugin {
	t.Helper()
	s.t = t
	return scrapertest.Serve(t, s, New, "TIKTOK_BASE_URL")
}

func TestScrapeRealVideoThroughStandIn(t *testing.T) {
	scrapertest.Fixture(t, "tiktok/video-item-struct.json") // skip when absent
	p := serve(t, &standIn{})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.tiktok.com/@cookwithhali/video/7655821461772406047"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1 || got[0]["id"] != "7655821461772406047" || got[0]["type"] != "video" || o.Partial {
		t.Fatalf("items = %v partial=%v", got, o.Partial)
	}
	if got[0]["url"] != "https://www.tiktok.com/@cookwithhali/video/7655821461772406047" {
		t.Errorf("url = %v", got[0]["url"])
	}
}

func TestScrapeVideosShortLinksProfilesHashtags(t *testing.T) {
	s := &standIn{listed: 50}
	p := serve(t, s)
	args := `{"urls":["https://m.tiktok.com/@chef.anna/video/7000000000000000001","https://vm.tiktok.com/ZMabc123/"],
		"profiles":["@chef.anna"],"hashtags":["#bread"],"max_items":5}`
	o, err := scrapertest.RunTool(t, p, "scrape", args, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if vids := ofType(got, "video"); len(vids) != 2+5+5 {
		t.Errorf("videos = %d, want 12", len(vids))
	}
	if len(ofType(got, "profile")) != 1 || len(ofType(got, "hashtag")) != 1 {
		t.Errorf("items = %v", got)
	}
	// The profile's two embedded videos come first, then the API's.
	var fromProfile, fromTag int
	for _, v := range ofType(got, "video") {
		switch v["source"] {
		case "https://www.tiktok.com/@chef.anna":
			fromProfile++
		case "https://www.tiktok.com/tag/bread":
			fromTag++
		}
	}
	if fromProfile != 5 || fromTag != 5 {
		t.Errorf("from profile %d, from hashtag %d; want 5 and 5", fromProfile, fromTag)
	}
	if o.Partial {
		t.Errorf("partial: %v", o.Reasons)
	}
}

func TestScrapeShortLinkNamesTheRealPage(t *testing.T) {
	p := serve(t, &standIn{})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://vm.tiktok.com/ZMnoauthor/"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1 || got[0]["url"] != "https://www.tiktok.com/@someone/video/42" {
		t.Errorf("items = %v", got)
	}
}

func TestScrapePagesToMaxItems(t *testing.T) {
	s := &standIn{listed: 500}
	p := serve(t, s)
	o, err := scrapertest.RunTool(t, p, "scrape", `{"hashtags":["bread"],"max_items":100}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	vids := ofType(scrapertest.Items(t, o), "video")
	if len(vids) != 100 {
		t.Fatalf("videos = %d, want 100", len(vids))
	}
	seen := map[any]bool{}
	for _, v := range vids {
		if seen[v["id"]] {
			t.Fatalf("duplicate %v", v["id"])
		}
		seen[v["id"]] = true
	}
	if n := s.apiCalls.Load(); n != 4 { // 30+30+30+10
		t.Errorf("item_list requests = %d, want 4", n)
	}
	// A listing shorter than max_items ends when TikTok says hasMore false.
	s2 := &standIn{listed: 7}
	o, err = scrapertest.RunTool(t, serve(t, s2), "scrape", `{"hashtags":["bread"],"max_items":100}`, 10*time.Second)
	if err != nil || len(ofType(scrapertest.Items(t, o), "video")) != 7 || s2.apiCalls.Load() != 1 {
		t.Errorf("short listing: %d videos, %d calls, %v", len(o.Items), s2.apiCalls.Load(), err)
	}
}

func TestScrapeUnsignedListIsPartial(t *testing.T) {
	p := serve(t, &standIn{emptyLists: true})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"hashtags":["bread"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1 || got[0]["type"] != "hashtag" || !o.Partial || !strings.Contains(strings.Join(o.Reasons, ";"), "#bread") {
		t.Errorf("items %v partial %v reasons %v", got, o.Partial, o.Reasons)
	}
}

func TestScrapeBlocks(t *testing.T) {
	p := serve(t, &standIn{})
	for name, c := range map[string]struct{ args, kind string }{
		"captcha":    {`{"profiles":["captcha"]}`, scrapers.BlockCaptcha},
		"login wall": {`{"profiles":["walled"]}`, scrapers.BlockLoginWall},
		"rate limit": {`{"profiles":["busy"]}`, scrapers.BlockRateLimited},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := scrapertest.RunTool(t, p, "scrape", c.args, 10*time.Second)
			var be *scrapers.BlockedError
			if !errors.As(err, &be) || be.Kind != c.kind || !strings.Contains(err.Error(), "TikTok") {
				t.Fatalf("err = %v, want a TikTok %s", err, c.kind)
			}
		})
	}
	// A block after some items: they are kept, the block is reported, the
	// call stops there.
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.tiktok.com/@chef.anna/video/7000000000000000001"],"hashtags":["captcha","bread"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 || got[0]["type"] != "video" || !strings.Contains(fmt.Sprint(got[1]["error"]), "captcha") || !o.Partial {
		t.Errorf("items %v partial %v", got, o.Partial)
	}
}

func TestScrapePerSourceFailures(t *testing.T) {
	p := serve(t, &standIn{listed: 3})
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.tiktok.com/@chef.anna/video/7000000000000000404","https://www.tiktok.com/@chef.anna/video/7000000000000000001"],"profiles":["gone"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 3 || !o.Partial {
		t.Fatalf("items %v partial %v", got, o.Partial)
	}
	if !strings.Contains(fmt.Sprint(got[0]["error"]), "private") || got[1]["type"] != "video" || !strings.Contains(fmt.Sprint(got[2]["error"]), "404") {
		t.Errorf("items = %v", got)
	}
	// Nothing gathered and everything failed: a tool error.
	_, err = scrapertest.RunTool(t, p, "scrape", `{"profiles":["gone"]}`, 10*time.Second)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != 404 {
		t.Errorf("err = %v", err)
	}
}

func TestScrapeSlowSiteGivesPartialAtDeadline(t *testing.T) {
	s := &standIn{listed: 500, slowAfter: 1}
	p := serve(t, s)
	start := time.Now()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"hashtags":["bread"],"max_items":100}`, 700*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v after the deadline", time.Since(start))
	}
	if vids := ofType(scrapertest.Items(t, o), "video"); len(vids) != 30 {
		t.Errorf("videos before the deadline = %d, want 30", len(vids))
	}
}

func TestScrapeCancelStopsRequests(t *testing.T) {
	s := &standIn{listed: 500, slowAfter: 1}
	p := serve(t, s)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel(scrapers.ErrCancelled) }()
	call := scrapers.NewCall(nil)
	err := p.Tools[0].Run(ctx, call, json.RawMessage(`{"hashtags":["bread"],"max_items":100}`))
	if !errors.Is(err, scrapers.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	calls := s.apiCalls.Load()
	time.Sleep(100 * time.Millisecond)
	if s.apiCalls.Load() != calls {
		t.Error("requests went on after cancel")
	}
}

func TestScrapeBadArguments(t *testing.T) {
	p := scrapertest.NewPlugin(t, New, map[string]string{"TIKTOK_BASE_URL": "http://127.0.0.1:1"})
	many := `"` + strings.Repeat(`a","`, 20) + `a"`
	for _, c := range []struct{ args, arg string }{
		{`{}`, "urls"},
		{`{"urls":[]}`, "urls"},
		{`{"urls":["https://example.com/@x"]}`, "urls"},
		{`{"urls":["not a url"]}`, "urls"},
		{`{"urls":["ftp://www.tiktok.com/@x"]}`, "urls"},
		{`{"urls":[""]}`, "urls"},
		{`{"profiles":[` + many + `]}`, "profiles"},
		{`{"profiles":["bad name"]}`, "profiles"},
		{`{"hashtags":["two words"]}`, "hashtags"},
		{`{"hashtags":["#"]}`, "hashtags"},
		{`{"profiles":["a"],"max_items":0}`, "max_items"},
		{`{"profiles":["a"],"max_items":101}`, "max_items"},
		{`{"profiles":["a"],"max_items":"ten"}`, "max_items"},
		{`{"profiles":"a"}`, "profiles"},
		{`{"profiles":["a"],"color":"red"}`, "color"},
		{`[1]`, "arguments"},
	} {
		_, err := scrapertest.RunTool(t, p, "scrape", c.args, time.Second)
		scrapertest.CheckArgError(t, err, c.arg, c.args)
	}
}

func TestPluginShape(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "tiktok" || len(p.Tools) != 2 || p.Tools[0].Name != "scrape" || p.Tools[0].Title != "Scrape TikTok" ||
		p.Tools[1].Name != "comments" || p.Tools[1].Title != "TikTok comments" {
		t.Fatalf("plugin = %+v", p)
	}
	b, _ := json.Marshal(p.Tools[0].InputSchema)
	for _, want := range []string{`"max_items":{"type":"integer"`, `"maximum":100`, `"maxItems":20`, `"search_queries":{`, `"enum":["videos","users"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s: %s", want, b)
		}
	}
	if _, err := New(scrapers.Env{Getenv: func(string) string { return "ftp://x" }}); err == nil {
		t.Error("a bad TIKTOK_BASE_URL was accepted")
	}
}

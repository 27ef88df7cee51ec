package youtube

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestChannelRef(t *testing.T) {
	cases := []struct {
		in, path string
		channel  bool
		bad      bool
	}{
		{"@gophertalks", "/@gophertalks/videos", true, false},
		{" @gopher.talks-2 ", "/@gopher.talks-2/videos", true, false},
		{"@ゴーファー", "/@%E3%82%B4%E3%83%BC%E3%83%95%E3%82%A1%E3%83%BC/videos", true, false},
		{"https://www.youtube.com/@gophertalks", "/@gophertalks/videos", true, false},
		{"https://www.youtube.com/@gophertalks/videos", "/@gophertalks/videos", true, false},
		{"https://m.youtube.com/@gophertalks/featured", "/@gophertalks/videos", true, false},
		{"youtube.com/@gophertalks/streams", "/@gophertalks/streams", true, false},
		{"https://www.youtube.com/channel/UCgophertalks00000000001", "/channel/UCgophertalks00000000001/videos", true, false},
		{"https://www.youtube.com/channel/UCgophertalks00000000001/videos?view=0", "/channel/UCgophertalks00000000001/videos", true, false},
		{"https://www.youtube.com/c/GopherTalks", "/c/GopherTalks/videos", true, false},
		{"https://www.youtube.com/user/gophertalks/videos", "/user/gophertalks/videos", true, false},
		{"https://www.youtube.com/channel/UCshort", "", true, true},
		{"https://www.youtube.com/c/", "", true, true},
		{"https://www.youtube.com/c/../watch", "", true, true},
		{"https://www.youtube.com/@gophertalks/shorts", "", true, true},
		{"https://www.youtube.com/@gophertalks/playlists", "", true, true},
		{"https://www.youtube.com/@", "", true, true},
		{"@two words", "", true, true},
		{"@a/b", "", false, false}, // not bare: read as a URL, not on YouTube
		{"https://www.youtube.com/watch?v=GJLlxj_dtq8", "", false, false},
		{"https://youtu.be/GJLlxj_dtq8", "", false, false},
		{"https://vimeo.com/@someone", "", false, false},
		{"GJLlxj_dtq8", "", false, false},
	}
	for _, c := range cases {
		tab, ok, err := channelRef(c.in, nil)
		if ok != c.channel || (err != nil) != c.bad || tab.Path != c.path {
			t.Errorf("channelRef(%q) = %q, %v, %v; want %q, %v, bad=%v", c.in, tab.Path, ok, err, c.path, c.channel, c.bad)
		}
	}
}

func TestParseChannelPage(t *testing.T) {
	info, pg, err := parseChannelPage(scrapertest.Testdata(t, "channel-videos.html"))
	if err != nil {
		t.Fatal(err)
	}
	if info != (channelInfo{Name: "Gopher Talks", ID: "UCgophertalks00000000001", URL: "https://www.youtube.com/@gophertalks"}) {
		t.Errorf("info = %+v", info)
	}
	if pg.Continuation != "CHANNEL-PAGE-2" || len(pg.Videos) != 3 {
		t.Fatalf("page: %d videos, continuation %q", len(pg.Videos), pg.Continuation)
	}
	v := pg.Videos[0]
	if v.ID != "Chan_vid001" || v.Title != `Generics in practice, "part 2"` || v.Views == nil || *v.Views != 12345 ||
		v.PublishedTimeText != "3 days ago" || v.DurationSeconds == nil || *v.DurationSeconds != 41*60+7 ||
		v.Thumbnail != "https://i.ytimg.com/vi/Chan_vid001/hqdefault.jpg?sqp=b" || v.URL != "https://www.youtube.com/watch?v=Chan_vid001" {
		t.Errorf("first video = %+v", v)
	}
	if v := pg.Videos[1]; v.PublishedTimeText != "Streamed 2 weeks ago" || v.DurationText != "1:58:30" {
		t.Errorf("second video = %+v", v)
	}
	// The lockupViewModel card.
	if v := pg.Videos[2]; v.ID != "Chan_vid003" || v.Title != "Error handling, revisited" || v.Views == nil || *v.Views != 1200 ||
		v.PublishedTimeText != "1 month ago" || v.DurationText != "9:59" || v.Thumbnail != "https://i.ytimg.com/vi/Chan_vid003/hqdefault.jpg" {
		t.Errorf("lockup video = %+v", v)
	}
	for _, v := range pg.Videos {
		if v.ID == "HomeShelf01" {
			t.Error("a video of the Home tab was listed")
		}
	}

	// A page without the grid says so; one with YouTube's alert says that.
	if _, _, err := parseChannelPage([]byte(`<script>var ytInitialData = {"contents":{"twoColumnBrowseResultsRenderer":{"tabs":[{"tabRenderer":{"title":"Home","selected":true}}]}}};</script>`)); err == nil || !strings.Contains(err.Error(), "lists no videos") {
		t.Errorf("no grid: %v", err)
	}
	if _, _, err := parseChannelPage([]byte(`<script>var ytInitialData = {"alerts":[{"alertRenderer":{"type":"ERROR","text":{"simpleText":"This channel is not available."}}}]};</script>`)); err == nil || !strings.Contains(err.Error(), "This channel is not available.") {
		t.Errorf("alert: %v", err)
	}
	if _, _, err := parseChannelPage([]byte(`<html>nothing</html>`)); err == nil || !strings.Contains(err.Error(), "ytInitialData") {
		t.Errorf("no data: %v", err)
	}
}

func TestParseBrowseContinuation(t *testing.T) {
	pg := parseBrowseContinuation(mustJSON(t, genBrowsePage(2, 3, "CHANNEL-PAGE-3")))
	if len(pg.Videos) != 3 || pg.Videos[2].ID != "Chn02_00002" || pg.Continuation != "CHANNEL-PAGE-3" || pg.Videos[0].PublishedTimeText != "2 months ago" {
		t.Errorf("page = %+v", pg)
	}
	if pg := parseBrowseContinuation(mustJSON(t, genBrowsePage(9, 2, ""))); pg.Continuation != "" || len(pg.Videos) != 2 {
		t.Errorf("last page = %+v", pg)
	}
}

// channelStandIn serves the Videos tab of @gophertalks (3 videos on the page,
// then browse pages of 20, 20 and 5), its /channel/ and /c/ forms (the
// latter redirecting to the handle, as YouTube sends legacy URLs on).
func channelStandIn(t *testing.T) *standIn {
	s := newStandIn(t)
	tab := scrapertest.Testdata(t, "channel-videos.html")
	s.channels["/@gophertalks/videos"] = page{body: tab}
	s.channels["/channel/UCgophertalks00000000001/videos"] = page{body: tab}
	s.channels["/c/GopherTalks/videos"] = page{location: "/@gophertalks/videos"}
	s.browse["CHANNEL-PAGE-2"] = page{body: genBrowsePage(2, 20, "CHANNEL-PAGE-3")}
	s.browse["CHANNEL-PAGE-3"] = page{body: genBrowsePage(3, 20, "CHANNEL-PAGE-4")}
	s.browse["CHANNEL-PAGE-4"] = page{body: genBrowsePage(4, 5, "")}
	return s
}

func TestScrapeChannelVideos(t *testing.T) {
	s := channelStandIn(t)
	s.wantKey = "channel-api-key"
	p := s.plugin()
	for _, in := range []string{"@gophertalks", "https://www.youtube.com/channel/UCgophertalks00000000001", "https://www.youtube.com/c/GopherTalks/"} {
		s.requests = nil
		o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["`+in+`"],"max_results":25}`, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := scrapertest.Items(t, o)
		if len(got) != 25 || o.Partial {
			t.Fatalf("%s: %d items, partial %v", in, len(got), o.Partial)
		}
		for i, v := range got {
			if v["position"] != float64(i+1) || v["channel_name"] != "Gopher Talks" || v["channel_id"] != "UCgophertalks00000000001" ||
				v["channel_url"] != "https://www.youtube.com/@gophertalks" || !strings.HasSuffix(v["source"].(string), "/videos") {
				t.Errorf("%s: item %d = %v", in, i, v)
			}
		}
		if got[0]["id"] != "Chan_vid001" || got[3]["id"] != "Chn02_00000" || got[24]["id"] != "Chn03_00001" {
			t.Errorf("%s: order %v %v %v", in, got[0]["id"], got[3]["id"], got[24]["id"])
		}
		// 25 of 3 + 20 + 20: the cursor stops inside the third page.
		c, err := scrapers.ParseCursor(o.Meta["next_cursor"].(string), "channel /@gophertalks/videos")
		if in == "@gophertalks" && (err != nil || c.Token != "CHANNEL-PAGE-3" || c.Skip != 2 || c.Done != 25) {
			t.Errorf("%s: next cursor %+v, %v", in, c, err)
		}
	}
	for _, b := range s.Bodies() {
		if b.Context.Client.ClientVersion != "2.20991201.01.00" || b.Context.Client.VisitorData != "ChannelVisitor" {
			t.Errorf("browse request context = %+v", b.Context.Client)
		}
	}
	want := []string{"GET /c/GopherTalks/videos", "GET /@gophertalks/videos", "POST browse CHANNEL-PAGE-2", "POST browse CHANNEL-PAGE-3"}
	if r := s.Requests(); !reflect.DeepEqual(r, want) {
		t.Errorf("requests = %q, want %q", r, want)
	}

	// Everything there is: 48 videos, and no cursor after the last page.
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["@gophertalks"],"max_results":100}`, 10*time.Second)
	if err != nil || len(o.Items) != 48 || o.Partial {
		t.Errorf("max_results 100: %d items, partial %v, %v", len(o.Items), o.Partial, err)
	}
	if _, set := o.Meta["next_cursor"]; set {
		t.Errorf("next_cursor after the last page: %v", o.Meta)
	}

	// The EU consent interstitial in place of the channel page: a block,
	// named.
	s.channels["/@eu_channel/videos"] = page{body: scrapertest.Testdata(t, "consent-form.html")}
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.youtube.com/@eu_channel"]}`, 10*time.Second)
	var be *scrapers.BlockedError
	if !errors.As(err, &be) || be.Kind != scrapers.BlockConsentWall {
		t.Errorf("consent page: %v", err)
	}

	// A channel YouTube does not know: its 404, named.
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["@nobody_here"]}`, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "YouTube") {
		t.Errorf("unknown channel: %v", err)
	}
}

// Two pages of a channel through a cursor: the second call resumes inside
// the page the first stopped in, with ranks going on, and asks YouTube for
// nothing the first already had beyond the channel page (read again for the
// channel's name and the innertube settings).
func TestScrapeChannelCursorWalksPages(t *testing.T) {
	s := channelStandIn(t)
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["@gophertalks"],"max_results":10}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	first := scrapertest.Items(t, o)
	cursor, _ := o.Meta["next_cursor"].(string)
	if len(first) != 10 || cursor == "" || first[9]["id"] != "Chn02_00006" {
		t.Fatalf("first page: %d items, cursor %q, last %v", len(first), cursor, first[len(first)-1]["id"])
	}
	s.requests = nil
	o, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.youtube.com/@gophertalks/videos"],"max_results":10,"cursor":"`+cursor+`"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	second := scrapertest.Items(t, o)
	if len(second) != 10 || second[0]["id"] != "Chn02_00007" || second[0]["position"] != float64(11) || second[9]["id"] != "Chn02_00016" || second[0]["channel_name"] != "Gopher Talks" {
		t.Errorf("second page: %d items, first %v", len(second), second[0])
	}
	want := []string{"GET /@gophertalks/videos", "POST browse CHANNEL-PAGE-2"}
	if r := s.Requests(); !reflect.DeepEqual(r, want) {
		t.Errorf("requests = %q, want %q", r, want)
	}
	// The cursor of the second answer goes on into the third page.
	next, _ := o.Meta["next_cursor"].(string)
	c, err := scrapers.ParseCursor(next, "channel /@gophertalks/videos")
	if err != nil || c.Token != "CHANNEL-PAGE-2" || c.Skip != 17 || c.Done != 20 {
		t.Errorf("second cursor %+v, %v", c, err)
	}
}

func TestScrapeSearchCursorWalksPages(t *testing.T) {
	s := newStandIn(t)
	s.results["gopher parser"] = page{body: scrapertest.Testdata(t, "results-page.html")}
	s.search["SEARCH-PAGE-2"] = page{body: scrapertest.Testdata(t, "search-continuation.json")}
	s.search["SEARCH-PAGE-3"] = page{body: genSearchPage(3, 20, "")}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":2}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cursor, _ := o.Meta["next_cursor"].(string)
	if len(o.Items) != 2 || cursor == "" {
		t.Fatalf("first page: %d items, cursor %q", len(o.Items), cursor)
	}
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":2,"cursor":"`+cursor+`"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 || got[0]["id"] != "Res_short03" || got[0]["position"] != float64(3) || got[1]["id"] != "Res_page2_4" || got[1]["position"] != float64(4) {
		t.Errorf("second page = %v", got)
	}
	// Read to the end: the last answer has no cursor.
	cursor, _ = o.Meta["next_cursor"].(string)
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":100,"cursor":"`+cursor+`"}`, 10*time.Second)
	if err != nil || len(o.Items) != 21 {
		t.Errorf("rest: %d items, %v", len(o.Items), err)
	}
	if _, set := o.Meta["next_cursor"]; set {
		t.Errorf("next_cursor after the last page: %v", o.Meta)
	}
	// Two queries: no cursor, since it could continue only one.
	s.results["rust parser"] = s.results["gopher parser"]
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser","rust parser"],"max_results":1}`, 10*time.Second)
	if _, set := o.Meta["next_cursor"]; err != nil || set {
		t.Errorf("two queries: cursor %v, %v", o.Meta, err)
	}
}

func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

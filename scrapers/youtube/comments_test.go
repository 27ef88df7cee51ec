package youtube

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// commentStandIn serves the own watch page and three pages of comments: the
// older shape, the newer shape, then generated ones.
func commentStandIn(t *testing.T) *standIn {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	s.next["COMMENTS-SECTION"] = page{body: scrapertest.Testdata(t, "comments-renderer.json")}
	s.next["COMMENTS-PAGE-2"] = page{body: scrapertest.Testdata(t, "comments-entity.json")}
	s.next["COMMENTS-PAGE-3"] = page{body: genCommentsPage("gen3", 20, "COMMENTS-PAGE-4")}
	s.next["COMMENTS-PAGE-4"] = page{body: genCommentsPage("gen4", 20, "")}
	s.wantKey = "test-api-key_1"
	return s
}

func commentIDs(t *testing.T, o scrapers.Outcome) []string {
	var ids []string
	for _, it := range scrapertest.Items(t, o) {
		id, _ := it["comment_id"].(string)
		ids = append(ids, id)
	}
	return ids
}

func TestCommentsTopPagesThroughBothShapes(t *testing.T) {
	s := commentStandIn(t)
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["https://youtu.be/Go_pher1234"],"max_comments":4}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"UgxOldShape1", "UgxOldShape2", "UgzNewShape1", "UgzNewShape2"}; !reflect.DeepEqual(commentIDs(t, o), want) {
		t.Errorf("ids = %v, want %v", commentIDs(t, o), want)
	}
	first := scrapertest.Items(t, o)[0]
	if first["author"] != "@alice" || first["likes"] != 1200.0 || first["reply_count"] != 15.0 || first["is_reply"] != false ||
		first["published_time_text"] != "2 years ago (edited)" || first["url"] != "https://www.youtube.com/watch?v=Go_pher1234&lc=UgxOldShape1" ||
		first["video_id"] != "Go_pher1234" || first["type"] != "comment" {
		t.Errorf("first comment = %v", first)
	}
	want := []string{"GET /watch Go_pher1234", "POST next COMMENTS-SECTION", "POST next COMMENTS-PAGE-2"}
	if r := s.Requests(); !reflect.DeepEqual(r, want) {
		t.Errorf("requests = %q, want %q", r, want)
	}
	for _, b := range s.Bodies() {
		if b.Context.Client.ClientName != "WEB" || b.Context.Client.ClientVersion != "2.20990101.00.00" || b.Context.Client.VisitorData != "VisitorXyz%3D%3D" {
			t.Errorf("next request context = %+v", b.Context.Client)
		}
	}

	// More comments than there are: every page, then the end.
	o, err = scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"max_comments":1000}`, 10*time.Second)
	if err != nil || len(o.Items) != 2+3+20+20 || o.Partial {
		t.Errorf("all comments: %d items partial=%v err=%v", len(o.Items), o.Partial, err)
	}
}

func TestCommentsNewestFromThePanelSortMenu(t *testing.T) {
	s := commentStandIn(t)
	s.next["SORT-NEWEST"] = page{body: scrapertest.Testdata(t, "comments-entity.json")}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"sort_by":"newest","max_comments":2}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"UgzNewShape1", "UgzNewShape2"}; !reflect.DeepEqual(commentIDs(t, o), want) {
		t.Errorf("ids = %v", commentIDs(t, o))
	}
	if r := s.Requests(); len(r) != 2 || r[1] != "POST next SORT-NEWEST" {
		t.Errorf("requests = %q", r)
	}
}

func TestCommentsNewestFromTheHeaderSortMenu(t *testing.T) {
	s := commentStandIn(t)
	// A page without the comments panel: the first answer's header gives
	// the newest-first token.
	s.watch["Go_pher1234"] = page{body: bytes.Replace(scrapertest.Testdata(t, "watch-page.html"), []byte(`"engagementPanels"`), []byte(`"otherPanels"`), 1)}
	s.next["HEADER-NEWEST"] = page{body: genCommentsPage("newest", 3, "")}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"sort_by":"newest"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"newest-000", "newest-001", "newest-002"}; !reflect.DeepEqual(commentIDs(t, o), want) {
		t.Errorf("ids = %v", commentIDs(t, o))
	}
	want := []string{"GET /watch Go_pher1234", "POST next COMMENTS-SECTION", "POST next HEADER-NEWEST"}
	if r := s.Requests(); !reflect.DeepEqual(r, want) {
		t.Errorf("requests = %q, want %q", r, want)
	}
}

func TestCommentsOfTheRealWatchPage(t *testing.T) {
	real := scrapertest.Fixture(t, "youtube/watch-page.html")
	wp, err := parseWatchPage(real)
	if err != nil {
		t.Fatal(err)
	}
	s := newStandIn(t)
	s.watch["GJLlxj_dtq8"] = page{body: real}
	s.next[wp.Comments.Section] = page{body: scrapertest.Testdata(t, "comments-renderer.json")}
	s.next[wp.Comments.Newest] = page{body: scrapertest.Testdata(t, "comments-entity.json")}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["https://www.youtube.com/watch?v=GJLlxj_dtq8"],"max_comments":2}`, 10*time.Second)
	if err != nil || len(o.Items) != 2 {
		t.Fatalf("top: %d items, %v", len(o.Items), err)
	}
	o, err = scrapertest.RunTool(t, p, "comments", `{"urls":["https://www.youtube.com/watch?v=GJLlxj_dtq8"],"max_comments":2,"sort_by":"newest"}`, 10*time.Second)
	if err != nil || !reflect.DeepEqual(commentIDs(t, o), []string{"UgzNewShape1", "UgzNewShape2"}) {
		t.Fatalf("newest: %v, %v", commentIDs(t, o), err)
	}
	if it := scrapertest.Items(t, o)[0]; it["video_url"] != "https://www.youtube.com/watch?v=GJLlxj_dtq8" {
		t.Errorf("video_url = %v", it["video_url"])
	}
}

func TestCommentsTurnedOff(t *testing.T) {
	s := newStandIn(t)
	s.watch["NoComments1"] = page{body: []byte(`<script>var ytInitialPlayerResponse = {"playabilityStatus":{"status":"OK"},"videoDetails":{"videoId":"NoComments1","title":"x"}};` +
		`var ytInitialData = {"contents":{"twoColumnWatchNextResults":{"results":{"results":{"contents":[{"itemSectionRenderer":{"sectionIdentifier":"comment-item-section","contents":[{"messageRenderer":{"text":{"runs":[{"text":"Comments are turned off."}]}}}]}}]}}}}};</script>`)}
	s.watch["NoSection01"] = page{body: []byte(`<script>var ytInitialPlayerResponse = {"videoDetails":{"videoId":"NoSection01","title":"x"}};</script>`)}
	p := s.plugin()
	_, err := scrapertest.RunTool(t, p, "comments", `{"urls":["NoComments1"]}`, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "Comments are turned off.") {
		t.Errorf("err = %v", err)
	}
	_, err = scrapertest.RunTool(t, p, "comments", `{"urls":["NoSection01"]}`, 10*time.Second)
	if !errors.Is(err, errNoComments) {
		t.Errorf("err = %v", err)
	}
	// A video whose comment section is empty is an answer, not a failure.
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	s.next["COMMENTS-SECTION"] = page{body: []byte(`{"onResponseReceivedEndpoints":[]}`)}
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"]}`, 10*time.Second)
	if err != nil || len(o.Items) != 0 {
		t.Errorf("empty section: %d items, %v", len(o.Items), err)
	}
}

func TestCommentsBlocks(t *testing.T) {
	for _, bp := range blockPages(t) {
		t.Run(bp.name, func(t *testing.T) {
			s := newStandIn(t)
			s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
			s.next["COMMENTS-SECTION"] = bp.p
			p := s.plugin()
			_, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234","Go_pher1234"]}`, 10*time.Second)
			var be *scrapers.BlockedError
			if !errors.As(err, &be) || be.Kind != bp.kind || be.Site != "YouTube" {
				t.Errorf("err = %v, want a %s block", err, bp.kind)
			}
			if n := strings.Count(strings.Join(s.Requests(), "\n"), "GET /watch"); n != 1 {
				t.Errorf("watch pages fetched after the block: %d", n)
			}
		})
	}
	// The watch page itself blocked.
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "consent-form.html")}
	_, err := scrapertest.RunTool(t, s.plugin(), "comments", `{"urls":["Go_pher1234"]}`, 10*time.Second)
	var be *scrapers.BlockedError
	if !errors.As(err, &be) || be.Kind != scrapers.BlockConsentWall {
		t.Errorf("err = %v", err)
	}
}

func TestCommentsSlowSiteGivesPartialResult(t *testing.T) {
	s := commentStandIn(t)
	s.next["COMMENTS-PAGE-2"] = page{body: scrapertest.Testdata(t, "comments-entity.json"), delay: 30 * time.Second}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"max_comments":50}`, 700*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if ids := commentIDs(t, o); !reflect.DeepEqual(ids, []string{"UgxOldShape1", "UgxOldShape2"}) || !o.Partial {
		t.Errorf("ids = %v partial=%v, want the first page, partial", ids, o.Partial)
	}
}

func TestCommentsBadArguments(t *testing.T) {
	s := newStandIn(t)
	p := s.plugin()
	cases := []struct{ args, arg string }{
		{`{}`, "urls"},
		{`{"urls":[]}`, "urls"},
		{`{"urls":["https://example.com/watch?v=Go_pher1234"]}`, "urls"},
		{`{"urls":["Go_pher1234"],"max_comments":0}`, "max_comments"},
		{`{"urls":["Go_pher1234"],"max_comments":1001}`, "max_comments"},
		{`{"urls":["Go_pher1234"],"sort_by":"oldest"}`, "sort_by"},
		{`{"urls":["Go_pher1234"],"sort_by":1}`, "sort_by"},
		{`{"urls":["Go_pher1234"],"search_queries":["x"]}`, "search_queries"},
	}
	for _, c := range cases {
		_, err := scrapertest.RunTool(t, p, "comments", c.args, 5*time.Second)
		scrapertest.CheckArgError(t, err, c.arg, c.args)
	}
	if r := s.Requests(); len(r) != 0 {
		t.Errorf("bad arguments reached the site: %q", r)
	}
}

// Two pages of comments through a cursor: the second call loads the page
// the first stopped in from its token (no watch page) and skips what was
// returned.
func TestCommentsCursorWalksPages(t *testing.T) {
	s := commentStandIn(t)
	s.wantKey = "" // a cursor's page is asked without the watch page's key, as innertube allows
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"max_comments":3}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cursor, _ := o.Meta["next_cursor"].(string)
	if want := []string{"UgxOldShape1", "UgxOldShape2", "UgzNewShape1"}; !reflect.DeepEqual(commentIDs(t, o), want) || cursor == "" {
		t.Fatalf("first page: %v, cursor %q", commentIDs(t, o), cursor)
	}
	s.requests = nil
	o, err = scrapertest.RunTool(t, p, "comments", `{"urls":["https://www.youtube.com/watch?v=Go_pher1234"],"max_comments":3,"cursor":"`+cursor+`"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ids := commentIDs(t, o)
	if len(ids) != 3 || ids[0] != "UgzNewShape2" || ids[1] == ids[0] {
		t.Errorf("second page: %v", ids)
	}
	if want := []string{"POST next COMMENTS-PAGE-2", "POST next COMMENTS-PAGE-3"}; !reflect.DeepEqual(s.Requests(), want) {
		t.Errorf("requests = %q, want %q", s.Requests(), want)
	}
	// The cursor belongs to these comments in this order.
	_, err = scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"sort_by":"newest","cursor":"`+cursor+`"}`, 10*time.Second)
	scrapertest.CheckArgError(t, err, "cursor", "newest with a top cursor")
	_, err = scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234","GJLlxj_dtq8"],"cursor":"`+cursor+`"}`, 10*time.Second)
	scrapertest.CheckArgError(t, err, "cursor", "two videos")
	// To the end: no cursor.
	o, err = scrapertest.RunTool(t, p, "comments", `{"urls":["Go_pher1234"],"max_comments":1000,"cursor":"`+cursor+`"}`, 10*time.Second)
	if _, set := o.Meta["next_cursor"]; err != nil || set || len(o.Items) != 2+3+20+20-3 {
		t.Errorf("rest: %d items, meta %v, %v", len(o.Items), o.Meta, err)
	}
}

package youtube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestPluginShape(t *testing.T) {
	p, err := New(scrapers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "youtube" || p.Name != "YouTube" || p.Unlisted {
		t.Errorf("plugin = %q %q unlisted=%v", p.ID, p.Name, p.Unlisted)
	}
	want := map[string]string{"scrape": "Scrape YouTube", "comments": "YouTube comments"}
	if len(p.Tools) != 2 {
		t.Fatalf("tools = %d", len(p.Tools))
	}
	for _, tool := range p.Tools {
		if want[tool.Name] != tool.Title || tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %q title %q", tool.Name, tool.Title)
		}
	}
	b, _ := json.Marshal(p.Tools[0].InputSchema)
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	json.Unmarshal(b, &s)
	mr := s.Properties["max_results"]
	if mr["minimum"] != 1.0 || mr["maximum"] != 100.0 || mr["default"] != 10.0 || s.Properties["urls"]["maxItems"] != 20.0 ||
		s.Properties["subtitles_language"]["default"] != "en" {
		t.Errorf("scrape schema = %s", b)
	}
	b, _ = json.Marshal(p.Tools[1].InputSchema)
	json.Unmarshal(b, &s)
	if mc := s.Properties["max_comments"]; mc["maximum"] != 1000.0 || mc["default"] != 20.0 ||
		!reflect.DeepEqual(s.Properties["sort_by"]["enum"], []any{"top", "newest"}) || s.Properties["urls"]["minItems"] != 1.0 {
		t.Errorf("comments schema = %s", b)
	}
	if _, err := New(scrapers.Env{Getenv: func(string) string { return "ftp://nope" }}); err == nil {
		t.Error("a bad YOUTUBE_BASE_URL was accepted")
	}
}

func TestScrapeVideoURLsWithSubtitles(t *testing.T) {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	// No /player answer for this one: the page's own tracks are used, and
	// its English track has a relative baseUrl.
	s.timedtext["Go_pher1234/en/"] = page{body: scrapertest.Testdata(t, "timedtext-classic.xml")}
	p := s.plugin()

	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.youtube.com/shorts/Go_pher1234"],"download_subtitles":true}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1 || o.Partial {
		t.Fatalf("items = %v partial=%v", got, o.Partial)
	}
	v := got[0]
	if v["id"] != "Go_pher1234" || v["url"] != "https://www.youtube.com/watch?v=Go_pher1234" || v["likes"] != 45678.0 || v["views"] != 1234567.0 {
		t.Errorf("video = %v", v)
	}
	subs, _ := v["subtitles"].(map[string]any)
	if subs == nil || subs["language"] != "en" || subs["auto_generated"] != false || subs["requested_language_found"] != true ||
		subs["text"] != `Hey there, it's a "test" gophers & parsers line one line two` || len(subs["segments"].([]any)) != 3 {
		t.Errorf("subtitles = %v (error %v)", subs, v["subtitles_error"])
	}
	if av := v["subtitles_available"]; !reflect.DeepEqual(av, []any{"de", "en (auto-generated)", "en"}) {
		t.Errorf("subtitles_available = %v", av)
	}
	wantReq := []string{"GET /watch Go_pher1234", "POST player Go_pher1234", "GET /api/timedtext Go_pher1234/en/"}
	if r := s.Requests(); !reflect.DeepEqual(r, wantReq) {
		t.Errorf("requests = %q, want %q", r, wantReq)
	}
	if b := s.Bodies(); len(b) != 1 || b[0].Context.Client.ClientName != "ANDROID" || b[0].VideoID != "Go_pher1234" {
		t.Errorf("player request = %+v", b)
	}

	// No English track with this language: the first manual track, said so.
	s.timedtext["Go_pher1234/de/"] = page{body: scrapertest.Testdata(t, "timedtext-srv3.xml")}
	o, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["Go_pher1234"],"download_subtitles":true,"subtitles_language":"fr"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	subs, _ = scrapertest.Items(t, o)[0]["subtitles"].(map[string]any)
	if subs == nil || subs["language"] != "de" || subs["requested_language_found"] != false || !strings.HasPrefix(subs["text"].(string), "Guten Tag") {
		t.Errorf("fallback subtitles = %v", subs)
	}
}

func TestScrapeRealWatchPage(t *testing.T) {
	real := scrapertest.Fixture(t, "youtube/watch-page.html")
	s := newStandIn(t)
	s.watch["GJLlxj_dtq8"] = page{body: real}
	// The /player answer lists tracks; the German one is asked for.
	s.player["GJLlxj_dtq8"] = page{body: playerWithCaptions("GJLlxj_dtq8", "en:asr", "de")}
	s.timedtext["GJLlxj_dtq8/de/"] = page{body: scrapertest.Testdata(t, "timedtext-srv3.xml")}
	s.wantKey = "AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8" // the key the real page gives
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://youtu.be/GJLlxj_dtq8?si=x","https://m.youtube.com/watch?v=GJLlxj_dtq8"],"download_subtitles":true,"subtitles_language":"de"}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 {
		t.Fatalf("items = %d", len(got))
	}
	v := got[0]
	if v["title"] != "Surface Go Review - It’s Awesome" || v["channel_name"] != "Dave2D" || v["likes"] != 43864.0 || v["duration_seconds"] != 316.0 {
		t.Errorf("video = %v", v)
	}
	subs, _ := v["subtitles"].(map[string]any)
	if subs == nil || subs["language"] != "de" || len(subs["segments"].([]any)) != 3 {
		t.Errorf("subtitles = %v, error %v", subs, v["subtitles_error"])
	}
	for _, r := range s.Requests() {
		if strings.HasPrefix(r, "GET /watch") && r != "GET /watch GJLlxj_dtq8" {
			t.Errorf("unexpected request %q", r)
		}
	}
}

func TestScrapeSearchPagesThroughContinuations(t *testing.T) {
	s := newStandIn(t)
	s.results["gopher parser"] = page{body: scrapertest.Testdata(t, "results-page.html")}
	s.search["SEARCH-PAGE-2"] = page{body: scrapertest.Testdata(t, "search-continuation.json")}
	s.search["SEARCH-PAGE-3"] = page{body: genSearchPage(3, 20, "SEARCH-PAGE-4")}
	s.search["SEARCH-PAGE-4"] = page{body: genSearchPage(4, 20, "")}
	s.wantKey = "search-api-key"
	p := s.plugin()

	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":25}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 25 || o.Partial {
		t.Fatalf("items = %d partial=%v, want 25", len(got), o.Partial)
	}
	seen := map[any]bool{}
	for i, v := range got {
		if v["position"] != float64(i+1) || v["search_query"] != "gopher parser" || seen[v["id"]] {
			t.Errorf("item %d = %v", i, v)
		}
		seen[v["id"]] = true
	}
	if got[0]["id"] != "Res_one_001" || got[3]["id"] != "Res_page2_4" || got[5]["id"] != "Gen03_00000" || got[24]["id"] != "Gen03_00019" {
		t.Errorf("order: %v %v %v %v", got[0]["id"], got[3]["id"], got[5]["id"], got[24]["id"])
	}
	want := []string{"GET /results gopher parser", "POST search SEARCH-PAGE-2", "POST search SEARCH-PAGE-3"}
	if r := s.Requests(); !reflect.DeepEqual(r, want) {
		t.Errorf("requests = %q, want %q (no page fetched beyond max_results)", r, want)
	}
	for _, b := range s.Bodies() {
		if b.Context.Client.ClientName != "WEB" || b.Context.Client.ClientVersion != "2.20990202.00.00" || b.Context.Client.HL != "en" || b.Context.Client.VisitorData != "SearchVisitor" {
			t.Errorf("search request context = %+v", b.Context.Client)
		}
	}
	if s.header.Get("X-Youtube-Client-Version") != "2.20990202.00.00" || s.header.Get("X-Goog-Visitor-Id") != "SearchVisitor" {
		t.Errorf("headers = %v", s.header)
	}

	// A small max_results needs no continuation at all.
	s.requests = nil
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":2}`, 10*time.Second)
	if err != nil || len(o.Items) != 2 || len(s.Requests()) != 1 {
		t.Errorf("max_results 2: %d items, requests %q, %v", len(o.Items), s.Requests(), err)
	}

	// The last page ends the search below max_results.
	s.requests = nil
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":100}`, 10*time.Second)
	if err != nil || len(o.Items) != 45 || o.Partial {
		t.Errorf("max_results 100: %d items (want 45, all there are), partial=%v, %v", len(o.Items), o.Partial, err)
	}
}

func TestScrapeRealSearchAnswerAsContinuation(t *testing.T) {
	real := scrapertest.Fixture(t, "youtube/search-videos-test.json")
	s := newStandIn(t)
	s.results["gopher parser"] = page{body: scrapertest.Testdata(t, "results-page.html")}
	s.search["SEARCH-PAGE-2"] = page{body: real}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":23}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 23 || got[3]["id"] != "Z8KYabgkMbw" {
		t.Errorf("items = %d, fourth %v", len(got), got[3]["id"])
	}
}

func TestScrapeSearchWithSubtitles(t *testing.T) {
	s := newStandIn(t)
	s.results["gopher parser"] = page{body: scrapertest.Testdata(t, "results-page.html")}
	s.player["Res_one_001"] = page{body: playerWithCaptions("Res_one_001", "en:asr")}
	s.timedtext["Res_one_001/en/asr"] = page{body: scrapertest.Testdata(t, "timedtext-classic.xml")}
	s.player["Res_live_02"] = page{body: []byte(`{"playabilityStatus":{"status":"OK"}}`)} // no captions, and no watch page
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"search_queries":["gopher parser"],"max_results":2,"download_subtitles":true}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 {
		t.Fatalf("items = %v", got)
	}
	if subs, _ := got[0]["subtitles"].(map[string]any); subs == nil || subs["auto_generated"] != true {
		t.Errorf("first result subtitles = %v / %v", got[0]["subtitles"], got[0]["subtitles_error"])
	}
	if e, _ := got[1]["subtitles_error"].(string); !strings.Contains(e, "Video unavailable") || got[1]["subtitles"] != nil {
		t.Errorf("second result subtitles error = %q", e)
	}
}

// blockPages are the block pages the stand-in can serve, each with the tool
// error kind it must give. Shared real fixtures are used when present.
func blockPages(t *testing.T) []struct {
	name string
	p    page
	kind string
} {
	out := []struct {
		name string
		p    page
		kind string
	}{
		{"own consent form", page{body: scrapertest.Testdata(t, "consent-form.html")}, scrapers.BlockConsentWall},
		{"own captcha page", page{body: scrapertest.Testdata(t, "captcha-page.html")}, scrapers.BlockCaptcha},
		{"own captcha page with 429", page{status: 429, body: scrapertest.Testdata(t, "captcha-page.html")}, scrapers.BlockRateLimited},
		{"bot check", page{body: scrapertest.Testdata(t, "botcheck-page.html")}, scrapers.BlockRobotCheck},
		{"bare 429", page{status: 429, body: []byte("Too Many Requests")}, scrapers.BlockRateLimited},
	}
	if b := sharedFixtureOrNil(t, "consent-page.html"); b != nil {
		out = append(out, struct {
			name string
			p    page
			kind string
		}{"real consent page", page{body: b}, scrapers.BlockConsentWall})
	}
	if b := sharedFixtureOrNil(t, "too-many-requests.html"); b != nil {
		out = append(out, struct {
			name string
			p    page
			kind string
		}{"real too-many-requests page", page{status: 429, body: b}, scrapers.BlockRateLimited})
	}
	return out
}

func TestScrapeBlockPagesAreToolErrors(t *testing.T) {
	for _, bp := range blockPages(t) {
		t.Run(bp.name, func(t *testing.T) {
			s := newStandIn(t)
			s.watch["Go_pher1234"] = bp.p
			s.results["gophers"] = bp.p
			p := s.plugin()
			for _, args := range []string{`{"urls":["https://www.youtube.com/watch?v=Go_pher1234"]}`, `{"search_queries":["gophers"]}`} {
				o, err := scrapertest.RunTool(t, p, "scrape", args, 10*time.Second)
				var be *scrapers.BlockedError
				if !errors.As(err, &be) || be.Kind != bp.kind || be.Site != "YouTube" {
					t.Errorf("%s: err = %v, want a %s block naming YouTube", args, err, bp.kind)
					continue
				}
				if !strings.Contains(err.Error(), "YouTube") || !strings.Contains(err.Error(), bp.kind) {
					t.Errorf("error text %q", err)
				}
				if len(o.Items) != 0 {
					t.Errorf("%s: a block before anything gave items %s", args, o.Items)
				}
			}
		})
	}
}

func TestScrapeBlockStopsTheCall(t *testing.T) {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	s.watch["Blocked0001"] = page{status: 429, body: []byte("slow down")}
	s.watch["Never000001"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	p := s.plugin()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["Go_pher1234","Blocked0001","Never000001"]}`, 10*time.Second)
	if err != nil {
		t.Fatalf("items came before the block, so the call succeeds partially; got %v", err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 || got[0]["id"] != "Go_pher1234" || got[1]["url"] != "Blocked0001" || !strings.Contains(got[1]["error"].(string), "rate limited") {
		t.Errorf("items = %v", got)
	}
	if !o.Partial {
		t.Error("not marked partial")
	}
	for _, r := range s.Requests() {
		if strings.Contains(r, "Never000001") {
			t.Error("kept requesting after YouTube blocked")
		}
	}
}

func TestScrapeUnavailableVideos(t *testing.T) {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	p := s.plugin()
	// Only an unavailable video: the call fails, saying why.
	_, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.youtube.com/watch?v=Gone0000001"]}`, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "Video unavailable") {
		t.Errorf("err = %v", err)
	}
	// With a good one, the bad one is a failed item and the call goes on.
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["https://www.youtube.com/watch?v=Gone0000001","Go_pher1234"]}`, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 2 || got[0]["url"] != "https://www.youtube.com/watch?v=Gone0000001" || got[1]["id"] != "Go_pher1234" || !o.Partial {
		t.Errorf("items = %v partial=%v", got, o.Partial)
	}
	// A site error (HTTP 500) names the site and status.
	s.watch["Broken00001"] = page{status: 500, body: []byte("oops")}
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["Broken00001"]}`, 10*time.Second)
	var se *scrapers.SiteError
	if !errors.As(err, &se) || se.Status != 500 || se.Site != "YouTube" {
		t.Errorf("err = %v, want a SiteError with status 500", err)
	}
	// A page that is not a watch page at all.
	s.watch["Garbage0001"] = page{body: []byte("<html>maintenance</html>")}
	_, err = scrapertest.RunTool(t, p, "scrape", `{"urls":["Garbage0001"]}`, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "ytInitialPlayerResponse") {
		t.Errorf("err = %v", err)
	}
}

func TestScrapeSlowSiteGivesPartialResult(t *testing.T) {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	s.watch["Slow0000001"] = page{body: scrapertest.Testdata(t, "watch-page.html"), delay: 30 * time.Second}
	p := s.plugin()
	start := time.Now()
	o, err := scrapertest.RunTool(t, p, "scrape", `{"urls":["Go_pher1234","Slow0000001","Go_pher1234"]}`, 700*time.Millisecond)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the call took %v after its deadline", el)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping the deadline", err)
	}
	got := scrapertest.Items(t, o)
	if len(got) != 1 || got[0]["id"] != "Go_pher1234" || !o.Partial {
		t.Errorf("items = %v partial=%v, want the first video, partial", got, o.Partial)
	}

	// Same for a search whose continuation is slow.
	s.results["slow"] = page{body: scrapertest.Testdata(t, "results-page.html")}
	s.search["SEARCH-PAGE-2"] = page{body: scrapertest.Testdata(t, "search-continuation.json"), delay: 30 * time.Second}
	o, err = scrapertest.RunTool(t, p, "scrape", `{"search_queries":["slow"],"max_results":10}`, 700*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || len(o.Items) != 3 || !o.Partial {
		t.Errorf("slow search: %d items partial=%v err=%v", len(o.Items), o.Partial, err)
	}
}

func TestScrapeCancelReportsCause(t *testing.T) {
	s := newStandIn(t)
	s.watch["Slow0000001"] = page{body: scrapertest.Testdata(t, "watch-page.html"), delay: 30 * time.Second}
	p := s.plugin()
	ctx, cancel := context.WithCancelCause(context.Background())
	call := scrapers.NewCall(nil)
	go func() { time.Sleep(200 * time.Millisecond); cancel(scrapers.ErrCancelled) }()
	err := p.Tools[0].Run(ctx, call, json.RawMessage(`{"urls":["Slow0000001"]}`))
	if !errors.Is(err, scrapers.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the cancel cause", err)
	}
}

func TestScrapeBadArguments(t *testing.T) {
	s := newStandIn(t)
	p := s.plugin()
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("%q", "q")
	}
	cases := []struct{ args, arg string }{
		{`{}`, "urls"},
		{`null`, "urls"},
		{`{"urls":[]}`, "urls"},
		{`{"urls":["https://vimeo.com/1"]}`, "urls"},
		{`{"urls":["https://www.youtube.com/channel/UCnot-an-id"]}`, "urls"},
		{`{"urls":["@two words"]}`, "urls"},
		{`{"urls":["https://www.youtube.com/c/"]}`, "urls"},
		{`{"urls":["https://www.youtube.com/@"]}`, "urls"},
		{`{"search_queries":["go","rust"],"cursor":"` + scrapers.Cursor{Listing: "search go", Token: "T"}.String() + `"}`, "cursor"},
		{`{"search_queries":["go"],"urls":["@gophers"],"cursor":"` + scrapers.Cursor{Listing: "search go", Token: "T"}.String() + `"}`, "cursor"},
		{`{"search_queries":["rust"],"cursor":"` + scrapers.Cursor{Listing: "search go", Token: "T"}.String() + `"}`, "cursor"},
		{`{"urls":["@gophers"],"cursor":"` + scrapers.Cursor{Listing: "channel /@other/videos", Token: "T"}.String() + `"}`, "cursor"},
		{`{"search_queries":["go"],"cursor":"garbage"}`, "cursor"},
		{`{"urls":[""]}`, "urls"},
		{`{"search_queries":[` + strings.Join(many, ",") + `]}`, "search_queries"},
		{`{"search_queries":["  "]}`, "search_queries"},
		{`{"search_queries":["` + strings.Repeat("x", 501) + `"]}`, "search_queries"},
		{`{"search_queries":["go"],"max_results":0}`, "max_results"},
		{`{"search_queries":["go"],"max_results":101}`, "max_results"},
		{`{"search_queries":["go"],"max_results":"ten"}`, "max_results"},
		{`{"search_queries":["go"],"subtitles_language":"english please"}`, "subtitles_language"},
		{`{"search_queries":["go"],"download_subtitles":"yes"}`, "download_subtitles"},
		{`{"search_queries":["go"],"maxResults":5}`, "maxResults"},
		{`{"urls":"https://youtu.be/GJLlxj_dtq8"}`, "urls"},
		{`[1]`, "arguments"},
	}
	for _, c := range cases {
		_, err := scrapertest.RunTool(t, p, "scrape", c.args, 5*time.Second)
		scrapertest.CheckArgError(t, err, c.arg, c.args)
	}
	if r := s.Requests(); len(r) != 0 {
		t.Errorf("bad arguments reached the site: %q", r)
	}
}

func TestScrapeBaseURLTakesEveryYouTubeHost(t *testing.T) {
	s := newStandIn(t)
	s.watch["Go_pher1234"] = page{body: scrapertest.Testdata(t, "watch-page.html")}
	p := s.plugin()
	forms := []string{
		"https://www.youtube.com/watch?v=Go_pher1234", "https://youtube.com/watch?v=Go_pher1234", "https://m.youtube.com/watch?v=Go_pher1234",
		"https://music.youtube.com/watch?v=Go_pher1234", "https://youtu.be/Go_pher1234", "https://www.youtube.com/shorts/Go_pher1234",
		s.srv.URL + "/watch?v=Go_pher1234",
	}
	b, _ := json.Marshal(map[string]any{"urls": forms})
	o, err := scrapertest.RunTool(t, p, "scrape", string(b), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Items) != len(forms) || o.Partial {
		t.Errorf("items = %d partial=%v", len(o.Items), o.Partial)
	}
	for _, r := range s.Requests() {
		if r != "GET /watch Go_pher1234" {
			t.Errorf("request %q", r)
		}
	}
	for _, it := range o.Items {
		if !bytes.Contains(it, []byte(`"url":"https://www.youtube.com/watch?v=Go_pher1234"`)) {
			t.Errorf("item does not name the real URL: %s", it)
		}
	}
}

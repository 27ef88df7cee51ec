package youtube

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func TestParseWatchPageRealFixture(t *testing.T) {
	wp, err := parseWatchPage(scrapertest.Fixture(t, "youtube/watch-page.html"))
	if err != nil {
		t.Fatal(err)
	}
	v := wp.Video
	checks := []struct{ name, got, want string }{
		{"id", v.ID, "GJLlxj_dtq8"},
		{"url", v.URL, "https://www.youtube.com/watch?v=GJLlxj_dtq8"},
		{"title", v.Title, "Surface Go Review - It’s Awesome"},
		{"channel_name", v.ChannelName, "Dave2D"},
		{"channel_id", v.ChannelID, "UCVYamHliCI9rw1tHR1xbkfw"},
		{"channel_url", v.ChannelURL, "https://www.youtube.com/@Dave2D"},
		{"publish_date", v.PublishDate, "2018-08-02T06:00:08-07:00"},
		{"date_text", v.DateText, "Aug 2, 2018"},
		{"category", v.Category, "Science & Technology"},
		{"thumbnail", v.Thumbnail, "https://i.ytimg.com/vi/GJLlxj_dtq8/maxresdefault.jpg"},
		{"likes_text", v.LikesText, "43K"},
		{"duration_text", v.DurationText, "5:16"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if v.Views == nil || *v.Views != 1856109 {
		t.Errorf("views = %v, want 1856109", v.Views)
	}
	if v.Likes == nil || *v.Likes != 43864 {
		t.Errorf("likes = %v, want 43864", v.Likes)
	}
	if v.DurationSeconds == nil || *v.DurationSeconds != 316 {
		t.Errorf("duration_seconds = %v, want 316", v.DurationSeconds)
	}
	if !strings.HasPrefix(v.Description, "Dave2D review of the Microsoft Surface Go.") || !strings.Contains(v.Description, "\nOn Sale Here") {
		t.Errorf("description = %.80q…", v.Description)
	}
	if len(v.Keywords) == 0 || v.Keywords[0] != "Dave2D" {
		t.Errorf("keywords = %v", v.Keywords)
	}
	if len(wp.Tracks) < 2 {
		t.Fatalf("caption tracks = %d, want several", len(wp.Tracks))
	}
	tr, found, ok := chooseTrack(wp.Tracks, "en")
	if !ok || !found || tr.Language != "en" || tr.auto() {
		t.Errorf("chooseTrack(en) = %+v found=%v, want the manual English track", tr, found)
	}
	if u, err := url.Parse(tr.BaseURL); err != nil || u.Path != "/api/timedtext" || u.Query().Get("lang") != "en" {
		t.Errorf("track URL = %q", tr.BaseURL)
	}
	if wp.Comments.Section == "" || wp.Comments.Newest == "" || wp.Comments.Top == "" || wp.Comments.Newest == wp.Comments.Top {
		t.Errorf("comment tokens = %+v, want section, top and newest", wp.Comments)
	}
	if wp.Config.APIKey == "" || !strings.HasPrefix(wp.Config.ClientVersion, "2.") || wp.Config.VisitorData == "" {
		t.Errorf("innertube config = %+v", wp.Config)
	}
}

func TestParseWatchPageOwnFixture(t *testing.T) {
	wp, err := parseWatchPage(scrapertest.Testdata(t, "watch-page.html"))
	if err != nil {
		t.Fatal(err)
	}
	v := wp.Video
	if v.ID != "Go_pher1234" || v.Title != "Gophers build a parser {part 1}" {
		t.Errorf("id/title = %q/%q", v.ID, v.Title)
	}
	if v.DurationSeconds == nil || *v.DurationSeconds != 3723 || v.DurationText != "1:02:03" {
		t.Errorf("duration = %v %q", v.DurationSeconds, v.DurationText)
	}
	if v.Likes == nil || *v.Likes != 45678 || v.LikesText != "45K" {
		t.Errorf("likes = %v %q", v.Likes, v.LikesText)
	}
	if v.ChannelURL != "https://www.youtube.com/@gopheracademy" || v.ChannelSubscribersText != "12.3K subscribers" {
		t.Errorf("channel = %q %q", v.ChannelURL, v.ChannelSubscribersText)
	}
	if !strings.Contains(v.Description, `"var ytInitialData = {...};"`) {
		t.Errorf("description = %q", v.Description)
	}
	if v.CommentsCountText != "321" {
		t.Errorf("comments_count_text = %q", v.CommentsCountText)
	}
	want := commentTokens{Section: "COMMENTS-SECTION", Top: "SORT-TOP", Newest: "SORT-NEWEST"}
	if wp.Comments != want {
		t.Errorf("comment tokens = %+v, want %+v", wp.Comments, want)
	}
	if wp.Config != (innertubeConfig{APIKey: "test-api-key_1", ClientVersion: "2.20990101.00.00", VisitorData: "VisitorXyz%3D%3D"}) {
		t.Errorf("config = %+v", wp.Config)
	}
	if got := trackLanguages(wp.Tracks); !reflect.DeepEqual(got, []string{"de", "en (auto-generated)", "en"}) {
		t.Errorf("tracks = %v", got)
	}
}

func TestWatchPageWithoutLikesOrMicroformat(t *testing.T) {
	// Only the pieces a stripped page keeps: the extractor fills what it can.
	page := []byte(`<script>var ytInitialPlayerResponse = {"playabilityStatus":{"status":"OK"},"videoDetails":{"videoId":"abcdefghijk","title":"T","lengthSeconds":"0"}};</script>` +
		`<script>var ytInitialData = {"contents":{"twoColumnWatchNextResults":{"results":{"results":{"contents":[{"videoPrimaryInfoRenderer":{"viewCount":{"videoViewCountRenderer":{"viewCount":{"simpleText":"No views"}}}}},{"itemSectionRenderer":{"sectionIdentifier":"comment-item-section","contents":[{"messageRenderer":{"text":{"runs":[{"text":"Comments are turned off. "},{"text":"Learn more"}]}}}]}}]}}}}};</script>`)
	wp, err := parseWatchPage(page)
	if err != nil {
		t.Fatal(err)
	}
	v := wp.Video
	if v.Likes != nil || v.LikesText != "" || v.DurationSeconds != nil || v.ChannelURL != "" {
		t.Errorf("absent fields were filled: %+v", v)
	}
	if v.Views == nil || *v.Views != 0 {
		t.Errorf("views = %v, want 0 from \"No views\"", v.Views)
	}
	if wp.Comments.Section != "" || wp.Comments.Message != "Comments are turned off. Learn more" {
		t.Errorf("comments = %+v", wp.Comments)
	}
}

func TestParseWatchPageRefusals(t *testing.T) {
	cases := []struct {
		name  string
		page  string
		check func(error) bool
	}{
		{"unavailable", `var ytInitialPlayerResponse = {"playabilityStatus":{"status":"ERROR","reason":"Video unavailable"}};`,
			func(err error) bool {
				var ue *unavailableError
				return errors.As(err, &ue) && ue.Status == "ERROR" && strings.Contains(err.Error(), "Video unavailable")
			}},
		{"bot check", `var ytInitialPlayerResponse = {"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"Sign in to confirm you’re not a bot"},"videoDetails":{"videoId":"abcdefghijk"}};`,
			func(err error) bool {
				var be *scrapers.BlockedError
				return errors.As(err, &be) && be.Kind == scrapers.BlockRobotCheck && be.Site == "YouTube"
			}},
		{"private", `var ytInitialPlayerResponse = {"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"This video is private"}};`,
			func(err error) bool { var ue *unavailableError; return errors.As(err, &ue) }},
		{"no data", `<html><body>hello</body></html>`, func(err error) bool { return errors.Is(err, errNoData) }},
		{"cut short", `var ytInitialPlayerResponse = {"videoDetails":{"videoId":"abc`, func(err error) bool { return err != nil }},
		{"not JSON", `var ytInitialData = {videoDetails: 1};`, func(err error) bool { return err != nil && strings.Contains(err.Error(), "not valid JSON") }},
		{"no video id", `var ytInitialPlayerResponse = {"videoDetails":{"title":"x"}};`, func(err error) bool { return errors.Is(err, errNoData) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseWatchPage([]byte(c.page))
			if !c.check(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
	// Age-restricted pages keep their details: the video is returned with
	// its playability status.
	wp, err := parseWatchPage([]byte(`var ytInitialPlayerResponse = {"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"Sign in to confirm your age"},"videoDetails":{"videoId":"abcdefghijk","title":"Grown-ups"}};`))
	if err != nil || wp.Video.Title != "Grown-ups" || wp.Video.PlayabilityStatus != "LOGIN_REQUIRED" {
		t.Errorf("age-restricted: %+v, %v", wp, err)
	}
}

func TestExtractSearchRealFixture(t *testing.T) {
	sp, err := parseSearchJSON(scrapertest.Fixture(t, "youtube/search-videos-test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Videos) != 20 {
		t.Errorf("videos = %d, want the 20 top-level results (shelves left out)", len(sp.Videos))
	}
	if sp.Continuation == "" {
		t.Error("no continuation token")
	}
	if sp.EstimatedResults == nil || *sp.EstimatedResults <= 0 {
		t.Errorf("estimated results = %v", sp.EstimatedResults)
	}
	first := sp.Videos[0]
	if first.ID != "Z8KYabgkMbw" || first.Title != "Blind Test TOUT GENRE | 140 extraits" || first.ChannelName != "Blind Test & Chill" ||
		first.ChannelURL != "https://www.youtube.com/@BlindTest-Chill" || first.DurationText != "47:20" ||
		first.DurationSeconds == nil || *first.DurationSeconds != 2840 || first.Views == nil || *first.Views != 390201 ||
		first.PublishedTimeText != "9 months ago" || !strings.HasPrefix(first.Thumbnail, "https://i.ytimg.com/vi/Z8KYabgkMbw/") {
		t.Errorf("first result = %+v", first)
	}
	seen := map[string]bool{}
	for i, v := range sp.Videos {
		if !isVideoID(v.ID) || v.Title == "" || v.URL != watchURL(v.ID) || seen[v.ID] {
			t.Errorf("result %d = %+v", i, v)
		}
		seen[v.ID] = true
	}
}

func TestExtractSearchOwnFixtures(t *testing.T) {
	sp, cfg, err := parseResultsPage(scrapertest.Testdata(t, "results-page.html"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range sp.Videos {
		ids = append(ids, v.ID)
	}
	if want := []string{"Res_one_001", "Res_live_02", "Res_short03"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v (no shelf, channel, ad, bad id or duplicate)", ids, want)
	}
	one, live, short := sp.Videos[0], sp.Videos[1], sp.Videos[2]
	if one.Title != "Parsing JSON in Go: the } edge case" || *one.DurationSeconds != 3723 || *one.Views != 98765 ||
		one.DescriptionSnippet != "How to find gopher data" || one.Thumbnail != "https://i.ytimg.com/vi/Res_one_001/hq720_2.jpg" {
		t.Errorf("first = %+v", one)
	}
	if !live.IsLive || *live.Views != 1234 || live.Thumbnail != "https://i.ytimg.com/vi/Res_live_02/hq.jpg" || live.ChannelURL != "https://www.youtube.com/channel/UClive000000000000000002" {
		t.Errorf("live = %+v", live)
	}
	if !short.IsShort || short.Title != "A short about gophers" || *short.Views != 0 || *short.DurationSeconds != 42 || short.ChannelURL != "" {
		t.Errorf("short = %+v", short)
	}
	if sp.Continuation != "SEARCH-PAGE-2" || *sp.EstimatedResults != 5310 {
		t.Errorf("continuation %q, estimate %v", sp.Continuation, sp.EstimatedResults)
	}
	if cfg.APIKey != "search-api-key" || cfg.ClientVersion != "2.20990202.00.00" {
		t.Errorf("config = %+v", cfg)
	}

	next, err := parseSearchJSON(scrapertest.Testdata(t, "search-continuation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Videos) != 2 || next.Videos[0].ID != "Res_page2_4" || next.Continuation != "SEARCH-PAGE-3" {
		t.Errorf("continuation page = %+v", next)
	}
	if v := next.Videos[0]; *v.Views != 1 || v.ChannelURL != "https://www.youtube.com/@secondpage" {
		t.Errorf("page 2 first = %+v", v)
	}
	if _, err := parseSearchJSON([]byte("<html>")); err == nil {
		t.Error("HTML accepted as a search answer")
	}
	if _, _, err := parseResultsPage([]byte("<html>no data</html>")); err == nil || !errors.Is(err, errNoData) {
		t.Errorf("page without data: %v", err)
	}
}

func TestExtractCommentsRendererShape(t *testing.T) {
	cp, err := parseCommentsJSON(scrapertest.Testdata(t, "comments-renderer.json"), "Go_pher1234")
	if err != nil {
		t.Fatal(err)
	}
	if len(cp.Comments) != 2 {
		t.Fatalf("comments = %+v, want 2 (one without id skipped)", cp.Comments)
	}
	a := cp.Comments[0]
	want := Comment{Type: "comment", URL: "https://www.youtube.com/watch?v=Go_pher1234&lc=UgxOldShape1", VideoID: "Go_pher1234",
		VideoURL: "https://www.youtube.com/watch?v=Go_pher1234", CommentID: "UgxOldShape1", Author: "@alice",
		AuthorChannelID: "UCalice000000000000000001", AuthorURL: "https://www.youtube.com/@alice",
		Text: "First! Great video about } braces", Likes: 1200, LikesText: "1.2K", PublishedTimeText: "2 years ago (edited)",
		ReplyCount: 15, IsPinned: true}
	if a != want {
		t.Errorf("first comment\n got %+v\nwant %+v", a, want)
	}
	b := cp.Comments[1]
	if b.Likes != 0 || b.LikesText != "" || !b.AuthorIsChannelOwner || b.ReplyCount != 0 || b.IsReply {
		t.Errorf("second comment = %+v", b)
	}
	if cp.Continuation != "COMMENTS-PAGE-2" || cp.Top != "HEADER-TOP" || cp.Newest != "HEADER-NEWEST" || cp.CountText != "1,024 Comments" {
		t.Errorf("page = cont %q top %q newest %q count %q", cp.Continuation, cp.Top, cp.Newest, cp.CountText)
	}
}

func TestExtractCommentsEntityShape(t *testing.T) {
	cp, err := parseCommentsJSON(scrapertest.Testdata(t, "comments-entity.json"), "Go_pher1234")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cp.Comments {
		ids = append(ids, c.CommentID)
	}
	// Thread order first, then the mutation-only comment; the reply and the
	// thread whose payload is missing are left out.
	if want := []string{"UgzNewShape1", "UgzNewShape2", "UgzOrphan"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	p := cp.Comments[0]
	if p.Author != "@gopheracademy" || !p.IsPinned || !p.AuthorIsChannelOwner || p.Likes != 2500 || p.LikesText != "2.5K" ||
		p.ReplyCount != 37 || p.PublishedTimeText != "1 month ago" || p.AuthorURL != "https://www.youtube.com/@gopheracademy" || p.IsReply {
		t.Errorf("pinned = %+v", p)
	}
	b := cp.Comments[1]
	if b.Text != `Newer shape &amp; all, with "quotes"` || b.Likes != 0 || b.ReplyCount != 0 || b.AuthorChannelID != "UCbob0000000000000000002" ||
		b.AuthorURL != "https://www.youtube.com/channel/UCbob0000000000000000002" || b.IsPinned {
		t.Errorf("second = %+v", b)
	}
	if o := cp.Comments[2]; o.Likes != 7 || o.ReplyCount != 1 || o.URL != "https://www.youtube.com/watch?v=Go_pher1234&lc=UgzOrphan" {
		t.Errorf("orphan = %+v", o)
	}
	if cp.Continuation != "COMMENTS-PAGE-3" {
		t.Errorf("continuation = %q", cp.Continuation)
	}
}

func TestParseTimedTextClassic(t *testing.T) {
	segs, err := parseTimedText(scrapertest.Testdata(t, "timedtext-classic.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{
		{Start: 0.5, Duration: 2.34, Text: `Hey there, it's a "test"`},
		{Start: 2.84, Duration: 1.5, Text: "gophers & parsers"},
		{Start: 4.5, Duration: 3, Text: "line one\nline two"},
	}
	if !reflect.DeepEqual(segs, want) {
		t.Errorf("segments\n got %+v\nwant %+v", segs, want)
	}
	if got := joinSegments(segs); got != `Hey there, it's a "test" gophers & parsers line one line two` {
		t.Errorf("text = %q", got)
	}
}

func TestParseTimedTextFormat3(t *testing.T) {
	segs, err := parseTimedText(scrapertest.Testdata(t, "timedtext-srv3.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{
		{Start: 1.2, Duration: 2.5, Text: "Guten Tag"},
		{Start: 3.71, Duration: 3, Text: "Gopher & Co\nzweite Zeile"},
		{Start: 7, Duration: 1.5, Text: "Umlaute: äöü 'ok'"},
	}
	if !reflect.DeepEqual(segs, want) {
		t.Errorf("segments\n got %+v\nwant %+v", segs, want)
	}
}

func TestParseTimedTextOther(t *testing.T) {
	segs, err := parseTimedText([]byte(`{"events":[{"tStartMs":0,"dDurationMs":1500,"segs":[{"utf8":"json"},{"utf8":"3 &amp; more"}]},{"tStartMs":1500,"dDurationMs":10,"segs":[{"utf8":"\n"}]}]}`))
	if err != nil || len(segs) != 1 || segs[0] != (Segment{Start: 0, Duration: 1.5, Text: "json3 & more"}) {
		t.Errorf("json3: %+v, %v", segs, err)
	}
	if _, err := parseTimedText(nil); !errors.Is(err, errEmptySubtitles) {
		t.Errorf("empty: %v", err)
	}
	if _, err := parseTimedText([]byte("<html><body>not captions</body></html>")); err == nil {
		t.Error("an HTML page was taken for subtitles")
	}
	if segs, err := parseTimedText([]byte(`<transcript></transcript>`)); err != nil || len(segs) != 0 {
		t.Errorf("empty transcript: %v, %v", segs, err)
	}
	// A file cut in the middle keeps the segments before the cut.
	segs, err = parseTimedText([]byte(`<transcript><text start="1" dur="2">kept</text><text start="3" dur="`))
	if err != nil || len(segs) != 1 || segs[0].Text != "kept" {
		t.Errorf("cut file: %+v, %v", segs, err)
	}
	// Bad numbers read as 0, never NaN (which JSON cannot carry).
	segs, _ = parseTimedText([]byte(`<transcript><text start="NaN" dur="-3">x</text></transcript>`))
	if len(segs) != 1 || segs[0].Start != 0 || segs[0].Duration != 0 {
		t.Errorf("bad numbers: %+v", segs)
	}
}

func TestChooseTrack(t *testing.T) {
	tracks := []captionTrack{
		{Language: "de", BaseURL: "de"},
		{Language: "en", Kind: "asr", BaseURL: "en-asr"},
		{Language: "en-GB", BaseURL: "en-gb"},
		{Language: "pt-BR", Kind: "asr", BaseURL: "pt-asr"},
	}
	cases := []struct {
		lang, want string
		found      bool
	}{
		{"de", "de", true},
		{"en", "en-asr", true},   // exact language, auto-generated, before a regional manual track
		{"en-gb", "en-gb", true}, // case does not matter
		{"en-US", "en-gb", true}, // same base language, manual first
		{"pt", "pt-asr", true},   // base language match
		{"fr", "de", false},      // first manual track
	}
	for _, c := range cases {
		tr, found, ok := chooseTrack(tracks, c.lang)
		if !ok || tr.BaseURL != c.want || found != c.found {
			t.Errorf("chooseTrack(%q) = %q found=%v, want %q found=%v", c.lang, tr.BaseURL, found, c.want, c.found)
		}
	}
	if tr, found, ok := chooseTrack([]captionTrack{{Language: "ja", Kind: "asr", BaseURL: "ja"}}, "en"); !ok || found || tr.BaseURL != "ja" {
		t.Errorf("only auto track: %+v %v %v", tr, found, ok)
	}
	if _, _, ok := chooseTrack(nil, "en"); ok {
		t.Error("a track was chosen from none")
	}
}

func TestTrackURL(t *testing.T) {
	on := isYouTubeHost
	if u, err := trackURL("/api/timedtext?v=x&lang=en", on); err != nil || u != "https://www.youtube.com/api/timedtext?v=x&lang=en" {
		t.Errorf("relative: %q %v", u, err)
	}
	for _, bad := range []string{"https://evil.example/api/timedtext", "file:///etc/passwd", "http://169.254.169.254/", "%zz"} {
		if _, err := trackURL(bad, on); err == nil {
			t.Errorf("trackURL(%q) accepted", bad)
		}
	}
}

func TestDetectBlock(t *testing.T) {
	mk := mkResponse
	cases := []struct {
		name string
		r    *scrapers.Response
		want string // "" for no block
	}{
		{"consent fixture", mk(200, "https://www.youtube.com/watch?v=Fx_N4GlwdEM", sharedFixtureOrNil(t, "consent-page.html")), scrapers.BlockConsentWall},
		{"too many requests fixture", mk(429, "https://www.youtube.com/watch?v=x", sharedFixtureOrNil(t, "too-many-requests.html")), scrapers.BlockRateLimited},
		{"captcha served with 200", mk(200, "https://www.youtube.com/watch?v=x", sharedFixtureOrNil(t, "too-many-requests.html")), scrapers.BlockCaptcha},
		{"consent redirect", mk(200, "https://consent.youtube.com/m?continue=https%3A%2F%2Fwww.youtube.com%2F", []byte("<html></html>")), scrapers.BlockConsentWall},
		{"google sorry", mk(200, "https://www.google.com/sorry/index?continue=x", []byte("<html></html>")), scrapers.BlockCaptcha},
		{"bare 429", mk(429, "https://www.youtube.com/youtubei/v1/next", []byte(`{"error":{"code":429}}`)), scrapers.BlockRateLimited},
		{"bot check player", mk(200, "https://www.youtube.com/youtubei/v1/player", []byte(`{"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"Sign in to confirm you’re not a bot"}}`)), scrapers.BlockRobotCheck},
		{"bot check page", mk(200, "https://www.youtube.com/watch?v=x", []byte(`<html><body><h1>Sign in to confirm you're not a bot</h1></body></html>`)), scrapers.BlockRobotCheck},
		{"age check is not a block", mk(200, "https://www.youtube.com/watch?v=x", []byte(`var ytInitialPlayerResponse = {"playabilityStatus":{"status":"LOGIN_REQUIRED","reason":"Sign in to confirm your age"},"videoDetails":{"shortDescription":"I am not a bot, I promise"}};`)), ""},
		{"description mentioning consent", mk(200, "https://www.youtube.com/watch?v=x", []byte(`var ytInitialPlayerResponse = {"videoDetails":{"shortDescription":"see consent.youtube.com and \u003cform action=\"https://consent.youtube.com/s\"\u003e; Sign in to confirm you're not a bot"}};`)), ""},
		{"real watch page", mk(200, "https://www.youtube.com/watch?v=GJLlxj_dtq8", sharedFixtureOrNil(t, "watch-page.html")), ""},
		{"real search answer", mk(200, "https://www.youtube.com/youtubei/v1/search", sharedFixtureOrNil(t, "search-videos-test.json")), ""},
		{"unusual traffic page", mk(200, "https://www.youtube.com/results?search_query=x", []byte("<!DOCTYPE html><html><body>Our systems have detected unusual traffic from your computer network.</body></html>")), scrapers.BlockCaptcha},
		{"comment saying the words", mk(200, "https://www.youtube.com/youtubei/v1/next", []byte(`{"frameworkUpdates":{"entityBatchUpdate":{"mutations":[{"payload":{"commentEntityPayload":{"properties":{"content":{"content":"Sign in to confirm you're not a bot?! Our systems have detected unusual traffic, it said. LOGIN_REQUIRED"}}}}}]}}}`)), ""},
		{"subtitle saying the words", mk(200, "https://www.youtube.com/api/timedtext?v=x", []byte(`<?xml version="1.0"?><transcript><text start="1" dur="2">Sign in to confirm you&amp;#39;re not a bot. Our systems have detected unusual traffic</text></transcript>`)), ""},
		{"watch page description saying the words", mk(200, "https://www.youtube.com/watch?v=x", []byte(`<!DOCTYPE html><html><head><meta name="description" content="Sign in to confirm you're not a bot - Our systems have detected unusual traffic"><script>var ytInitialPlayerResponse = {"playabilityStatus":{"status":"OK"},"videoDetails":{"shortDescription":"Sign in to confirm you're not a bot"}};</script></head></html>`)), ""},
		{"server error is no block", mk(500, "https://www.youtube.com/watch?v=x", []byte("oops")), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.r.Body == nil {
				t.Skip("shared fixture absent")
			}
			be := detectBlock(c.r)
			switch {
			case c.want == "" && be != nil:
				t.Errorf("blocked (%v), want no block", be)
			case c.want != "" && (be == nil || be.Kind != c.want || be.Site != "YouTube" || be.URL == ""):
				t.Errorf("got %+v, want a %s block naming YouTube and the URL", be, c.want)
			}
		})
	}
}

// sharedFixtureOrNil is sharedFixture without the skip: nil when absent.
func sharedFixtureOrNil(t *testing.T, name string) []byte {
	var b []byte
	t.Run("load "+name, func(t *testing.T) { b = scrapertest.Fixture(t, "youtube/"+name) })
	return b
}

// mkResponse builds a fetched response for detectBlock.
func mkResponse(status int, rawURL string, body []byte) *scrapers.Response {
	u, _ := url.Parse(rawURL)
	return &scrapers.Response{Request: &scrapers.Request{URL: rawURL}, URL: u, StatusCode: status, Body: body}
}

package tiktok

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

func i64(n int64) *int64 { return &n }

func TestParsePageRealVideoItemStruct(t *testing.T) {
	body := videoPage(t, scrapertest.Fixture(t, "tiktok/video-item-struct.json"))
	pg, err := parsePage(body, "https://www.tiktok.com/@x/video/1")
	if err != nil {
		t.Fatal(err)
	}
	v := pg.Video
	if v == nil {
		t.Fatal("no video")
	}
	if v.ID != "7655821461772406047" {
		t.Errorf("id = %q", v.ID)
	}
	if v.URL != "https://www.tiktok.com/@cookwithhali/video/7655821461772406047" {
		t.Errorf("url = %q", v.URL)
	}
	if v.Author.UniqueID != "cookwithhali" || v.Author.Nickname != "Cookwithhali" || v.Author.ID != "7501138183701103662" || v.Author.Verified {
		t.Errorf("author = %+v", v.Author)
	}
	if !strings.HasPrefix(v.Description, "Pull Apart Garlic Bread") {
		t.Errorf("description = %q", v.Description)
	}
	if v.CreateTime != 1782509863 || v.CreatedAt != "2026-06-26T21:37:43Z" {
		t.Errorf("create time = %d %q", v.CreateTime, v.CreatedAt)
	}
	// statsV2 carries the exact counts; stats.collectCount is rounded.
	want := VideoStats{Plays: i64(8300000), Likes: i64(754100), Comments: i64(3720), Shares: i64(144500), Collects: i64(396399)}
	if !reflect.DeepEqual(v.Stats, want) {
		t.Errorf("stats = %s", mustJSON(v.Stats))
	}
	if v.Music == nil || v.Music.ID != "7655821492566919966" || v.Music.Title != "original sound" || !v.Music.Original || v.Music.Duration != 62 {
		t.Errorf("music = %+v", v.Music)
	}
	if v.Duration != 62 || !strings.HasPrefix(v.Cover, "https://") {
		t.Errorf("duration %d cover %q", v.Duration, v.Cover)
	}
	if len(v.Hashtags) != 5 || v.Hashtags[0] != "bread" {
		t.Errorf("hashtags = %v", v.Hashtags)
	}
	if v.Language != "en" || v.Location != "US" {
		t.Errorf("language %q location %q", v.Language, v.Location)
	}
}

func TestParseItemListRealListingItem(t *testing.T) {
	item := scrapertest.Fixture(t, "tiktok/listing-item.json")
	body := []byte(`{"cursor":"1782509863000","hasMore":true,"statusCode":0,"itemList":[` + string(item) + `]}`)
	l, err := parseItemList(body, "https://www.tiktok.com/tag/bread")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Videos) != 1 || !l.HasMore || l.Cursor != "1782509863000" {
		t.Fatalf("list = %+v", l)
	}
	v := l.Videos[0]
	if v.ID != "7655821461772406047" || v.Author.UniqueID != "cookwithhali" || v.Source != "https://www.tiktok.com/tag/bread" {
		t.Errorf("video = %+v", v)
	}
	if v.Stats.Likes == nil || *v.Stats.Likes != 754100 || v.Stats.Collects == nil || *v.Stats.Collects != 396397 {
		t.Errorf("stats = %s", mustJSON(v.Stats))
	}
	if v.URL != "https://www.tiktok.com/@cookwithhali/video/7655821461772406047" {
		t.Errorf("url = %q", v.URL)
	}
}

func TestParsePageOwnFixtures(t *testing.T) {
	t.Run("video", func(t *testing.T) {
		pg, err := parsePage(scrapertest.Testdata(t, "video.html"), "https://www.tiktok.com/@chef.anna/video/7000000000000000001")
		if err != nil {
			t.Fatal(err)
		}
		v := pg.Video
		if v.Author.Nickname != "Anna <Chef>" || !v.Author.Verified || v.Author.Avatar == "" {
			t.Errorf("author = %+v", v.Author)
		}
		if *v.Stats.Plays != 56789 || *v.Stats.Likes != 1234 || *v.Stats.Collects != 80 {
			t.Errorf("stats = %s", mustJSON(v.Stats))
		}
		if !reflect.DeepEqual(v.Hashtags, []string{"bread", "baking"}) {
			t.Errorf("hashtags = %v", v.Hashtags)
		}
		if v.CreateTime != 1700000000 || v.Location != "GB" {
			t.Errorf("create %d location %q", v.CreateTime, v.Location)
		}
	})
	t.Run("photo post, author as a name", func(t *testing.T) {
		pg, err := parsePage(scrapertest.Testdata(t, "photo.html"), "https://www.tiktok.com/@anna_photos/photo/7000000000000000009")
		if err != nil {
			t.Fatal(err)
		}
		v := pg.Video
		if v.Author.UniqueID != "anna_photos" || v.Author.ID != "6900000000000000009" {
			t.Errorf("author = %+v", v.Author)
		}
		if len(v.Images) != 2 || v.Cover != "https://cdn.example.test/pc.jpg" {
			t.Errorf("images %v cover %q", v.Images, v.Cover)
		}
		if v.URL != "https://www.tiktok.com/@anna_photos/photo/7000000000000000009" {
			t.Errorf("url = %q", v.URL)
		}
		if v.Stats.Likes == nil || *v.Stats.Likes != 7 || v.Stats.Plays != nil {
			t.Errorf("stats = %s", mustJSON(v.Stats))
		}
	})
	t.Run("profile", func(t *testing.T) {
		pg, err := parsePage(scrapertest.Testdata(t, "profile.html"), "https://www.tiktok.com/@chef.anna")
		if err != nil {
			t.Fatal(err)
		}
		p := pg.Profile
		if p.URL != "https://www.tiktok.com/@chef.anna" || p.UniqueID != "chef.anna" || p.SecUID != "MS4wLjABAAAA-test-sec-uid" || p.BioLink != "https://anna.example.test" {
			t.Errorf("profile = %+v", p)
		}
		if *p.Stats.Followers != 120345 || *p.Stats.Likes != 3400123 || *p.Stats.Videos != 210 || *p.Stats.Following != 12 {
			t.Errorf("stats = %s", mustJSON(p.Stats))
		}
		if len(pg.ProfileVideos) != 2 || pg.ProfileVideos[1].ID != "7000000000000000002" || pg.ProfileVideos[0].Source != p.URL {
			t.Errorf("profile videos = %+v", pg.ProfileVideos)
		}
	})
	t.Run("hashtag", func(t *testing.T) {
		pg, err := parsePage(scrapertest.Testdata(t, "hashtag.html"), "https://www.tiktok.com/tag/bread")
		if err != nil {
			t.Fatal(err)
		}
		h := pg.Hashtag
		if h.ID != "6983" || h.Name != "bread" || h.URL != "https://www.tiktok.com/tag/bread" || *h.Stats.Views != 12345678901 || *h.Stats.Videos != 1912345 {
			t.Errorf("hashtag = %+v %s", h, mustJSON(h.Stats))
		}
	})
	t.Run("private video", func(t *testing.T) {
		_, err := parsePage(scrapertest.Testdata(t, "private.html"), "u")
		var se *statusError
		if !errors.As(err, &se) || se.Code != 10216 || !strings.Contains(err.Error(), "private") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestParsePageMissingOrBrokenData(t *testing.T) {
	for name, body := range map[string]string{
		"no script":       `<html><body>hello</body></html>`,
		"unclosed script": `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":{}}`,
		"not JSON":        `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{nope</script>`,
		"no scope":        `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"a":1}</script>`,
		"scope of array":  `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":[1,2]}</script>`,
		"empty video":     `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":{}}}}}</script>`,
		"odd types":       `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":{"webapp.user-detail":{"userInfo":{"user":"x","stats":[1]}}}}</script>`,
	} {
		t.Run(name, func(t *testing.T) {
			pg, err := parsePage([]byte(body), "u")
			if err == nil {
				t.Fatalf("parsed %+v, want an error", pg)
			}
		})
	}
	// Odd types inside an otherwise valid item give zero values, not errors.
	body := `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":{"id":12345,"desc":["x"],"createTime":{},"author":{"uniqueId":7},"stats":"many","challenges":[null,{"title":3},"x"],"video":[],"music":5}}}}}</script>`
	pg, err := parsePage([]byte(body), "u")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Video.ID != "12345" || pg.Video.Author.UniqueID != "7" || pg.Video.Description != "" || pg.Video.Stats.Plays != nil || pg.Video.Music != nil {
		t.Errorf("video = %+v", pg.Video)
	}
}

func TestParseItemListErrors(t *testing.T) {
	if _, err := parseItemList([]byte("  "), "s"); !errors.Is(err, errEmptyList) {
		t.Errorf("empty: %v", err)
	}
	if _, err := parseItemList([]byte("<html>"), "s"); !errors.Is(err, errNotJSON) {
		t.Errorf("html: %v", err)
	}
	if _, err := parseItemList([]byte(`[1]`), "s"); !errors.Is(err, errNotJSON) {
		t.Errorf("array: %v", err)
	}
	var se *statusError
	if _, err := parseItemList([]byte(`{"statusCode":10201,"statusMsg":"bad"}`), "s"); !errors.As(err, &se) {
		t.Errorf("status: %v", err)
	}
	l, err := parseItemList([]byte(`{"itemList":[{"id":"1","author":{"uniqueId":"a"}},{"desc":"no id"},7],"hasMore":1,"cursor":30}`), "s")
	if err != nil || len(l.Videos) != 1 || !l.HasMore || l.Cursor != "30" {
		t.Errorf("list = %+v, %v", l, err)
	}
}

func TestDetectBlock(t *testing.T) {
	resp := func(status int, final string, body string) *scrapers.Response {
		u, _ := url.Parse(final)
		return &scrapers.Response{Request: &scrapers.Request{URL: "https://www.tiktok.com/@x"}, URL: u, StatusCode: status, Body: []byte(body), Header: http.Header{}}
	}
	cases := []struct {
		name string
		r    *scrapers.Response
		kind string
	}{
		{"verify page", resp(200, "https://www.tiktok.com/@x", string(scrapertest.Testdata(t, "verify.html"))), scrapers.BlockCaptcha},
		{"login redirect", resp(200, "https://www.tiktok.com/login?redirect_url=x", "<html></html>"), scrapers.BlockLoginWall},
		{"429 is left to the fetcher's retries", resp(429, "https://www.tiktok.com/@x", ""), ""},
		{"api verify", resp(200, "https://www.tiktok.com/api/post/item_list/", `{"code":"10000","from":"","type":"verify","version":"","region":"va1"}`), scrapers.BlockCaptcha},
		{"video page", resp(200, "https://www.tiktok.com/@x/video/1", string(scrapertest.Testdata(t, "video.html"))), ""},
		{"data page mentioning captcha", resp(200, "https://www.tiktok.com/@x", `<script>var c="captcha_verify_container"</script>`+string(scrapertest.Testdata(t, "profile.html"))), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { scrapertest.CheckBlock(t, detectBlock(c.r), c.kind, "TikTok") })
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestScriptText(t *testing.T) {
	for body, want := range map[string]string{
		`<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">X</script>`:                           "X</script>",
		`<script type="application/json" id='__UNIVERSAL_DATA_FOR_REHYDRATION__'>Y`:                                    "Y",
		`<script id=__UNIVERSAL_DATA_FOR_REHYDRATION__>Z`:                                                              "Z",
		`<p>__UNIVERSAL_DATA_FOR_REHYDRATION__</p><script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">W`:                   "W",
		`<script>var a="__UNIVERSAL_DATA_FOR_REHYDRATION__"</script><script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">V`: "V",
	} {
		got, ok := scriptText([]byte(body), universalDataID)
		if !ok || string(got) != want {
			t.Errorf("scriptText(%q) = %q %v, want %q", body, got, ok, want)
		}
	}
	for _, body := range []string{`no script`, `<script>__UNIVERSAL_DATA_FOR_REHYDRATION__</script>`, `<script data-x="__UNIVERSAL_DATA_FOR_REHYDRATION__">`, `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__"`} {
		if got, ok := scriptText([]byte(body), universalDataID); ok {
			t.Errorf("scriptText(%q) = %q", body, got)
		}
	}
}

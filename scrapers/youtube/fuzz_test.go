package youtube

import (
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// The fuzzers check that extractors never panic on any input and that what
// they return keeps its promises (valid ids, encodable items). Seeds are kept
// small: the fuzzer minimizes every new interesting input for up to
// -fuzzminimizetime (60 s by default), which for kilobyte seeds can eat a
// short -fuzztime whole.

func FuzzEmbeddedJSON(f *testing.F) {
	f.Add([]byte(`<script>ytcfg.set({"INNERTUBE_API_KEY":"k"});var ytInitialData = {"a":[{"b":"}"}]};</script>`))
	f.Add([]byte(`var ytInitialData = '\x7b\x22a\x22:\u0031\x7d';`))
	f.Add([]byte(`window["ytInitialData"] = {"a":"}\"{"};`))
	f.Add([]byte(`ytInitialData = '\ud83d\ude00'; ytInitialData = "{\"a\":[1,2]}"`))
	f.Add([]byte(`"INNERTUBE_API_KEY":"k","INNERTUBE_CLIENT_VERSION":`))
	f.Fuzz(func(t *testing.T, page []byte) {
		raw, err := embeddedJSON(page, "ytInitialData")
		if err == nil {
			if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
				t.Fatalf("value %q does not start an object or array", raw)
			}
			if n, err := valueEnd(raw); err != nil || n != len(raw) {
				t.Fatalf("value %q is not one whole value (%d, %v)", raw, n, err)
			}
		}
		var v any
		if err := decodeEmbedded(page, "ytInitialData", &v); err == nil {
			if _, err := json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		if raw, err := jsonField(page, "INNERTUBE_API_KEY"); err == nil && len(raw) == 0 {
			t.Fatal("empty field value without an error")
		}
		c := pageConfig(page)
		for _, s := range []string{c.APIKey, c.ClientVersion} {
			if s != "" && !plainToken(s) {
				t.Fatalf("unsafe config value %q", s)
			}
		}
		_ = isBotCheck(page)
	})
}

func FuzzParseWatchPage(f *testing.F) {
	f.Add(scrapertest.Testdata(f, "watch-page.html"))
	f.Add(scrapertest.Testdata(f, "botcheck-page.html"))
	f.Add([]byte(`var ytInitialPlayerResponse = {"playabilityStatus":{"status":"ERROR"},"videoDetails":{"videoId":"abcdefghijk","lengthSeconds":"-5","viewCount":"x"}};var ytInitialData = {"contents":[]};`))
	f.Add([]byte(`var ytInitialData = {"contents":{"twoColumnWatchNextResults":{"results":{"results":{"contents":[{"videoPrimaryInfoRenderer":{"videoActions":[{"buttonViewModel":{"iconName":"LIKE","title":"9.9B"}}]}}]}}}}};`))
	f.Fuzz(func(t *testing.T, page []byte) {
		wp, err := parseWatchPage(page)
		if err != nil {
			return
		}
		if !isVideoID(wp.Video.ID) || wp.Video.URL != watchURL(wp.Video.ID) {
			t.Fatalf("video id %q url %q", wp.Video.ID, wp.Video.URL)
		}
		if _, err := json.Marshal(wp.Video); err != nil {
			t.Fatal(err)
		}
		if d := wp.Video.DurationSeconds; d != nil && *d <= 0 {
			t.Fatalf("duration %d", *d)
		}
	})
}

func FuzzParseSearchJSON(f *testing.F) {
	f.Add([]byte(`{"onResponseReceivedCommands":[{"appendContinuationItemsAction":{"continuationItems":[{"itemSectionRenderer":{"contents":[{"videoRenderer":{"videoId":"abcdefghijk","title":{"runs":[{"text":"t"}]},"ownerText":{"runs":[{"text":"o","navigationEndpoint":{"browseEndpoint":{"browseId":"UC1"}}}]}}}]}}]}}]}`))
	f.Add([]byte(`{"contents":{"twoColumnSearchResultsRenderer":{"primaryContents":{"sectionListRenderer":{"contents":[{"itemSectionRenderer":{"contents":[{"videoRenderer":{"videoId":"abcdefghijk","lengthText":{"simpleText":"99:99:99"},"viewCountText":{"runs":[{"text":"1.5K"},{"text":" watching"}]}}}]}}]}}}}}`))
	f.Add([]byte(`{"onResponseReceivedCommands":[{"appendContinuationItemsAction":{"continuationItems":[{"continuationItemRenderer":{"continuationEndpoint":{"continuationCommand":{"token":"t"}}}}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sp, err := parseSearchJSON(body)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, v := range sp.Videos {
			if !isVideoID(v.ID) || seen[v.ID] {
				t.Fatalf("bad or repeated id %q", v.ID)
			}
			seen[v.ID] = true
			if v.Views != nil && *v.Views < 0 {
				t.Fatalf("negative views %d", *v.Views)
			}
		}
		if _, err := json.Marshal(sp.Videos); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzExtractComments(f *testing.F) {
	f.Add(scrapertest.Testdata(f, "comments-renderer.json"))
	f.Add(scrapertest.Testdata(f, "comments-entity.json"))
	f.Add([]byte(`{"frameworkUpdates":{"entityBatchUpdate":{"mutations":[{"payload":{"commentEntityPayload":{"properties":{"commentId":"x","replyLevel":"1"},"toolbar":{"replyCount":"1e9"}}}}]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		cp, err := parseCommentsJSON(body, "abcdefghijk")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range cp.Comments {
			if c.CommentID == "" || seen[c.CommentID] || !strings.HasPrefix(c.URL, "https://www.youtube.com/watch?v=abcdefghijk&lc=") {
				t.Fatalf("comment %+v", c)
			}
			seen[c.CommentID] = true
			if c.Likes < 0 || c.ReplyCount < 0 {
				t.Fatalf("negative counts %+v", c)
			}
		}
		if _, err := json.Marshal(cp.Comments); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseTimedText(f *testing.F) {
	f.Add(scrapertest.Testdata(f, "timedtext-classic.xml"))
	f.Add(scrapertest.Testdata(f, "timedtext-srv3.xml"))
	f.Add([]byte(`{"events":[{"tStartMs":1e308,"dDurationMs":-1,"segs":[{"utf8":"x"}]}]}`))
	f.Add([]byte(`<timedtext><body><p t="1e400" d="NaN"><s>a</s><br>b</p></body></timedtext>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		segs, err := parseTimedText(body)
		if err != nil {
			return
		}
		for _, s := range segs {
			if s.Text == "" || s.Text != strings.TrimSpace(s.Text) {
				t.Fatalf("segment text %q", s.Text)
			}
			for _, x := range []float64{s.Start, s.Duration} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("segment time %v", x)
				}
			}
		}
		if _, err := json.Marshal(segs); err != nil {
			t.Fatal(err)
		}
		_ = joinSegments(segs)
	})
}

func FuzzVideoID(f *testing.F) {
	for _, s := range []string{"https://www.youtube.com/watch?v=GJLlxj_dtq8", "youtu.be/GJLlxj_dtq8", "https://www.youtube.com/shorts/abcdefghijk", "%", "http://[::1", "GJLlxj_dtq8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := videoID(raw, nil)
		if err == nil && !isVideoID(id) {
			t.Fatalf("videoID(%q) = %q", raw, id)
		}
	})
}

func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"1,856,109 views", "1.8M", "No views", "1\u00a0234", "9.9e9K", "..5K", "1,2 K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseCount(s)
		if n < 0 || (!ok && n != 0) {
			t.Fatalf("parseCount(%q) = %d, %v", s, n, ok)
		}
		if d, ok := parseDuration(s); ok && d < 0 {
			t.Fatalf("parseDuration(%q) = %d", s, d)
		}
	})
}

func FuzzParseChannelPage(f *testing.F) {
	f.Add([]byte(`<script>var ytInitialData = {"contents":{"twoColumnBrowseResultsRenderer":{"tabs":[{"tabRenderer":{"selected":true,"content":{"richGridRenderer":{"contents":[{"richItemRenderer":{"content":{"videoRenderer":{"videoId":"Chan_vid001","title":{"simpleText":"t"},"lengthText":{"simpleText":"1:00"}}}}},{"continuationItemRenderer":{"continuationEndpoint":{"continuationCommand":{"token":"T"}}}}]}}}}]}},"metadata":{"channelMetadataRenderer":{"title":"c","externalId":"UCx","vanityChannelUrl":"http://www.youtube.com/@c"}}};</script>`))
	f.Add([]byte(`<script>var ytInitialData = {"contents":{"twoColumnBrowseResultsRenderer":{"tabs":[{"tabRenderer":{"content":{"richGridRenderer":{"contents":[{"richItemRenderer":{"content":{"lockupViewModel":{"contentId":"Chan_vid003","metadata":{"lockupMetadataViewModel":{"title":{"content":"x"},"metadata":{"contentMetadataViewModel":{"metadataRows":[{"metadataParts":[{"text":{"content":"1K views"}}]}]}}}}}}}}]}}}}]}}};</script>`))
	f.Add([]byte(`{"onResponseReceivedActions":[{"appendContinuationItemsAction":{"continuationItems":[{"richItemRenderer":{"content":{"gridVideoRenderer":{"videoId":"Chan_vid002"}}}}]}}]}`))
	f.Fuzz(func(t *testing.T, page []byte) {
		info, pg, err := parseChannelPage(page)
		if err == nil && info.URL != "" && !strings.HasPrefix(info.URL, "https://www.youtube.com/") {
			t.Fatalf("channel URL %q is not on YouTube", info.URL)
		}
		var data any
		if json.Unmarshal(page, &data) == nil {
			pg = parseBrowseContinuation(data)
		}
		for _, v := range pg.Videos {
			if !isVideoID(v.ID) || v.URL != watchURL(v.ID) {
				t.Fatalf("video %+v", v)
			}
			if _, err := json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzChannelRef(f *testing.F) {
	for _, s := range []string{"@gophertalks", "https://www.youtube.com/@gopher.talks/streams", "youtube.com/channel/UCgophertalks00000000001/videos",
		"https://m.youtube.com/c/Name/featured?x=1", "@ゴーファー", "https://www.youtube.com/user/x/../../watch", "@a/b", "https://www.youtube.com/@%2e%2e", "https://www.youtube.com/c/../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tab, ok, err := channelRef(raw, nil)
		if !ok || err != nil {
			if tab.Path != "" {
				t.Fatalf("%q: path %q without a channel", raw, tab.Path)
			}
			return
		}
		p := tab.Path
		if !strings.HasPrefix(p, "/") || !(strings.HasSuffix(p, "/videos") || strings.HasSuffix(p, "/streams")) ||
			strings.ContainsAny(p, "?#\\ ") || strings.Contains(p, "/../") || strings.Contains(p, "/./") {
			t.Fatalf("%q: path %q", raw, p)
		}
		if u, err := url.Parse(tab.URL()); err != nil || u.Host != "www.youtube.com" || u.EscapedPath() != p {
			t.Fatalf("%q: URL %q does not keep the path (%v)", raw, tab.URL(), err)
		}
	})
}

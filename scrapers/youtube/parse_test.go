package youtube

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/scrapers/jsonval"
)

func TestEmbeddedJSONForms(t *testing.T) {
	cases := []struct {
		name, page, want string
	}{
		{"var", `<script>var ytInitialData = {"a":"}{","b":[1,{"c":"\"}"}]};var x = 1;</script>`, `{"a":"}{","b":[1,{"c":"\"}"}]}`},
		{"window", `<script>window["ytInitialData"] = {"k":1};</script>`, `{"k":1}`},
		{"window single quotes", `<script>window['ytInitialData']={"k":2}</script>`, `{"k":2}`},
		{"no spaces", `ytInitialData={"k":3};`, `{"k":3}`},
		{"js string (m.youtube.com)", `<script>var ytInitialData = '\x7b\x22k\x22:\x22caf\u00e9 \\u00e9 \x27q\x27\x22\x7d';</script>`, `{"k":"café \u00e9 'q'"}`},
		{"mentions skipped", `a.ytInitialData,b.ytInitialData==c; my_ytInitialData = {"no":1}; ytInitialDataX = {"no":2}; var ytInitialData = {"yes":true};`, `{"yes":true}`},
		{"array", `var ytInitialData = [1,[2],"]"];`, `[1,[2],"]"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got any
			if err := decodeEmbedded([]byte(c.page), "ytInitialData", &got); err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("got %s, want %s", gb, wb)
			}
		})
	}
}

func TestEmbeddedJSONErrors(t *testing.T) {
	for _, page := range []string{"", "no data here", "ytInitialData", "var ytInitialData = ", "var ytInitialData = null;", "var ytInitialData = {\"a\":\"b"} {
		var v any
		err := decodeEmbedded([]byte(page), "ytInitialData", &v)
		if err == nil {
			t.Errorf("%q: no error", page)
		}
	}
	if _, err := embeddedJSON([]byte("x"), "ytInitialData"); !errors.Is(err, errNoData) {
		t.Errorf("absent: %v, want errNoData", err)
	}
	if _, err := embeddedJSON([]byte(`var ytInitialData = {"a":[1,2}`), "ytInitialData"); err == nil || errors.Is(err, errNoData) {
		t.Errorf("cut value: %v, want an error naming the problem", err)
	}
}

func TestJSONField(t *testing.T) {
	page := []byte(`ytcfg.set({"INNERTUBE_API_KEY" : "k-1", "N": 12, "O": {"x":"}"}, "E":"a\/b\u0026c"});`)
	if got := jsonStringField(page, "INNERTUBE_API_KEY"); got != "k-1" {
		t.Errorf("key = %q", got)
	}
	if got := jsonStringField(page, "E"); got != "a/b&c" {
		t.Errorf("escaped = %q", got)
	}
	if got := jsonStringField(page, "N"); got != "" {
		t.Errorf("number as string = %q", got)
	}
	if raw, err := jsonField(page, "O"); err != nil || string(raw) != `{"x":"}"}` {
		t.Errorf("object = %s, %v", raw, err)
	}
	if raw, err := jsonField(page, "N"); err != nil || string(raw) != "12" {
		t.Errorf("number = %s, %v", raw, err)
	}
	if _, err := jsonField(page, "missing"); !errors.Is(err, errNoData) {
		t.Errorf("missing: %v", err)
	}
	// A config value that could smuggle something into a URL or header is dropped.
	cfg := pageConfig([]byte(`{"INNERTUBE_API_KEY":"a&b=c","INNERTUBE_CLIENT_VERSION":"2.1\r\nX: y"}`))
	if cfg.APIKey != "" || cfg.ClientVersion != "" || cfg.version() != defaultClientVersion {
		t.Errorf("unsafe config kept: %+v", cfg)
	}
}

func TestParseCount(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1,856,109 views", 1856109, true},
		{"1.8M views", 1800000, true},
		{"43K", 43000, true},
		{"2.7K", 2700, true},
		{"1.2B views", 1200000000, true},
		{"No views", 0, true},
		{"1 view", 1, true},
		{"like this video along with 43,864 other people", 43864, true},
		{"1,234 watching", 1234, true},
		{"View 15 replies", 15, true},
		{"5 minutes", 5, true},
		{"3 books", 3, true},
		{"1.234.567 Aufrufe", 1234567, true},
		{"1\u00a0234 vues", 1234, true},
		{"", 0, false},
		{"views", 0, false},
		{" ", 0, false},
		{"99999999999999999999999", 0, false},
		{"9999999999999999B", 0, false},
	}
	for _, c := range cases {
		got, ok := parseCount(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseCount(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestDurations(t *testing.T) {
	for in, want := range map[string]int{"47:20": 2840, "1:02:03": 3723, "0:42": 42, "5": 5} {
		if got, ok := parseDuration(in); !ok || got != want {
			t.Errorf("parseDuration(%q) = %d, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "LIVE", "1::2", "-1:00", "1:2:3:4", "SHORTS"} {
		if _, ok := parseDuration(bad); ok {
			t.Errorf("parseDuration(%q) accepted", bad)
		}
	}
	for sec, want := range map[int]string{316: "5:16", 3723: "1:02:03", 0: "0:00", 59: "0:59", 36000: "10:00:00"} {
		if got := formatDuration(sec); got != want {
			t.Errorf("formatDuration(%d) = %q, want %q", sec, got, want)
		}
	}
}

func TestVideoID(t *testing.T) {
	good := map[string]string{
		"https://www.youtube.com/watch?v=GJLlxj_dtq8":                 "GJLlxj_dtq8",
		"https://youtube.com/watch?feature=share&v=GJLlxj_dtq8&t=30s": "GJLlxj_dtq8",
		"http://m.youtube.com/watch?v=GJLlxj_dtq8":                    "GJLlxj_dtq8",
		"https://music.youtube.com/watch?v=GJLlxj_dtq8&list=RD":       "GJLlxj_dtq8",
		"https://youtu.be/GJLlxj_dtq8?si=abc":                         "GJLlxj_dtq8",
		"youtu.be/GJLlxj_dtq8":                                        "GJLlxj_dtq8",
		"https://www.youtube.com/shorts/Res_short03":                  "Res_short03",
		"https://www.youtube.com/embed/GJLlxj_dtq8?start=1":           "GJLlxj_dtq8",
		"https://www.youtube.com/live/GJLlxj_dtq8":                    "GJLlxj_dtq8",
		"https://www.youtube-nocookie.com/embed/GJLlxj_dtq8":          "GJLlxj_dtq8",
		"  GJLlxj_dtq8 ": "GJLlxj_dtq8",
	}
	for in, want := range good {
		if got, err := videoID(in, nil); err != nil || got != want {
			t.Errorf("videoID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "https://vimeo.com/123", "https://www.youtube.com/@Dave2D", "https://www.youtube.com/watch?v=short",
		"https://www.youtube.com/watch?v=GJLlxj_dtq8x", "https://evil.com/youtube.com/watch?v=GJLlxj_dtq8",
		"https://youtube.com.evil.com/watch?v=GJLlxj_dtq8", "https://www.youtube.com/results?search_query=x", "::::", "GJLlxj_dtq"}
	for _, in := range bad {
		if got, err := videoID(in, nil); err == nil {
			t.Errorf("videoID(%q) = %q, want an error", in, got)
		}
	}
	// With a stand-in origin, its host counts as YouTube.
	stand := func(u *url.URL) bool { return u.Host == "127.0.0.1:9" || isYouTubeHost(u) }
	if got, err := videoID("http://127.0.0.1:9/watch?v=GJLlxj_dtq8", stand); err != nil || got != "GJLlxj_dtq8" {
		t.Errorf("stand-in URL: %q, %v", got, err)
	}
}

func TestURLs(t *testing.T) {
	if got := searchURL("go & rust"); got != "https://www.youtube.com/results?search_query=go+%26+rust&sp=EgIQAQ%3D%3D" {
		t.Errorf("searchURL = %q", got)
	}
	if got := channelURL("http://www.youtube.com/@Dave2D", ""); got != "https://www.youtube.com/@Dave2D" {
		t.Errorf("channelURL = %q", got)
	}
	if got := channelURL("", ""); got != "" {
		t.Errorf("channelURL of nothing = %q", got)
	}
}

func TestNodeHelpersTolerateAnything(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`{"a":[{"b":"x"},2,null],"t":{"runs":[{"text":"a"},{"nope":1},"s"]},"n":3.5}`), &v)
	if text(jsonval.Get(v, "t")) != "a" || text(jsonval.Get(v, "n")) != "" || text(nil) != "" {
		t.Errorf("text = %q", text(jsonval.Get(v, "t")))
	}
	if str(jsonval.Get(v, "n")) != "3.5" || str(jsonval.Get(v, "a")) != "" {
		t.Error("str")
	}
	if bestThumbnail(map[string]any{"thumbnails": []any{1, map[string]any{"url": 2}}}) != "" {
		t.Error("bestThumbnail of junk")
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	var d any
	if json.Unmarshal([]byte(deep), &d) == nil {
		n := 0
		walk(d, func(string, any) bool { n++; return true })
	}
}

package youtube_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/youtube"
)

// e2eSite is a small stand-in YouTube for the end-to-end tests (the package's
// own stand-in is internal, and hosttest imports this package through
// scrapers/all, so these tests live outside it).
func e2eSite(t *testing.T) *httptest.Server {
	watch := scrapertest.Testdata(t, "watch-page.html")
	consent := scrapertest.Testdata(t, "consent-form.html")
	results := scrapertest.Testdata(t, "results-page.html")
	cont := scrapertest.Testdata(t, "search-continuation.json")
	first := scrapertest.Testdata(t, "comments-renderer.json")
	second := scrapertest.Testdata(t, "comments-entity.json")
	classic := scrapertest.Testdata(t, "timedtext-classic.xml")
	channel := scrapertest.Testdata(t, "channel-videos.html")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var token struct {
			Continuation string `json:"continuation"`
		}
		if r.Method == http.MethodPost {
			json.NewDecoder(r.Body).Decode(&token)
		}
		switch {
		case r.URL.Path == "/watch" && r.URL.Query().Get("v") == "Go_pher1234":
			w.Write(watch)
		case r.URL.Path == "/watch" && r.URL.Query().Get("v") == "Consent0001":
			w.Write(consent)
		case r.URL.Path == "/results":
			w.Write(results)
		case r.URL.Path == "/@gophertalks/videos":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(channel)
		case r.URL.Path == "/youtubei/v1/browse" && token.Continuation == "CHANNEL-PAGE-2":
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.Write([]byte(`{"onResponseReceivedActions":[{"appendContinuationItemsAction":{"continuationItems":[` +
				`{"richItemRenderer":{"content":{"videoRenderer":{"videoId":"Chan_vid004","title":{"runs":[{"text":"Fourth"}]},"lengthText":{"simpleText":"1:00"},"viewCountText":{"simpleText":"4 views"},"publishedTimeText":{"simpleText":"1 year ago"}}}}},` +
				`{"richItemRenderer":{"content":{"videoRenderer":{"videoId":"Chan_vid005","title":{"runs":[{"text":"Fifth"}]},"lengthText":{"simpleText":"2:00"},"viewCountText":{"simpleText":"5 views"},"publishedTimeText":{"simpleText":"2 years ago"}}}}}` +
				`],"targetId":"browse-feedUCgophertalks00000000001videos"}}]}`))
		case r.URL.Path == "/youtubei/v1/search" && token.Continuation == "SEARCH-PAGE-2":
			w.Write(cont)
		case r.URL.Path == "/youtubei/v1/next" && token.Continuation == "COMMENTS-SECTION":
			w.Write(first)
		case r.URL.Path == "/youtubei/v1/next" && token.Continuation == "COMMENTS-PAGE-2":
			// Slow: the call's deadline passes while this page loads.
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
				w.Write(second)
			}
		case r.URL.Path == "/api/timedtext" && r.URL.Query().Get("lang") == "en" && r.URL.Query().Get("kind") == "":
			w.Write(classic)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	return site
}

func e2eHost(t *testing.T, deadline time.Duration) *mcp.ClientSession {
	site := e2eSite(t)
	return hosttest.ConnectPlugin(t, "youtube", youtube.New, map[string]string{"YOUTUBE_BASE_URL": site.URL}, func(c *host.Config) {
		if deadline > 0 {
			c.CallDeadline = deadline
		}
	})
}

func TestEndToEndScrape(t *testing.T) {
	cs := e2eHost(t, 0)
	titles := scrapertest.ToolTitles(t, cs)
	if titles["scrape"] != "Scrape YouTube" || titles["comments"] != "YouTube comments" {
		t.Errorf("tools = %v", titles)
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{
		"urls":               []string{"https://youtu.be/Go_pher1234"},
		"search_queries":     []string{"gopher parser"},
		"max_results":        4,
		"download_subtitles": false,
	})
	if res.IsError {
		t.Fatalf("tool error: %s", scrapertest.Text(res))
	}
	if len(page.Items) != 5 || page.Partial || page.Items[0]["title"] != "Gophers build a parser {part 1}" ||
		page.Items[1]["search_query"] != "gopher parser" || page.Items[4]["id"] != "Res_page2_4" {
		t.Errorf("result: %s", scrapertest.Text(res))
	}

	res, page = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"Go_pher1234"}, "download_subtitles": true})
	if res.IsError || len(page.Items) != 1 {
		t.Fatalf("subtitles call: %s", scrapertest.Text(res))
	}
	if subs, _ := page.Items[0]["subtitles"].(map[string]any); subs == nil || subs["language"] != "en" {
		t.Errorf("subtitles = %v (%v)", page.Items[0]["subtitles"], page.Items[0]["subtitles_error"])
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=Consent0001"}})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "YouTube") || !strings.Contains(scrapertest.Text(res), "consent wall") {
		t.Errorf("consent page: error %v, %q", res.IsError, scrapertest.Text(res))
	}

	res, _ = scrapertest.CallTool(t, cs, "scrape", map[string]any{"search_queries": []string{"x"}, "max_results": 500})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "max_results") {
		t.Errorf("bad max_results: error %v, %q", res.IsError, scrapertest.Text(res))
	}
}

func TestEndToEndComments(t *testing.T) {
	cs := e2eHost(t, 2*time.Second)
	res, page := scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=Go_pher1234"}, "max_comments": 2})
	if res.IsError || len(page.Items) != 2 || page.Partial || page.Items[0]["comment_id"] != "UgxOldShape1" || page.Items[0]["author"] != "@alice" {
		t.Fatalf("comments: %s", scrapertest.Text(res))
	}
	// Page 2 is slow: at the deadline the first page's comments come back,
	// marked partial.
	res, page = scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "max_comments": 10})
	if res.IsError || len(page.Items) != 2 || !page.Partial {
		t.Errorf("deadline: error %v, %s", res.IsError, scrapertest.Text(res))
	}
	res, _ = scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "sort_by": "oldest"})
	if !res.IsError || !strings.Contains(scrapertest.Text(res), "sort_by") {
		t.Errorf("bad sort_by: %q", scrapertest.Text(res))
	}
}

// pageCursor is the next_cursor of a tool result's page ("" when absent).
func pageCursor(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var p struct {
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(scrapertest.Text(res)), &p); err != nil {
		t.Fatal(err)
	}
	if p.NextCursor == nil {
		return ""
	}
	return *p.NextCursor
}

// A channel's videos through the host, two pages walked with the cursor the
// first answer returned; the schemas publish both.
func TestEndToEndChannelCursor(t *testing.T) {
	cs := e2eHost(t, 0)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if (tool.Name == "scrape" || tool.Name == "comments") && (!strings.Contains(string(in), `"cursor"`) || !strings.Contains(string(out), `"next_cursor"`)) {
			t.Errorf("%s schemas do not declare cursor and next_cursor:\n%s\n%s", tool.Name, in, out)
		}
	}

	res, page := scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"https://www.youtube.com/@gophertalks"}, "max_results": 2})
	cursor := ""
	if !res.IsError {
		cursor = pageCursor(t, res)
	}
	if res.IsError || len(page.Items) != 2 || page.Items[0]["id"] != "Chan_vid001" || page.Items[0]["channel_name"] != "Gopher Talks" || cursor == "" {
		t.Fatalf("first page: %s", scrapertest.Text(res))
	}
	res, page = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"@gophertalks"}, "max_results": 2, "cursor": cursor})
	if res.IsError || len(page.Items) != 2 || page.Items[0]["id"] != "Chan_vid003" || page.Items[1]["id"] != "Chan_vid004" || page.Items[1]["position"] != 4.0 {
		t.Fatalf("second page: %s", scrapertest.Text(res))
	}
	third := pageCursor(t, res)
	res, page = scrapertest.CallTool(t, cs, "scrape", map[string]any{"urls": []string{"@gophertalks"}, "max_results": 2, "cursor": third})
	if res.IsError || len(page.Items) != 1 || page.Items[0]["id"] != "Chan_vid005" || pageCursor(t, res) != "" {
		t.Errorf("last page: %s", scrapertest.Text(res))
	}
	scrapertest.WantToolError(t, cs, "scrape", map[string]any{"search_queries": []string{"gopher parser"}, "cursor": cursor}, "cursor", "another listing")
}

// A video's comments in two calls through the host, the second going on
// from the first's cursor.
func TestEndToEndCommentsCursor(t *testing.T) {
	cs := e2eHost(t, 0)
	res, page := scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "max_comments": 1})
	if res.IsError || len(page.Items) != 1 || page.Items[0]["comment_id"] != "UgxOldShape1" {
		t.Fatalf("first: %s", scrapertest.Text(res))
	}
	cursor := pageCursor(t, res)
	res, page = scrapertest.CallTool(t, cs, "comments", map[string]any{"urls": []string{"https://youtu.be/Go_pher1234"}, "max_comments": 1, "cursor": cursor})
	if res.IsError || len(page.Items) != 1 || page.Items[0]["comment_id"] != "UgxOldShape2" || pageCursor(t, res) == "" {
		t.Fatalf("second: %s", scrapertest.Text(res))
	}
	scrapertest.WantToolError(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "sort_by": "newest", "cursor": cursor}, "cursor", "another listing")
}

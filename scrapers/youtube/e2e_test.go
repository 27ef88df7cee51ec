package youtube_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/all"
	"github.com/surfsense/pluginhost/scrapers/youtube"
)

// e2eSite is a small stand-in YouTube for the end-to-end tests (the package's
// own stand-in is internal, and hosttest imports this package through
// scrapers/all, so these tests live outside it).
func e2eSite(t *testing.T) *httptest.Server {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	watch, consent := read("watch-page.html"), read("consent-form.html")
	results, cont := read("results-page.html"), read("search-continuation.json")
	first, second := read("comments-renderer.json"), read("comments-entity.json")
	classic := read("timedtext-classic.xml")
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
	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{youtube.New},
		Env:     map[string]string{"YOUTUBE_BASE_URL": site.URL},
		Config: func(c *host.Config) {
			if deadline > 0 {
				c.CallDeadline = deadline
			}
		},
	})
	return h.Connect(t, "youtube", "test-license", nil)
}

type resultPage struct {
	Items          []map[string]any `json:"items"`
	Partial        bool             `json:"partial"`
	PartialReasons []string         `json:"partial_reasons"`
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, resultPage) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var page resultPage
	if !res.IsError {
		if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
			t.Fatalf("%v: %s", err, text(res))
		}
	}
	return res, page
}

func TestEndToEndScrape(t *testing.T) {
	cs := e2eHost(t, 0)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, tool := range tools.Tools {
		titles[tool.Name] = tool.Title
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint {
			t.Errorf("%s annotations %+v", tool.Name, a)
		}
	}
	if titles["scrape"] != "Scrape YouTube" || titles["comments"] != "YouTube comments" {
		t.Errorf("tools = %v", titles)
	}

	res, page := call(t, cs, "scrape", map[string]any{
		"urls":               []string{"https://youtu.be/Go_pher1234"},
		"search_queries":     []string{"gopher parser"},
		"max_results":        4,
		"download_subtitles": false,
	})
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	if len(page.Items) != 5 || page.Partial || page.Items[0]["title"] != "Gophers build a parser {part 1}" ||
		page.Items[1]["search_query"] != "gopher parser" || page.Items[4]["id"] != "Res_page2_4" {
		t.Errorf("result: %s", text(res))
	}

	res, page = call(t, cs, "scrape", map[string]any{"urls": []string{"Go_pher1234"}, "download_subtitles": true})
	if res.IsError || len(page.Items) != 1 {
		t.Fatalf("subtitles call: %s", text(res))
	}
	if subs, _ := page.Items[0]["subtitles"].(map[string]any); subs == nil || subs["language"] != "en" {
		t.Errorf("subtitles = %v (%v)", page.Items[0]["subtitles"], page.Items[0]["subtitles_error"])
	}

	res, _ = call(t, cs, "scrape", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=Consent0001"}})
	if !res.IsError || !strings.Contains(text(res), "YouTube") || !strings.Contains(text(res), "consent wall") {
		t.Errorf("consent page: error %v, %q", res.IsError, text(res))
	}

	res, _ = call(t, cs, "scrape", map[string]any{"search_queries": []string{"x"}, "max_results": 500})
	if !res.IsError || !strings.Contains(text(res), "max_results") {
		t.Errorf("bad max_results: error %v, %q", res.IsError, text(res))
	}
}

func TestEndToEndComments(t *testing.T) {
	cs := e2eHost(t, 2*time.Second)
	res, page := call(t, cs, "comments", map[string]any{"urls": []string{"https://www.youtube.com/watch?v=Go_pher1234"}, "max_comments": 2})
	if res.IsError || len(page.Items) != 2 || page.Partial || page.Items[0]["comment_id"] != "UgxOldShape1" || page.Items[0]["author"] != "@alice" {
		t.Fatalf("comments: %s", text(res))
	}
	// Page 2 is slow: at the deadline the first page's comments come back,
	// marked partial.
	res, page = call(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "max_comments": 10})
	if res.IsError || len(page.Items) != 2 || !page.Partial {
		t.Errorf("deadline: error %v, %s", res.IsError, text(res))
	}
	res, _ = call(t, cs, "comments", map[string]any{"urls": []string{"Go_pher1234"}, "sort_by": "oldest"})
	if !res.IsError || !strings.Contains(text(res), "sort_by") {
		t.Errorf("bad sort_by: %q", text(res))
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

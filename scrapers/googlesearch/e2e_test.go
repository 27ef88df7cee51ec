package googlesearch_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/googlesearch"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// TestEndToEnd calls the search tool through a real host (license, MCP over
// HTTP, the official client) with Google and SearXNG replaced by stand-ins.
func TestEndToEnd(t *testing.T) {
	google := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		switch {
		case strings.HasPrefix(r.URL.Path, "/sorry/"):
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `<html><body><form id="captcha-form" action="index"></form></body></html>`)
		case q == "blocked" || q == "fallback":
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
		default:
			fmt.Fprintf(w, `<html><body><div id="search"><div id="result-stats">About 2 results</div><div id="rso">
<div class="g"><a href="https://example.com/one"><h3>One about %[1]s</h3><cite>example.com</cite></a><div class="VwiC3b">First result.</div></div>
<div class="g"><a href="/url?q=https://example.org/two&amp;sa=U"><h3>Two about %[1]s</h3></a><div class="VwiC3b">Second result.</div></div>
</div></div></body></html>`, q)
		}
	}))
	defer google.Close()
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"query":%q,"results":[{"url":"https://searx.example/r","title":"From SearXNG","content":"c"}],"suggestions":[],"unresponsive_engines":[]}`, r.URL.Query().Get("q"))
	}))
	defer searx.Close()

	connect := func(env map[string]string) *mcp.ClientSession {
		return hosttest.ConnectPlugin(t, "google-search", googlesearch.New, env, nil)
	}
	cs := connect(map[string]string{"GOOGLE_SEARCH_BASE_URL": google.URL})

	if titles := scrapertest.ToolTitles(t, cs); titles["search"] != "Search Google" {
		t.Fatalf("no search tool titled Search Google among %v", titles)
	}

	call := func(cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, scrapertest.Page, string) {
		t.Helper()
		res, page := scrapertest.CallTool(t, cs, "search", args)
		return res, page, scrapertest.Text(res)
	}

	res, page, body := call(cs, map[string]any{"queries": []string{"golang"}})
	if res.IsError {
		t.Fatalf("tool error: %s", body)
	}
	if len(page.Items) != 1 || page.Partial || page.ResultsProvider != "google" {
		t.Fatalf("result: %s", body)
	}
	organic, _ := page.Items[0]["organic_results"].([]any)
	if len(organic) != 2 || page.Items[0]["results_provider"] != "google" || !strings.HasPrefix(page.Items[0]["url"].(string), "https://www.google.com/search?") {
		t.Fatalf("item: %v", page.Items[0])
	}
	if second, _ := organic[1].(map[string]any); second["url"] != "https://example.org/two" {
		t.Errorf("a /url?q= link was not unwrapped: %v", second)
	}

	res, _, body = call(cs, map[string]any{"queries": []string{"blocked"}})
	if !res.IsError || !strings.Contains(body, "Google") || !strings.Contains(body, "captcha") {
		t.Errorf("blocked call: error %v, %q", res.IsError, body)
	}

	res, _, body = call(cs, map[string]any{"queries": []string{"x"}, "max_pages_per_query": 11})
	if !res.IsError || !strings.Contains(body, "max_pages_per_query") {
		t.Errorf("bad argument: error %v, %q", res.IsError, body)
	}

	withFallback := connect(map[string]string{"GOOGLE_SEARCH_BASE_URL": google.URL, "SEARXNG_URL": searx.URL})
	res, page, body = call(withFallback, map[string]any{"queries": []string{"fallback"}})
	if res.IsError {
		t.Fatalf("fallback: %s", body)
	}
	if len(page.Items) != 1 || page.ResultsProvider != "searxng" || page.Items[0]["results_provider"] != "searxng" {
		t.Fatalf("fallback result: %s", body)
	}
}

package googlemaps_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/all"
	"github.com/surfsense/pluginhost/scrapers/googlemaps"
)

// TestEndToEnd calls both tools through a real host (license, MCP over HTTP,
// the official client) with Google Maps replaced by a local stand-in.
func TestEndToEnd(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	placePage, sorry := read("place-page.html"), read("sorry.html")
	// One listugcposts page: a review with an owner's reply, no next page.
	review := `[["rev-1",[null,null,1700000000000000,null,[null,null,["https://www.google.com/maps/contrib/9"],null,null,["Ada","https://photo.example.test/a",null,"9"]],null,"a year ago"],` +
		`[[5],null,null,null,null,null,null,null,null,null,null,null,null,null,["en"],[["Best rye in town."]]],` +
		`[null,1700000100000000,null,"a year ago",null,null,null,null,null,null,null,null,null,["en"],[["Thank you, Ada!"]]]]]`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/maps/place/" && r.URL.Query().Get("q") == "place_id:ChIJtestTestTest0123456789":
			w.Write(placePage)
		case r.URL.Path == "/maps/rpc/listugcposts" && strings.Contains(r.URL.Query().Get("pb"), "!1s0x48761b3333333333:0x1234abcd5678ef90!"):
			w.Write([]byte(")]}'\n[null,null,[" + review + "]]"))
		case r.URL.Path == "/search":
			http.Redirect(w, r, "/sorry/index?continue=x", http.StatusFound)
		case r.URL.Path == "/sorry/index":
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(sorry)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	h := hosttest.Start(t, hosttest.Options{
		Plugins: []all.Constructor{googlemaps.New},
		Env:     map[string]string{"GOOGLE_MAPS_BASE_URL": site.URL},
	})
	cs := h.Connect(t, "google-maps", "test-license", nil)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, tool := range tools.Tools {
		titles[tool.Name] = tool.Title
		if tool.Name != "get_result" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("%s annotations %+v", tool.Name, tool.Annotations)
		}
	}
	if titles["scrape"] != "Scrape Google Maps" || titles["reviews"] != "Google Maps reviews" {
		t.Fatalf("tools = %v", titles)
	}

	call := func(name string, args map[string]any) (*mcp.CallToolResult, []map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Items []map[string]any `json:"items"`
		}
		if !res.IsError {
			if err := json.Unmarshal([]byte(text(res)), &page); err != nil {
				t.Fatalf("%v: %s", err, text(res))
			}
		}
		return res, page.Items
	}

	res, items := call("scrape", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}})
	if res.IsError || len(items) != 1 || items[0]["title"] != "Harbour Bakery" || items[0]["rating"] != 4.6 {
		t.Fatalf("scrape: %s", text(res))
	}
	res, items = call("reviews", map[string]any{"place_ids": []string{"ChIJtestTestTest0123456789"}, "sort_by": "newest"})
	if res.IsError || len(items) != 1 || items[0]["text"] != "Best rye in town." || items[0]["place_title"] != "Harbour Bakery" {
		t.Fatalf("reviews: %s", text(res))
	}
	if reply, _ := items[0]["owner_reply"].(map[string]any); reply["text"] != "Thank you, Ada!" {
		t.Errorf("reply = %v", items[0]["owner_reply"])
	}
	res, _ = call("scrape", map[string]any{"search_queries": []string{"bakery in Portside"}})
	if !res.IsError || !strings.Contains(text(res), "Google Maps") || !strings.Contains(text(res), "captcha") {
		t.Errorf("blocked search: error %v, %q", res.IsError, text(res))
	}
	res, _ = call("reviews", map[string]any{"urls": []string{"https://www.google.com/maps/place/x"}, "sort_by": "oldest"})
	if !res.IsError || !strings.Contains(text(res), "sort_by") {
		t.Errorf("bad sort_by: error %v, %q", res.IsError, text(res))
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

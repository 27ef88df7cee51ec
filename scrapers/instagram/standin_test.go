package instagram_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/instagram"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// standIn is a local Instagram: the web profile endpoint (which, as
// Instagram's, answers only requests carrying the web client's X-IG-App-ID),
// post and reel pages embedding their JSON, and each kind of block.
type standIn struct {
	t   testing.TB
	log scrapertest.RequestLog
}

func testdata(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Errorf("testdata: %v", err)
	}
	return b
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	jsonAnswer := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
	switch p := r.URL.Path; {
	case p == "/api/v1/users/web_profile_info/":
		if r.Header.Get("X-IG-App-ID") != "936619743392459" {
			jsonAnswer(http.StatusBadRequest, `{"message":"useragent mismatch","status":"fail"}`)
			return
		}
		switch r.URL.Query().Get("username") {
		case "crumbandco":
			jsonAnswer(http.StatusOK, string(testdata(s.t, "web_profile_info.json")))
		case "hidden_baker":
			jsonAnswer(http.StatusOK, `{"data":{"user":{"id":"9","username":"hidden_baker","full_name":"Hidden","is_private":true,"edge_followed_by":{"count":10},"edge_follow":{"count":2},"edge_owner_to_timeline_media":{"count":40,"page_info":{"has_next_page":true},"edges":[]}}},"status":"ok"}`)
		case "walled":
			jsonAnswer(http.StatusUnauthorized, `{"message":"Please wait a few minutes before you try again.","require_login":true,"status":"fail"}`)
		case "busy":
			jsonAnswer(http.StatusTooManyRequests, `{"message":"Please wait a few minutes before you try again.","status":"fail"}`)
		case "checkpoint":
			jsonAnswer(http.StatusBadRequest, `{"message":"checkpoint_required","checkpoint_url":"https://www.instagram.com/challenge/?next=/api/v1/users/","lock":true,"flow_render_type":0,"status":"fail"}`)
		default:
			jsonAnswer(http.StatusNotFound, `{"data":{"user":null},"status":"ok"}`)
		}
	case p == "/p/DAaaaaaaaa1/":
		w.Write(testdata(s.t, "post.html"))
	case p == "/reel/DAaaaaaaaa2/":
		w.Write(testdata(s.t, "reel.html"))
	case p == "/p/DAaaaaaaaa9/":
		w.Write(testdata(s.t, "post-graphql.html"))
	case p == "/p/DLoginWall1/":
		http.Redirect(w, r, "/accounts/login/?next=%2Fp%2FDLoginWall1%2F", http.StatusFound)
	case p == "/accounts/login/" || p == "/p/DLoginPage1/":
		w.Write(testdata(s.t, "login.html"))
	case p == "/p/DNothing01/":
		w.Write([]byte(`<!DOCTYPE html><html><head><title>Instagram</title></head><body><script type="application/json">{"require":[]}</script></body></html>`))
	default:
		http.NotFound(w, r)
	}
}

func connect(t *testing.T, s *standIn) *mcp.ClientSession {
	t.Helper()
	s.t = t
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return hosttest.ConnectPlugin(t, instagram.ID, instagram.New, map[string]string{"INSTAGRAM_BASE_URL": srv.URL},
		func(c *host.Config) { c.UnlistedPlugins = []string{instagram.ID} })
}

func text(res *mcp.CallToolResult) string { return scrapertest.Text(res) }

func list(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, len(l))
	for i, x := range l {
		out[i], _ = x.(map[string]any)
	}
	return out
}

func has(s, sub string) bool { return strings.Contains(s, sub) }

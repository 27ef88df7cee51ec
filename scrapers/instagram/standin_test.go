package instagram_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
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
// post and reel pages embedding their JSON, logged-out profile pages, the
// GraphQL queries that page a profile's posts and a post's comments, and
// each kind of block.
type standIn struct {
	t   testing.TB
	log scrapertest.RequestLog
	// timeline is how many posts crumbandco and ryeandshine have;
	// comments how many comments post DAaaaaaaaa1 has.
	timeline, comments int
	// oddPages answers every timeline page with one post more than asked.
	oddPages bool
	// timelineShell answers the timeline query with the web app's error
	// page, as Instagram does a reader it will not answer.
	timelineShell bool
}

// The ids the stand-in's accounts and post have.
const (
	crumbID   = "5512340001"
	ryeID     = "7700000001"
	lockedID  = "7700000002"
	postPK    = "3400000000000000001"
	pageLSD   = "AVrL5dtTest"
	crumbPage = "QVFEeXh0" // web_profile_info's end_cursor: after the first 3 posts
)

// graphCursor is the stand-in's end_cursor after n items: opaque, as
// Instagram's.
func graphCursor(n int) string {
	if n == 3 {
		return crumbPage
	}
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("QVFH:%d", n)))
}

func graphOffset(c string) (int, bool) {
	if c == "" {
		return 0, true
	}
	if c == crumbPage {
		return 3, true
	}
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "QVFH:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "QVFH:"))
	return n, err == nil
}

// timelineNode is post i (0 newest) of a profile, as the timeline query
// answers it; the first three of crumbandco's are those of
// web_profile_info.json.
func timelineNode(i int, owner, ownerID string) map[string]any {
	code := fmt.Sprintf("DT%09d", i)
	if owner == "crumbandco" && i < 3 {
		code = fmt.Sprintf("DAaaaaaaaa%d", i+1)
	}
	return map[string]any{"node": map[string]any{"__typename": "GraphImage", "id": fmt.Sprint(3300000000000000000 + i), "shortcode": code,
		"dimensions": map[string]any{"height": 1350, "width": 1080}, "display_url": "https://scontent.cdninstagram.com/v/t51/" + code + ".jpg",
		"owner": map[string]any{"id": ownerID, "username": owner}, "is_video": false, "taken_at_timestamp": 1748772000 - 86400*i,
		"edge_media_to_caption": map[string]any{"edges": []any{map[string]any{"node": map[string]any{"text": fmt.Sprintf("Bake %d #bread", i)}}}},
		"edge_media_to_comment": map[string]any{"count": i}, "edge_liked_by": map[string]any{"count": 100 + i}}}
}

// commentNode is comment i of post DAaaaaaaaa1; the first three are those
// its page embeds.
func commentNode(i int) map[string]any {
	return map[string]any{"node": map[string]any{"pk": fmt.Sprint(18000000000000001 + i), "text": fmt.Sprintf("comment %d", i), "created_at": 1748773000 + 60*i,
		"child_comment_count": i % 3, "comment_like_count": 50 - i, "user": map[string]any{"pk": fmt.Sprint(100 + i), "username": fmt.Sprintf("fan_%d", i)}, "__typename": "XDTCommentDict"}}
}

// connection is a page of a listing of total items from the offset after,
// first of them, as GraphQL connections answer.
func connection(after string, first, total int, item func(int) map[string]any) (map[string]any, bool) {
	from, ok := graphOffset(after)
	if !ok || first < 1 || first > 50 {
		return nil, false
	}
	edges := []any{}
	for i := from; i < from+first && i < total; i++ {
		edges = append(edges, item(i))
	}
	end := from + len(edges)
	var cursor any
	if end < total {
		cursor = graphCursor(end)
	}
	return map[string]any{"count": total, "edges": edges, "page_info": map[string]any{"has_next_page": end < total, "end_cursor": cursor}}, true
}

func (s *standIn) graphql(w http.ResponseWriter, r *http.Request) {
	answer := func(status int, v any) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	if r.Header.Get("X-IG-App-ID") != "936619743392459" {
		answer(http.StatusBadRequest, map[string]any{"message": "useragent mismatch", "status": "fail"})
		return
	}
	q := r.URL.Query()
	if r.Method == http.MethodPost {
		if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
			answer(http.StatusBadRequest, map[string]any{"message": "bad form", "status": "fail"})
			return
		}
		q = r.PostForm
		if q.Get("lsd") != pageLSD || r.Header.Get("X-FB-LSD") != pageLSD {
			// Without the page's token the web app answers its shell.
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(testdata(s.t, "error-shell.html"))
			return
		}
	}
	var vars struct {
		ID      string `json:"id"`
		MediaID string `json:"media_id"`
		First   int    `json:"first"`
		After   string `json:"after"`
	}
	if json.Unmarshal([]byte(q.Get("variables")), &vars) != nil {
		answer(http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "variables are not JSON", "severity": "CRITICAL"}}, "data": nil})
		return
	}
	switch q.Get("doc_id") {
	case "7950326061742207":
		if s.timelineShell {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(testdata(s.t, "error-shell.html"))
			return
		}
		owner, total := map[string]string{crumbID: "crumbandco", ryeID: "ryeandshine"}[vars.ID], s.timeline
		if vars.ID == lockedID {
			answer(http.StatusUnauthorized, map[string]any{"message": "Please wait a few minutes before you try again.", "require_login": true, "status": "fail"})
			return
		}
		first := vars.First
		if s.oddPages {
			first++
		}
		c, ok := connection(vars.After, first, total, func(i int) map[string]any { return timelineNode(i, owner, vars.ID) })
		if owner == "" || !ok {
			answer(http.StatusOK, map[string]any{"data": map[string]any{"user": nil}, "status": "ok"})
			return
		}
		answer(http.StatusOK, map[string]any{"data": map[string]any{"user": map[string]any{"edge_owner_to_timeline_media": c}}, "status": "ok"})
	case "26864966453197043":
		if vars.MediaID != postPK || q.Get("fb_api_req_friendly_name") != "PolarisPostCommentsPaginationQuery" {
			answer(http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "media not found", "code": 1675004}}, "data": nil})
			return
		}
		// The page's first three are before the first cursor.
		after := vars.After
		if after == `{"server_cursor": "QVFDc2VydmVyX2N1cnNvcl8z", "is_server_cursor_inverse": true}` {
			after = graphCursor(3)
		}
		c, ok := connection(after, vars.First, s.comments, commentNode)
		if !ok {
			answer(http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "bad cursor"}}, "data": nil})
			return
		}
		answer(http.StatusOK, map[string]any{"data": map[string]any{"xdt_api__v1__media__media_id__comments__connection": c}, "extensions": map[string]any{"is_final": true}})
	default:
		answer(http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "PersistedQueryNotFound", "code": 1675002}}, "data": nil})
	}
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
	page := func(name string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(testdata(s.t, name))
	}
	switch p := r.URL.Path; {
	case p == "/graphql/query/":
		s.graphql(w, r)
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
		case "walled", "ryeandshine", "lockedout", "pageless":
			jsonAnswer(http.StatusUnauthorized, `{"message":"Please wait a few minutes before you try again.","require_login":true,"status":"fail"}`)
		case "shellshock":
			page("error-shell.html") // the app's shell, 200, where JSON was asked
		case "busy":
			jsonAnswer(http.StatusTooManyRequests, `{"message":"Please wait a few minutes before you try again.","status":"fail"}`)
		case "checkpoint":
			jsonAnswer(http.StatusBadRequest, `{"message":"checkpoint_required","checkpoint_url":"https://www.instagram.com/challenge/?next=/api/v1/users/","lock":true,"flow_render_type":0,"status":"fail"}`)
		default:
			jsonAnswer(http.StatusNotFound, `{"data":{"user":null},"status":"ok"}`)
		}
	case p == "/p/DAaaaaaaaa1/":
		page("post.html")
	case p == "/p/DNoLsdPost/":
		// The same post on a page without its LSD token: the pagination
		// query is answered with the web app's shell.
		b := strings.Replace(string(testdata(s.t, "post.html")), `["LSD",[],{"token":"AVrL5dtTest"},323],`, "", 1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b))
	case p == "/reel/DAaaaaaaaa2/":
		page("reel.html")
	case p == "/p/DAaaaaaaaa9/":
		page("post-graphql.html")
	case p == "/ryeandshine/":
		page("profile-page.html")
	case p == "/lockedout/":
		b := strings.NewReplacer("ryeandshine", "lockedout", ryeID, lockedID).Replace(string(testdata(s.t, "profile-page.html")))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b))
	case p == "/pageless/":
		http.Redirect(w, r, "/accounts/login/?next=%2Fpageless%2F", http.StatusFound)
	case p == "/p/DLoginWall1/":
		http.Redirect(w, r, "/accounts/login/?next=%2Fp%2FDLoginWall1%2F", http.StatusFound)
	case p == "/p/DCheckpnt1/":
		http.Redirect(w, r, "/challenge/?next=%2Fp%2FDCheckpnt1%2F", http.StatusFound)
	case p == "/challenge/":
		page("login.html")
	case p == "/p/DErrShell1/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.Write(testdata(s.t, "error-shell.html"))
	case p == "/accounts/login/" || p == "/p/DLoginPage1/":
		page("login.html")
	case p == "/p/DNothing01/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!DOCTYPE html><html><head><title>Instagram</title></head><body><script type="application/json">{"require":[]}</script></body></html>`))
	default:
		http.NotFound(w, r)
	}
}

func connect(t *testing.T, s *standIn) *mcp.ClientSession {
	t.Helper()
	s.t = t
	if s.timeline == 0 {
		s.timeline = 3
	}
	if s.comments == 0 {
		s.comments = 3
	}
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

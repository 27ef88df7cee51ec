package reddit_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers/reddit"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
)

// anonCookie is the cookie the stand-in's front page sets, as Reddit's
// sets loid for an anonymous visitor; its .json endpoints answer only
// requests that carry it, with raw_json=1, as Reddit's web client sends.
const anonCookie = "anon-0001"

// standIn is a local Reddit: its front page, .json listings, threads and
// about pages shaped as Reddit answers them, and each kind of block.
type standIn struct {
	t          testing.TB
	log        scrapertest.RequestLog
	frontLoads atomic.Int32
	listed     int // posts /r/many/ lists
	pageCap    int // most posts one page of /r/many/ holds (Reddit's own cap is 100)
}

func readTestdata(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Errorf("testdata: %v", err)
	}
	return b
}

// genPost is a listed post as Reddit lists it.
func genPost(sub string, n int, title string) map[string]any {
	id := "p" + strconv.FormatInt(int64(n), 36)
	return map[string]any{"kind": "t3", "data": map[string]any{
		"id": id, "name": "t3_" + id, "subreddit": sub, "title": title, "author": "user" + strconv.Itoa(n%9),
		"score": 1000 - n, "num_comments": n % 17, "created_utc": 1739300000.0 + float64(n), "is_self": true,
		"selftext": "body " + strconv.Itoa(n), "permalink": "/r/" + sub + "/comments/" + id + "/post_" + strconv.Itoa(n) + "/",
		"url": "https://www.reddit.com/r/" + sub + "/comments/" + id + "/post_" + strconv.Itoa(n) + "/", "over_18": false,
	}}
}

// page answers one page of a listing of total generated posts, honouring
// limit and after as Reddit does.
func page(w http.ResponseWriter, r *http.Request, sub string, total, pageCap int, title func(int) string) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 {
		limit = 25
	}
	limit = min(limit, 100, pageCap)
	start := 0
	if a := q.Get("after"); a != "" {
		n, _ := strconv.ParseInt(strings.TrimPrefix(a, "t3_p"), 36, 64)
		start = int(n) + 1
	}
	var children []any
	for i := start; i < start+limit && i < total; i++ {
		children = append(children, genPost(sub, i, title(i)))
	}
	var after any
	if start+limit < total {
		after = "t3_p" + strconv.FormatInt(int64(start+limit-1), 36)
	}
	json.NewEncoder(w).Encode(map[string]any{"kind": "Listing", "data": map[string]any{"after": after, "dist": len(children), "children": children, "before": nil}})
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	p := r.URL.Path
	if p == "/" {
		s.frontLoads.Add(1)
		http.SetCookie(w, &http.Cookie{Name: "loid", Value: anonCookie, Path: "/", Domain: "", MaxAge: 63072000, Secure: true})
		http.SetCookie(w, &http.Cookie{Name: "csv", Value: "2", Path: "/", MaxAge: 63072000})
		http.SetCookie(w, &http.Cookie{Name: "edgebucket", Value: "eb1", Path: "/"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(readTestdata(s.t, "front.html"))
		return
	}
	if strings.HasPrefix(p, "/r/walled/") {
		http.Redirect(w, r, "/login/?dest="+r.URL.Path, http.StatusFound)
		return
	}
	if strings.HasPrefix(p, "/login") {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!DOCTYPE html><html><head><title>Reddit - Log in</title></head><body><shreddit-app pagetype="login"></shreddit-app></body></html>`))
		return
	}
	if strings.HasPrefix(p, "/r/golang/comments/") && !strings.HasSuffix(p, ".json") {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(readTestdata(s.t, "front.html")) // the post's web page
		return
	}
	if strings.HasPrefix(p, "/r/golang/s/CmNt") {
		http.Redirect(w, r, "/r/golang/comments/1h0aaa1/go_124_released_whats_new/c0003/?context=0&share_id=y", http.StatusMovedPermanently)
		return
	}
	if strings.HasPrefix(p, "/r/golang/s/") {
		http.Redirect(w, r, "/r/golang/comments/1h0aaa1/go_124_released_whats_new/?share_id=x", http.StatusMovedPermanently)
		return
	}
	if strings.HasSuffix(p, ".json") {
		c, err := r.Cookie("loid")
		if err != nil || c.Value != anonCookie || r.URL.Query().Get("raw_json") != "1" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			w.Write(readTestdata(s.t, "blocked.html"))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	switch {
	case p == "/r/golang/hot.json" || p == "/r/golang/new.json":
		if r.URL.Query().Get("after") != "" {
			w.Write([]byte(`{"kind":"Listing","data":{"after":null,"dist":0,"children":[],"before":null}}`))
			return
		}
		w.Write(readTestdata(s.t, "listing.json"))
	case strings.HasPrefix(p, "/r/many/"):
		page(w, r, "many", s.listed, cmp.Or(s.pageCap, 100), func(i int) string { return "post " + strconv.Itoa(i) })
	case p == "/r/netblocked/hot.json":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		w.Write(readTestdata(s.t, "blocked.html"))
	case p == "/r/adults/hot.json":
		w.Header().Set("Content-Type", "text/html")
		w.Write(readTestdata(s.t, "interstitial.html"))
	case p == "/r/busy/hot.json":
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"message": "Too Many Requests", "error": 429}`))
	case p == "/r/secret/hot.json":
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"reason": "private", "message": "Forbidden", "error": 403}`))
	case p == "/comments/1h0aaa1.json" && r.URL.Query().Has("comment"):
		// A comment's permalink: its chain from the highest context level,
		// then its replies; a comment not under the post, an empty tree.
		q := r.URL.Query()
		ctx, _ := strconv.Atoi(q.Get("context"))
		switch {
		case q.Get("comment") == "c0003" && ctx >= 2:
			w.Write(readTestdata(s.t, "comment-context.json"))
		case q.Get("comment") == "c0003":
			w.Write(readTestdata(s.t, "comment-alone.json"))
		default:
			var parts []json.RawMessage
			json.Unmarshal(readTestdata(s.t, "thread.json"), &parts)
			fmt.Fprintf(w, `[%s,{"kind":"Listing","data":{"after":null,"dist":null,"modhash":"","geo_filter":"","children":[],"before":null}}]`, parts[0])
		}
	case p == "/comments/1h0aaa1.json":
		w.Write(readTestdata(s.t, "thread.json"))
	case strings.HasPrefix(p, "/comments/p"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "/comments/"), ".json")
		fmt.Fprintf(w, `[{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":%q,"title":"post","permalink":"/r/many/comments/%s/post/","is_self":true,"num_comments":1}}]}},`+
			`{"kind":"Listing","data":{"children":[{"kind":"t1","data":{"id":"k%s","body":"first!","author":"x","replies":"","permalink":"/r/many/comments/%s/post/k%s/"}}]}}]`, id, id, id, id, id)
	case p == "/user/gopher_anna/about.json":
		w.Write(readTestdata(s.t, "about.json"))
	case p == "/user/gopher_anna/submitted.json":
		page(w, r, "golang", 3, 100, func(i int) string { return "anna's post " + strconv.Itoa(i) })
	case p == "/search.json" || p == "/r/golang/search.json":
		q := r.URL.Query().Get("q")
		page(w, r, "golang", 5, 100, func(i int) string { return q + " result " + strconv.Itoa(i) })
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message": "Not Found", "error": 404}`))
	}
}

// connect starts s and a host mounting reddit (named in UNLISTED_PLUGINS)
// against it, and returns a session to its MCP server.
func connect(t *testing.T, s *standIn) *mcp.ClientSession {
	t.Helper()
	s.t = t
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return hosttest.ConnectPlugin(t, reddit.ID, reddit.New, map[string]string{"REDDIT_BASE_URL": srv.URL},
		func(c *host.Config) { c.UnlistedPlugins = []string{reddit.ID} })
}

// call calls scrape with args and returns the result and its items.
func call(t *testing.T, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, scrapertest.Page) {
	t.Helper()
	return scrapertest.CallTool(t, cs, "scrape", args)
}

func textOf(res *mcp.CallToolResult) string { return scrapertest.Text(res) }

func ofType(items []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		if it["type"] == typ {
			out = append(out, it)
		}
	}
	return out
}

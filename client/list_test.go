package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolNames(ts []*mcp.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestListToolsBasic(t *testing.T) {
	s := newStandIn(t, standInOptions{}, readOnlyTool("search", "Searches."), readOnlyTool("crawl", "Crawls."))
	var sl sleepRecorder
	l := &Lister{Sleep: sl.sleep}
	tools, err := l.ListTools(context.Background(), s.URL(), http.Header{"Authorization": {"Bearer tok"}})
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(tools)
	slices.Sort(got)
	if !slices.Equal(got, []string{"crawl", "search"}) {
		t.Fatalf("tools = %v", got)
	}
	if w := sl.waits(); len(w) != 0 {
		t.Errorf("waited %v on a healthy server", w)
	}
	var methods []string
	for _, r := range s.seen() {
		if r.Method == http.MethodPost {
			methods = append(methods, rpcMethod(r.Body))
			if got := r.Header.Get("Authorization"); got != "Bearer tok" {
				t.Errorf("%s carried Authorization %q", rpcMethod(r.Body), got)
			}
		}
	}
	if !slices.Contains(methods, "initialize") || !slices.Contains(methods, "tools/list") {
		t.Errorf("methods = %v", methods)
	}
	for _, m := range methods {
		if m == "tools/call" {
			t.Errorf("a listing called a tool")
		}
	}
}

func TestListToolsEachListingItsOwnConnection(t *testing.T) {
	s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	l := &Lister{}
	for range 2 {
		if _, err := l.ListTools(context.Background(), s.URL(), nil); err != nil {
			t.Fatal(err)
		}
	}
	inits, deletes := 0, 0
	for _, r := range s.seen() {
		if rpcMethod(r.Body) == "initialize" {
			inits++
		}
		if r.Method == http.MethodDelete {
			deletes++
		}
	}
	if inits != 2 || deletes != 2 {
		t.Errorf("initialize %d times and DELETE %d times for two listings, want 2 and 2 (each opens and closes its own session)", inits, deletes)
	}
}

func TestListToolsPages(t *testing.T) {
	var tools []*mcp.Tool
	for i := range 7 {
		tools = append(tools, readOnlyTool(fmt.Sprintf("t%d", i), "T."))
	}
	s := newStandIn(t, standInOptions{pageSize: 2}, tools...)
	got, err := (&Lister{}).ListTools(context.Background(), s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 {
		t.Fatalf("got %d tools, want 7: %v", len(got), toolNames(got))
	}
	lists := 0
	for _, r := range s.seen() {
		if rpcMethod(r.Body) == "tools/list" {
			lists++
		}
	}
	if lists != 4 {
		t.Errorf("tools/list asked %d times, want 4 pages of 2", lists)
	}
}

func TestListToolsRetries(t *testing.T) {
	cases := []struct {
		name      string
		status    int // refused this many times then served
		failures  int
		wantErr   bool
		wantWaits []time.Duration
		wantPosts int // tools/list + initialize attempts counted as initialize requests
	}{
		{"503 once then ok", 503, 1, false, []time.Duration{200 * time.Millisecond}, 2},
		{"429 twice then ok", 429, 2, false, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, 3},
		{"408 twice then ok", 408, 2, false, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, 3},
		{"500 three times fails", 500, 3, true, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, 3},
		{"502 always fails after two retries", 502, 100, true, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, 3},
		{"401 is not retried", 401, 100, true, nil, 1},
		{"403 is not retried", 403, 100, true, nil, 1},
		{"404 without a session is not retried", 404, 100, true, nil, 1},
		{"400 is not retried", 400, 100, true, nil, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
			inits := 0
			s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
				if r.Method != http.MethodPost || rpcMethod(seenBody(r)) != "initialize" {
					return false
				}
				inits++
				if inits <= tc.failures {
					refuse(w, tc.status, "")
					return true
				}
				return false
			})
			var sl sleepRecorder
			_, err := (&Lister{Sleep: sl.sleep}).ListTools(context.Background(), s.URL(), nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !slices.Equal(sl.waits(), tc.wantWaits) {
				t.Errorf("waits = %v, want %v", sl.waits(), tc.wantWaits)
			}
			if inits != tc.wantPosts {
				t.Errorf("initialize sent %d times, want %d", inits, tc.wantPosts)
			}
			if tc.wantErr {
				var ref *RefusalError
				if !errors.As(err, &ref) || ref.StatusCode != tc.status {
					t.Errorf("err = %#v, want a RefusalError with status %d", err, tc.status)
				}
			}
		})
	}
}

// seenBody re-reads a request body the stand-in kept.
func seenBody(r *http.Request) string {
	b := make([]byte, 0, 512)
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	r.Body = readCloser(b)
	return string(b)
}

func TestListToolsRefusalKeepsStatusAndReason(t *testing.T) {
	cases := []struct {
		status int
		reason string
	}{
		{401, "missing_license"},
		{403, "expired"},
		{403, "revoked"},
		{403, "invalid"},
		{401, ""},
		{403, "some_other_reason"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d_%s", tc.status, tc.reason), func(t *testing.T) {
			s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
			s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
				if r.Method == http.MethodPost {
					w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
					refuse(w, tc.status, tc.reason)
					return true
				}
				return false
			})
			_, err := (&Lister{}).ListTools(context.Background(), s.URL(), nil)
			var ref *RefusalError
			if !errors.As(err, &ref) {
				t.Fatalf("err = %v (%T), want *RefusalError", err, err)
			}
			if ref.StatusCode != tc.status || ref.Reason != tc.reason || ref.URL != s.URL() {
				t.Errorf("refusal = %+v", ref)
			}
			if tc.reason != "" && ref.Message != "stand-in says "+tc.reason {
				t.Errorf("message = %q", ref.Message)
			}
			if len(ref.WWWAuthenticate) != 1 {
				t.Errorf("WWW-Authenticate = %q", ref.WWWAuthenticate)
			}
		})
	}
}

func TestListToolsServerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there now
	var sl sleepRecorder
	_, err = (&Lister{Sleep: sl.sleep}).ListTools(context.Background(), url, nil)
	var un *UnreachableError
	if !errors.As(err, &un) || !un.Network {
		t.Fatalf("err = %v, want a network UnreachableError", err)
	}
	if want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}; !slices.Equal(sl.waits(), want) {
		t.Errorf("waits = %v, want %v", sl.waits(), want)
	}
}

func TestListToolsServerGoesDownMidListing(t *testing.T) {
	s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if rpcMethod(seenBody(r)) == "tools/list" {
			// Cut the connection without an answer.
			hj, _ := w.(http.Hijacker)
			c, _, _ := hj.Hijack()
			c.Close()
			return true
		}
		return false
	})
	var sl sleepRecorder
	_, err := (&Lister{Sleep: sl.sleep}).ListTools(context.Background(), s.URL(), nil)
	var un *UnreachableError
	if !errors.As(err, &un) || !un.Network {
		t.Fatalf("err = %v, want a network UnreachableError", err)
	}
	if len(sl.waits()) != 2 {
		t.Errorf("waits = %v, want two retries", sl.waits())
	}
}

func TestListToolsForgottenSession(t *testing.T) {
	cases := []struct {
		name    string
		forget  int // how many listings' tools/list get 404 on their session
		wantErr bool
		inits   int
	}{
		{"forgotten once, listed again on a new session", 1, false, 2},
		{"forgotten twice fails", 2, true, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
			forgot := 0
			s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
				if rpcMethod(seenBody(r)) == "tools/list" && r.Header.Get("Mcp-Session-Id") != "" && forgot < tc.forget {
					forgot++
					http.Error(w, "session not found", http.StatusNotFound)
					return true
				}
				return false
			})
			var sl sleepRecorder
			tools, err := (&Lister{Sleep: sl.sleep}).ListTools(context.Background(), s.URL(), nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tc.wantErr && len(tools) != 1 {
				t.Errorf("tools = %v", toolNames(tools))
			}
			inits := 0
			var sessions []string
			for _, r := range s.seen() {
				if rpcMethod(r.Body) == "initialize" {
					inits++
				}
				if rpcMethod(r.Body) == "tools/list" {
					sessions = append(sessions, r.Header.Get("Mcp-Session-Id"))
				}
			}
			if inits != tc.inits {
				t.Errorf("initialize %d times, want %d", inits, tc.inits)
			}
			if len(sessions) == 2 && sessions[0] == sessions[1] {
				t.Errorf("listed again on the same session %q", sessions[0])
			}
			if len(sl.waits()) != 0 {
				t.Errorf("a forgotten session waited %v; it is listed once more at once", sl.waits())
			}
		})
	}
}

func TestListToolsNotMCP(t *testing.T) {
	srv := http.Server{}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>hello</html>"))
	})
	go srv.Serve(ln)
	defer srv.Close()
	var sl sleepRecorder
	_, err := (&Lister{Sleep: sl.sleep}).ListTools(context.Background(), "http://"+ln.Addr().String()+"/", nil)
	var un *UnreachableError
	if !errors.As(err, &un) || un.Network {
		t.Fatalf("err = %v, want a non-network UnreachableError", err)
	}
	if len(sl.waits()) != 0 {
		t.Errorf("an answer that is not MCP was retried: %v", sl.waits())
	}
}

func TestListToolsCancelled(t *testing.T) {
	s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		refuse(w, 503, "")
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	l := &Lister{Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}
	_, err := l.ListTools(ctx, s.URL(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestListToolsRedirectElsewhereGetsNoCredential: a server that redirects
// the listing to another origin; the credential stays with the server's own.
func TestListToolsRedirectElsewhereGetsNoCredential(t *testing.T) {
	other := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	s := newStandIn(t, standInOptions{}, readOnlyTool("a", "A."))
	s.setIntercept(func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Redirect(w, r, other.URL(), http.StatusTemporaryRedirect)
		return true
	})
	_, err := (&Lister{}).ListTools(context.Background(), s.URL(), http.Header{"Authorization": {"Bearer secret"}, "X-Surfsense-Text-Only": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(other.seen()) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, r := range other.seen() {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Surfsense-Text-Only") != "" {
			t.Errorf("another origin got %v", r.Header)
		}
	}
	for _, r := range s.seen() {
		if r.Header.Get("Authorization") != "Bearer secret" {
			t.Errorf("the server's own origin got Authorization %q", r.Header.Get("Authorization"))
		}
	}
}

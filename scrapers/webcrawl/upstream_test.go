package webcrawl

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/surfsense/pluginhost/scrapers"
)

// TestCrawlReportsUpstreamAttempts: every request web-crawl's own transport
// makes is reported through Env.Upstream, each redirect hop as one attempt,
// with its status, bytes and outcome; a page cut at the size cap is too_large.
func TestCrawlReportsUpstreamAttempts(t *testing.T) {
	big := strings.Repeat("x", 4096)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/page?secret=1", http.StatusFound)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body><p>A page long enough to be read as the main content of itself.</p></body></html>"))
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body><p>" + big + "</p></body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var mu sync.Mutex
	var got []scrapers.Upstream
	st := testSettings()
	st.MaxPageBytes = 1024
	st.Upstream = func(_ context.Context, u scrapers.Upstream) {
		mu.Lock()
		got = append(got, u)
		mu.Unlock()
	}
	if _, err, _ := run(t, st, map[string]any{"start_urls": []string{srv.URL + "/moved", srv.URL + "/big", srv.URL + "/gone"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	byPath := map[string]scrapers.Upstream{}
	for _, u := range got {
		if u.Site != ID || u.Method != http.MethodGet || u.Attempt != 1 || u.ProxyIndex != -1 || u.Host != strings.TrimPrefix(srv.URL, "http://") {
			t.Errorf("attempt %+v", u)
		}
		byPath[u.Path] = u
	}
	if len(got) != 4 {
		t.Fatalf("want 4 attempts (redirect, its target, big, 404), got %d: %+v", len(got), got)
	}
	checks := map[string]struct {
		status  int
		outcome string
	}{"/moved": {302, scrapers.OutcomeOK}, "/page": {200, scrapers.OutcomeOK}, "/big": {200, scrapers.OutcomeTooLarge}, "/gone": {404, scrapers.OutcomeClientError}}
	for path, want := range checks {
		u, ok := byPath[path]
		if !ok || u.Status != want.status || u.Outcome != want.outcome {
			t.Errorf("%s: %+v, want status %d outcome %s", path, u, want.status, want.outcome)
		}
	}
	if b := byPath["/page"].Bytes; b < 80 {
		t.Errorf("/page: %d bytes counted", b)
	}
	if strings.Contains(byPath["/page"].Path, "secret") {
		t.Error("the query reached the report")
	}
}

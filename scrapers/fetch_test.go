package scrapers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// testEnv is an Env reading vars, allowed to reach loopback stand-ins.
func testEnv(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, AllowPrivateNetworks: true}
}

// fastSite is a site whose retries do not make tests slow.
func fastSite() Site {
	return Site{ID: "test-site", Name: "TestSite", Origin: "https://www.example-site.com", Domains: []string{"example-site.com", "example-site.co.jp"}, BaseBackoff: time.Millisecond}
}

func newFetcher(t *testing.T, env Env, site Site) *Fetcher {
	t.Helper()
	f, err := NewFetcher(env, site)
	if err != nil {
		t.Fatalf("NewFetcher: %v", err)
	}
	t.Cleanup(f.CloseIdleConnections)
	return f
}

// countingServer answers with handle and counts the requests it sees.
func countingServer(t *testing.T, handle func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(int(count.Add(1)), w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &count
}

func TestFetchRetriesServerErrors(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n < 3 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	})
	f := newFetcher(t, testEnv(nil), fastSite())
	resp, err := f.Get(context.Background(), srv.URL+"/page")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if resp.StatusCode != 200 || string(resp.Body) != "ok" {
		t.Fatalf("got %d %q", resp.StatusCode, resp.Body)
	}
	if got := count.Load(); got != 3 {
		t.Fatalf("server saw %d requests, want 3", got)
	}
}

func TestFetchGivesUpAfterMaxAttempts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts int
		status   int
		want     int32
	}{
		{"default 3 on 500", 0, 500, 3},
		{"configured 5 on 502", 5, 502, 5},
		{"1 means no retry", 1, 503, 1},
		{"429 retried", 2, 429, 2},
		{"404 never retried", 0, 404, 1},
		{"501 never retried", 0, 501, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				io.WriteString(w, "body of the error page")
			})
			site := fastSite()
			site.MaxAttempts = tc.attempts
			f := newFetcher(t, testEnv(nil), site)
			resp, err := f.Get(context.Background(), srv.URL)
			var se *SiteError
			if !errors.As(err, &se) || se.Status != tc.status {
				t.Fatalf("err = %v, want a *SiteError with status %d", err, tc.status)
			}
			if resp == nil || string(resp.Body) != "body of the error page" {
				t.Fatalf("the error response was not returned: %+v", resp)
			}
			if got := count.Load(); got != tc.want {
				t.Fatalf("server saw %d requests, want %d", got, tc.want)
			}
		})
	}
}

func TestFetchRetriesNetworkErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close() // hang up before answering
		}
	}()
	f := newFetcher(t, testEnv(nil), fastSite())
	_, err = f.Get(context.Background(), "http://"+ln.Addr().String()+"/")
	var se *SiteError
	if !errors.As(err, &se) || se.Status != 0 || se.Err == nil {
		t.Fatalf("err = %v, want a *SiteError carrying the network error", err)
	}
	if got := accepted.Load(); got != 3 {
		t.Fatalf("%d connections, want 3 (one per attempt)", got)
	}
}

func TestFetchHonoursRetryAfter(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "ok")
	})
	f := newFetcher(t, testEnv(nil), fastSite())
	start := time.Now()
	resp, err := f.Get(context.Background(), srv.URL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("Get: %v %+v", err, resp)
	}
	if el := time.Since(start); el < 900*time.Millisecond {
		t.Fatalf("retried after %v; Retry-After asked for 1s", el)
	}
	if count.Load() != 2 {
		t.Fatalf("server saw %d requests, want 2", count.Load())
	}
}

func TestFetchRetryAfterOverCapIsNotWaited(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	site := fastSite()
	site.MaxRetryAfter = 2 * time.Second
	f := newFetcher(t, testEnv(nil), site)
	start := time.Now()
	_, err := f.Get(context.Background(), srv.URL)
	var se *SiteError
	if !errors.As(err, &se) || se.Status != 429 {
		t.Fatalf("err = %v, want HTTP 429", err)
	}
	if time.Since(start) > time.Second || count.Load() != 1 {
		t.Fatalf("waited %v and sent %d requests; a Retry-After over the cap must end at once", time.Since(start), count.Load())
	}
}

func TestFetchDoesNotWaitPastTheDeadline(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	f := newFetcher(t, testEnv(nil), fastSite())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := f.Get(ctx, srv.URL)
	var se *SiteError
	if !errors.As(err, &se) || se.Status != 503 {
		t.Fatalf("err = %v, want HTTP 503", err)
	}
	if time.Since(start) > 1500*time.Millisecond || count.Load() != 1 {
		t.Fatalf("took %v and %d requests; a wait past the deadline must not start", time.Since(start), count.Load())
	}
}

func TestBackoff(t *testing.T) {
	base := 100 * time.Millisecond
	for attempt, want := range map[int]time.Duration{1: base, 2: 2 * base, 3: 4 * base, 10: maxBackoff, 60: maxBackoff} {
		for range 50 {
			d := backoff(base, attempt)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%v, %d) = %v, want within [%v, %v]", base, attempt, d, want/2, want)
			}
		}
	}
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[backoff(time.Second, 1)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("backoff has no jitter: %d distinct values in 50", len(seen))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 12 ", 12 * time.Second, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"99999999999", 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		d, ok := parseRetryAfter(tt.v, now)
		if d != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, d, ok, tt.want, tt.ok)
		}
	}
}

func TestFetchSendsBrowserHeadersAndSiteCookies(t *testing.T) {
	var got http.Header
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
	})
	site := fastSite()
	site.Cookies = []*http.Cookie{{Name: "SOCS", Value: "CAI"}, {Name: "CONSENT", Value: "YES+"}}
	site.Header = http.Header{"Accept-Language": {"de-DE,de;q=0.9"}, "X-Site": {"1"}}
	f := newFetcher(t, testEnv(nil), site)
	if _, err := f.Do(context.Background(), &Request{URL: srv.URL, Header: http.Header{"x-request": {"2"}, "X-Site": {"override"}}}); err != nil {
		t.Fatal(err)
	}
	if ua := got.Get("User-Agent"); !strings.HasPrefix(ua, "Mozilla/5.0 (") || strings.Contains(ua, "colly") || strings.Contains(ua, "Go-http") {
		t.Errorf("User-Agent %q is not a browser's", ua)
	}
	for _, h := range []string{"Sec-Ch-Ua", "Sec-Ch-Ua-Platform", "Sec-Fetch-Mode", "Upgrade-Insecure-Requests"} {
		if got.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	if !strings.HasPrefix(got.Get("Accept"), "text/html") {
		t.Errorf("Accept = %q", got.Get("Accept"))
	}
	if got.Get("Sec-Ch-Ua-Mobile") != "?0" || got.Get("Sec-Fetch-Mode") != "navigate" {
		t.Errorf("not a desktop navigation: %v", got)
	}
	if got.Get("Accept-Language") != "de-DE,de;q=0.9" || got.Get("X-Site") != "override" || got.Get("X-Request") != "2" {
		t.Errorf("site and request headers not applied in order: %v", got)
	}
	if c := got.Get("Cookie"); !strings.Contains(c, "SOCS=CAI") || !strings.Contains(c, "CONSENT=YES+") {
		t.Errorf("Cookie = %q, want the site's consent cookies", c)
	}
	if ae := got.Get("Accept-Encoding"); ae != "gzip" {
		t.Errorf("Accept-Encoding = %q; the transport should ask for gzip and decode it", ae)
	}
}

func TestPostJSON(t *testing.T) {
	var method, ctype, mode string
	var body map[string]any
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		method, ctype, mode = r.Method, r.Header.Get("Content-Type"), r.Header.Get("Sec-Fetch-Mode")
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	f := newFetcher(t, testEnv(nil), fastSite())
	resp, err := f.PostJSON(context.Background(), srv.URL+"/api", map[string]any{"q": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ OK bool }
	if err := resp.JSON(&out); err != nil || !out.OK {
		t.Fatalf("JSON: %v %+v", err, out)
	}
	if method != "POST" || ctype != "application/json" || body["q"] != "x" || mode != "cors" {
		t.Fatalf("server saw %s %s %v mode %s", method, ctype, body, mode)
	}
	if _, err := f.PostJSON(context.Background(), srv.URL, func() {}); err == nil {
		t.Fatal("PostJSON of a func: no error")
	}
}

func TestRewriteAnySiteDomain(t *testing.T) {
	f := newFetcher(t, testEnv(map[string]string{"TEST_SITE_BASE_URL": "http://127.0.0.1:9999"}), fastSite())
	tests := []struct{ in, want string }{
		{"https://www.example-site.com/dp/B01?th=1&psc=1", "http://127.0.0.1:9999/dp/B01?th=1&psc=1"},
		{"https://example-site.co.jp/s?k=a+b#frag", "http://127.0.0.1:9999/s?k=a+b#frag"},
		{"http://smile.example-site.com/path/", "http://127.0.0.1:9999/path/"},
		{"/relative?x=1", "http://127.0.0.1:9999/relative?x=1"},
		{"https://other.example/x?y=1", "https://other.example/x?y=1"},
		{"https://notexample-site.com/", "https://notexample-site.com/"},
	}
	for _, tt := range tests {
		u, err := f.Rewrite(tt.in)
		if err != nil || u.String() != tt.want {
			t.Errorf("Rewrite(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	g := newFetcher(t, testEnv(nil), fastSite())
	if u, _ := g.Rewrite("/a?b=c"); u.String() != "https://www.example-site.com/a?b=c" {
		t.Errorf("without a base URL a relative URL resolves against the origin, got %v", u)
	}
	tld := fastSite()
	tld.Domains = []string{"example-site."}
	h := newFetcher(t, testEnv(map[string]string{"TEST_SITE_BASE_URL": "http://127.0.0.1:9999"}), tld)
	if u, _ := h.Rewrite("https://www.example-site.de/x"); u.Host != "127.0.0.1:9999" {
		t.Errorf("a TLD-wildcard domain was not rewritten: %v", u)
	}
}

func TestFetchGoesToBaseURLAndFollowsSiteRedirectsThere(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path == "/start" {
			// A redirect to the real site must come back to the stand-in.
			http.Redirect(w, r, "https://www.example-site.co.jp/next?x=1", http.StatusFound)
			return
		}
		io.WriteString(w, "landed")
	})
	f := newFetcher(t, testEnv(map[string]string{"TEST_SITE_BASE_URL": srv.URL}), fastSite())
	resp, err := f.Get(context.Background(), "https://www.example-site.com/start?q=a%20b&page=2")
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "landed" || resp.URL.Path != "/next" {
		t.Fatalf("got %q at %v", resp.Body, resp.URL)
	}
	if len(paths) != 2 || paths[0] != "/start?q=a%20b&page=2" || paths[1] != "/next?x=1" {
		t.Fatalf("stand-in saw %v", paths)
	}
}

func TestNewFetcherRefusesBadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		vars    map[string]string
		wantErr string
	}{
		{map[string]string{"TEST_SITE_BASE_URL": "ftp://x"}, "TEST_SITE_BASE_URL"},
		{map[string]string{"TEST_SITE_BASE_URL": "127.0.0.1:80"}, "TEST_SITE_BASE_URL"},
		{map[string]string{"PROXY_URLS": "http://ok:1,ftp://user:hunter2@proxy:21"}, "PROXY_URLS: entry 2"},
		{map[string]string{"TEST_SITE_PROXY_URLS": "://user:hunter2@bad"}, "TEST_SITE_PROXY_URLS: entry 1"},
	} {
		_, err := NewFetcher(testEnv(tc.vars), fastSite())
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("NewFetcher(%v) = %v, want an error naming %s", tc.vars, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows a proxy password: %v", err)
		}
	}
}

// forwardProxy is a tiny HTTP forward proxy: it takes absolute-form requests,
// counts them, checks credentials when user is set, and forwards them
// (routing names in route to real addresses).
type forwardProxy struct {
	*httptest.Server
	name  string
	uses  atomic.Int32
	user  string
	pass  string
	route map[string]string
}

func newForwardProxy(t *testing.T, name string) *forwardProxy {
	p := &forwardProxy{name: name, route: map[string]string{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "this is a proxy: send absolute-form requests", http.StatusBadRequest)
			return
		}
		p.uses.Add(1)
		if p.user != "" {
			u, pw, ok := (&http.Request{Header: http.Header{"Authorization": r.Header.Values("Proxy-Authorization")}}).BasicAuth()
			if !ok || u != p.user || pw != p.pass {
				http.Error(w, "proxy auth", http.StatusProxyAuthRequired)
				return
			}
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.Header.Del("Proxy-Authorization")
		if to, ok := p.route[out.URL.Host]; ok {
			out.URL.Host = to
		}
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.Header().Set("X-Via-Proxy", p.name)
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *forwardProxy) hostPort() string { return strings.TrimPrefix(p.URL, "http://") }

func TestFetchRotatesProxies(t *testing.T) {
	srv, direct := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	p1, p2 := newForwardProxy(t, "p1"), newForwardProxy(t, "p2")
	f := newFetcher(t, testEnv(map[string]string{"PROXY_URLS": p1.URL + " , " + p2.URL}), fastSite())
	var via []string
	for range 4 {
		resp, err := f.Get(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		via = append(via, resp.Header.Get("X-Via-Proxy"))
	}
	if p1.uses.Load() != 2 || p2.uses.Load() != 2 || direct.Load() != 4 {
		t.Fatalf("p1 %d, p2 %d, origin %d; want 2, 2, 4", p1.uses.Load(), p2.uses.Load(), direct.Load())
	}
	if via[0] == via[1] || via[0] != via[2] {
		t.Fatalf("not round robin: %v", via)
	}
}

func TestSiteProxyListWins(t *testing.T) {
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	global, own := newForwardProxy(t, "global"), newForwardProxy(t, "own")
	f := newFetcher(t, testEnv(map[string]string{"PROXY_URLS": global.URL, "TEST_SITE_PROXY_URLS": own.URL}), fastSite())
	for range 3 {
		if _, err := f.Get(context.Background(), srv.URL); err != nil {
			t.Fatal(err)
		}
	}
	if global.uses.Load() != 0 || own.uses.Load() != 3 {
		t.Fatalf("global %d, own %d; the site's list must win", global.uses.Load(), own.uses.Load())
	}
}

func TestProxyCredentialsUsedButNeverShown(t *testing.T) {
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway) // makes the fetcher log a retry
			return
		}
		io.WriteString(w, "page")
	})
	p := newForwardProxy(t, "auth")
	p.user, p.pass = "scraper", "s3cr3t-pw"
	var logs bytes.Buffer
	env := testEnv(map[string]string{"PROXY_URLS": "http://scraper:s3cr3t-pw@" + p.hostPort()})
	env.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFetcher(t, env, fastSite())
	resp, err := f.Get(context.Background(), srv.URL)
	if err != nil || string(resp.Body) != "page" {
		t.Fatalf("through an authenticated proxy: %v", err)
	}
	if !strings.Contains(logs.String(), "proxy=http://"+p.hostPort()) {
		t.Fatalf("the retry log does not name the proxy: %s", logs.String())
	}
	// A proxy that cannot be reached: the error must not show the password.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	g := newFetcher(t, Env{Getenv: func(k string) string {
		if k == "PROXY_URLS" {
			return "http://scraper:s3cr3t-pw@" + dead
		}
		return ""
	}, AllowPrivateNetworks: true, Logger: env.Logger}, fastSite())
	_, err = g.Get(context.Background(), srv.URL)
	if err == nil {
		t.Fatal("a dead proxy gave no error")
	}
	if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(logs.String(), "s3cr3t") {
		t.Fatalf("the proxy password leaked: err %q\nlogs %s", err, logs.String())
	}
}

func blockDetector(r *Response) *BlockedError {
	if bytes.Contains(r.Body, []byte("captcha-form")) {
		return &BlockedError{Kind: BlockCaptcha}
	}
	return nil
}

func TestFetchRetriesBlockThroughAnotherProxy(t *testing.T) {
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>results</html>")
	})
	blocked := newForwardProxy(t, "blocked")
	blocked.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		blocked.uses.Add(1)
		io.WriteString(w, `<form id="captcha-form">`)
	})
	good := newForwardProxy(t, "good")
	site := fastSite()
	site.DetectBlock = blockDetector

	f := newFetcher(t, testEnv(map[string]string{"PROXY_URLS": blocked.URL + "," + good.URL}), site)
	resp, err := f.Get(context.Background(), srv.URL)
	if err != nil || !strings.Contains(string(resp.Body), "results") {
		t.Fatalf("with a second proxy the block should be retried: %v", err)
	}
	if blocked.uses.Load() != 1 || good.uses.Load() != 1 {
		t.Fatalf("blocked %d, good %d; want 1 each", blocked.uses.Load(), good.uses.Load())
	}

	// One proxy only: the block is the answer.
	blocked.uses.Store(0)
	g := newFetcher(t, testEnv(map[string]string{"PROXY_URLS": blocked.URL}), site)
	resp, err = g.Get(context.Background(), srv.URL+"/search?q=x")
	var be *BlockedError
	if !errors.As(err, &be) || be.Kind != BlockCaptcha || be.Site != "TestSite" || be.URL != srv.URL+"/search?q=x" {
		t.Fatalf("err = %#v, want a captcha BlockedError naming TestSite and the URL", err)
	}
	if resp == nil || blocked.uses.Load() != 1 {
		t.Fatalf("resp %v, proxy used %d times; want the block page after 1 request", resp, blocked.uses.Load())
	}

	// Every proxy blocks: each exit is asked once, then held off (BlockHold),
	// so the third attempt is not sent and the block is the answer.
	var blockedOther atomic.Int32
	blocked.uses.Store(0)
	other := newForwardProxy(t, "other")
	other.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		blockedOther.Add(1)
		io.WriteString(w, `<form id="captcha-form">`)
	})
	env := testEnv(map[string]string{"PROXY_URLS": blocked.URL + "," + other.URL})
	env.BlockHold = BlockHold
	h := newFetcher(t, env, site)
	if _, err := h.Get(context.Background(), srv.URL); !errors.As(err, &be) {
		t.Fatalf("err = %v, want BlockedError", err)
	}
	if blocked.uses.Load() != 1 || blockedOther.Load() != 1 {
		t.Fatalf("blocked %d, other %d attempts; want 1 each (a blocked exit is held off)", blocked.uses.Load(), blockedOther.Load())
	}
	// The next request through a held exit is not sent: it says what the wait is.
	_, err = h.Get(context.Background(), srv.URL)
	var held *HeldError
	if !errors.As(err, &held) || held.Wait <= 0 || held.Wait > BlockHold || held.Reason != BlockCaptcha {
		t.Fatalf("err = %v, want a HeldError naming the captcha and the wait", err)
	}
	if blocked.uses.Load() != 1 || blockedOther.Load() != 1 {
		t.Fatalf("a held exit was asked: blocked %d, other %d", blocked.uses.Load(), blockedOther.Load())
	}
}

func TestFetchBlockWithoutProxies(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `<form id="captcha-form">`)
	})
	site := fastSite()
	site.DetectBlock = blockDetector
	f := newFetcher(t, testEnv(nil), site)
	_, err := f.Get(context.Background(), srv.URL)
	var be *BlockedError
	if !errors.As(err, &be) || be.Kind != BlockCaptcha {
		t.Fatalf("err = %v, want a captcha block", err)
	}
	if !strings.Contains(err.Error(), "TestSite") || !strings.Contains(err.Error(), "captcha") {
		t.Fatalf("the error does not name the site and kind: %v", err)
	}
	if count.Load() != 1 {
		t.Fatalf("a block with no other proxy was retried: %d requests", count.Load())
	}
}

func TestFetchSSRFRefusals(t *testing.T) {
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	env := testEnv(nil)
	env.AllowPrivateNetworks = false
	f := newFetcher(t, env, fastSite())
	for _, tc := range []struct {
		raw       string
		forbidden bool // wraps netguard.ErrForbiddenAddress
	}{
		{"file:///etc/passwd", false},
		{"gopher://127.0.0.1:70/_x", false},
		{"http://user:pw@example.com/", false},
		{fmt.Sprintf("http://127.0.0.1:%d/", port), true},
		{fmt.Sprintf("http://2130706433:%d/", port), true},
		{fmt.Sprintf("http://0x7f000001:%d/", port), true},
		{fmt.Sprintf("http://0177.0.0.1:%d/", port), true},
		{fmt.Sprintf("http://0x7f.1:%d/", port), true},
		{fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), true},
		{fmt.Sprintf("http://localhost:%d/", port), true},
		{"http://169.254.169.254/latest/meta-data/", true},
		{"http://[::1]/", true},
	} {
		_, err := f.Get(context.Background(), tc.raw)
		if err == nil {
			t.Errorf("Get(%q) was allowed", tc.raw)
			continue
		}
		var se *SiteError
		if !errors.As(err, &se) {
			t.Errorf("Get(%q) = %v, want a *SiteError", tc.raw, err)
		}
		if tc.forbidden && !errors.Is(err, netguard.ErrForbiddenAddress) {
			t.Errorf("Get(%q) = %v, want it to wrap ErrForbiddenAddress", tc.raw, err)
		}
	}
	if count.Load() != 0 {
		t.Fatalf("the loopback stand-in was reached %d times", count.Load())
	}
}

func TestFetchRefusesRedirectToLoopback(t *testing.T) {
	// The target is reached through a proxy (the only way to reach a stand-in
	// here with the guard on): the first hop is a public name, which redirects
	// to loopback. The redirect must be refused before it is requested.
	inner, innerCount := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") })
	outer, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	})
	p := newForwardProxy(t, "p")
	p.route["public.example"] = strings.TrimPrefix(outer.URL, "http://")
	env := testEnv(map[string]string{"PROXY_URLS": p.URL})
	env.AllowPrivateNetworks = false
	f := newFetcher(t, env, fastSite())
	f.lookup = func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		switch host {
		case "public.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "internal.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.35"), netip.MustParseAddr("10.1.2.3")}, nil
		}
		return nil, errors.New("no such host")
	}
	_, err := f.Get(context.Background(), "http://public.example/")
	if !errors.Is(err, netguard.ErrForbiddenAddress) || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("err = %v, want a refused redirect to a forbidden address", err)
	}
	if innerCount.Load() != 0 || p.uses.Load() != 1 {
		t.Fatalf("loopback reached %d times, proxy used %d times; want 0 and 1", innerCount.Load(), p.uses.Load())
	}
	// A name that resolves to a private address is refused before the proxy sees it.
	p.uses.Store(0)
	if _, err := f.Get(context.Background(), "http://internal.example/"); !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Fatalf("internal.example: %v, want ErrForbiddenAddress", err)
	}
	if _, err := f.Get(context.Background(), "http://unknown.example/"); err == nil || !strings.Contains(err.Error(), "cannot check") {
		t.Fatalf("unknown.example: %v, want a refusal because it cannot be checked", err)
	}
	if p.uses.Load() != 0 {
		t.Fatalf("the proxy was used %d times for refused targets", p.uses.Load())
	}
	// The redirect check itself, on the direct path.
	check := f.checkRedirect(context.Background(), false)
	for _, to := range []string{"http://127.0.0.1/", "http://0x7f.1/", "file:///etc/passwd", "http://[::1]:8080/"} {
		u, _ := url.Parse(to)
		if err := check(&http.Request{URL: u}, []*http.Request{{}}); err == nil {
			t.Errorf("redirect to %s allowed", to)
		}
	}
	if err := check(&http.Request{URL: &url.URL{Scheme: "https", Host: "example.com"}}, make([]*http.Request, 10)); err == nil {
		t.Error("an 11th redirect was allowed")
	}
}

func TestFetchBodyCap(t *testing.T) {
	big := strings.Repeat("x", 5000)
	srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			io.WriteString(w, big[:1000])
		case "/chunked": // no Content-Length: the cap counts as it reads
			for i := 0; i < 5; i++ {
				io.WriteString(w, big[:1000])
				w.(http.Flusher).Flush()
			}
		default:
			io.WriteString(w, big)
		}
	})
	site := fastSite()
	site.MaxBytes = 1000
	f := newFetcher(t, testEnv(nil), site)
	for _, path := range []string{"/big", "/chunked"} {
		count.Store(0)
		_, err := f.Get(context.Background(), srv.URL+path)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 1000 bytes") {
			t.Fatalf("%s: err = %v, want ErrTooLarge naming the cap", path, err)
		}
		if count.Load() != 1 {
			t.Fatalf("%s: a too-large page was retried (%d requests)", path, count.Load())
		}
	}
	resp, err := f.Get(context.Background(), srv.URL+"/exact")
	if err != nil || len(resp.Body) != 1000 {
		t.Fatalf("a page of exactly the cap: %v", err)
	}
}

func TestFetchCancellationStopsAtOnce(t *testing.T) {
	t.Run("during a request", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			cancel(ErrCancelled)
			<-r.Context().Done()
		})
		f := newFetcher(t, testEnv(nil), fastSite())
		start := time.Now()
		_, err := f.Get(ctx, srv.URL)
		if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want it to wrap ErrCancelled and context.Canceled", err)
		}
		time.Sleep(50 * time.Millisecond)
		if count.Load() != 1 || time.Since(start) > 2*time.Second {
			t.Fatalf("%d requests in %v after cancel; want 1, at once", count.Load(), time.Since(start))
		}
	})
	t.Run("during the backoff", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			time.AfterFunc(50*time.Millisecond, cancel)
		})
		site := fastSite()
		site.BaseBackoff = 10 * time.Second
		f := newFetcher(t, testEnv(nil), site)
		start := time.Now()
		_, err := f.Get(ctx, srv.URL)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("cancel during a 5-10 s backoff returned after %v", el)
		}
		if count.Load() != 1 {
			t.Fatalf("%d requests, want 1", count.Load())
		}
	})
	t.Run("before the first request", func(t *testing.T) {
		srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f := newFetcher(t, testEnv(nil), fastSite())
		if _, err := f.Get(ctx, srv.URL); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if count.Load() != 0 {
			t.Fatalf("%d requests after cancel", count.Load())
		}
	})
	t.Run("while waiting for politeness", func(t *testing.T) {
		srv, count := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {})
		site := fastSite()
		site.MinInterval = 10 * time.Second
		f := newFetcher(t, testEnv(nil), site)
		if _, err := f.Get(context.Background(), srv.URL); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		if _, err := f.Get(ctx, srv.URL); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if time.Since(start) > 2*time.Second || count.Load() != 1 {
			t.Fatalf("waited %v, %d requests", time.Since(start), count.Load())
		}
	})
}

func TestFetchPoliteness(t *testing.T) {
	var mu sync.Mutex
	var starts []time.Time
	var inFlight, maxInFlight atomic.Int32
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		cur := inFlight.Add(1)
		for {
			m := maxInFlight.Load()
			if cur <= m || maxInFlight.CompareAndSwap(m, cur) {
				break
			}
		}
		time.Sleep(40 * time.Millisecond)
		inFlight.Add(-1)
	})
	site := fastSite()
	site.MaxConcurrent = 2
	f := newFetcher(t, testEnv(nil), site)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { f.Get(context.Background(), srv.URL) })
	}
	wg.Wait()
	if m := maxInFlight.Load(); m > 2 || m < 1 {
		t.Fatalf("%d requests in flight at once, cap 2", m)
	}

	starts = nil
	site.MinInterval = 100 * time.Millisecond
	site.MaxConcurrent = 4
	g := newFetcher(t, testEnv(nil), site)
	for range 3 {
		wg.Go(func() { g.Get(context.Background(), srv.URL) })
	}
	wg.Wait()
	if len(starts) != 3 {
		t.Fatalf("%d requests", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 60*time.Millisecond {
			t.Fatalf("requests %d and %d started %v apart, MinInterval 100ms", i-1, i, gap)
		}
	}
}

func TestFetchCollyEnvironmentIgnored(t *testing.T) {
	// colly reads COLLY_* settings; none may change the fetcher's behaviour.
	t.Setenv("COLLY_MAX_BODY_SIZE", "10")
	t.Setenv("COLLY_ALLOWED_DOMAINS", "nowhere.example")
	t.Setenv("COLLY_USER_AGENT", "colly-env")
	var ua string
	srv, _ := countingServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		ua = r.UserAgent()
		io.WriteString(w, strings.Repeat("y", 100))
	})
	f := newFetcher(t, testEnv(nil), fastSite())
	resp, err := f.Get(context.Background(), srv.URL)
	if err != nil || len(resp.Body) != 100 || ua == "colly-env" {
		t.Fatalf("COLLY_* settings leaked in: err %v, body %d bytes, UA %q", err, len(resp.Body), ua)
	}
}

// FuzzGuardURL checks the URL the fetcher sends: never a panic, and a URL it
// accepts (guard on) is canonical — colly's parser reads it back unchanged — and
// names no refused address in any spelling.
func FuzzGuardURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/", "http://2130706433/", "http://0x7f.1/", "https://example.com/a?b=c d",
		"http://+00/", "http://０x7f.1/", "http://127。0。0。1/", "http://[::ffff:7f00:1]/", "http://1.1.1.1/%zz",
		"https://www.example-site.com/s?k=a&x=%2F", "/relative?q=1", "http://example.com:99999/", "http://-0/"} {
		f.Add(s)
	}
	fe, err := NewFetcher(Env{}, fastSite())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := fe.target(raw)
		if err != nil {
			return
		}
		again, err := canonicalURL(u)
		if err != nil || again.String() != u.String() {
			t.Fatalf("target(%q) = %q is not stable under colly's parser: %v, %v", raw, u, again, err)
		}
		if a, ok := netguard.ParseHostIP(u.Hostname()); ok && netguard.CheckAddr(a) != nil {
			t.Fatalf("target(%q) = %q names refused address %v", raw, u, a)
		}
		if err := netguard.CheckURL(u, false); err != nil {
			t.Fatalf("target(%q) = %q, which CheckURL refuses: %v", raw, u, err)
		}
	})
}

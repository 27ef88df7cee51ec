package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/license/keygentest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// slowPlugin is a test plugin whose tool adds `items` items, then waits until
// released or its context ends; upstream counts the "requests" it makes.
type slowPlugin struct {
	started  chan struct{}
	release  chan struct{}
	upstream atomic.Int64
	ended    atomic.Int64
	lastErr  atomic.Value
}

func newSlow() *slowPlugin {
	return &slowPlugin{started: make(chan struct{}, 100), release: make(chan struct{})}
}

type slowArgs struct {
	Items int    `json:"items"`
	Size  int    `json:"size,omitempty"`
	Fail  string `json:"fail,omitempty"`
	Wait  bool   `json:"wait,omitempty"`
}

func (s *slowPlugin) ctor(env scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "slow", Name: "Slow", Tools: []scrapers.Tool{
		scrapers.NewTool("work", "Work slowly", "test tool", nil, func(ctx context.Context, call *scrapers.Call, a slowArgs) error {
			defer s.ended.Add(1)
			if a.Items < 0 || a.Items > 10000 {
				return scrapers.Argf("items", "must be between 0 and 10000")
			}
			for i := 0; i < a.Items; i++ {
				call.Add(map[string]any{"url": fmt.Sprintf("https://example.com/%d", i), "n": i, "pad": strings.Repeat("x", a.Size)})
			}
			s.started <- struct{}{}
			if a.Fail != "" {
				return &scrapers.BlockedError{Site: "Example", Kind: a.Fail}
			}
			if !a.Wait {
				return nil
			}
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-s.release:
					return nil
				case <-ctx.Done():
					s.lastErr.Store(context.Cause(ctx).Error())
					return ctx.Err()
				case <-tick.C:
					s.upstream.Add(1) // a scrape would send a request here
				}
			}
		}),
	}}, nil
}

// expectDirect fails t at its end unless h ran a tool call itself
// (directcall.go): the cancel, deadline and progress tests hold for the
// calls real clients make, which the host runs without the SDK.
func expectDirect(t *testing.T, h *hosttest.Host) {
	t.Cleanup(func() {
		if host.DirectCalls(h.Host) == 0 {
			t.Error("every call ran through the SDK, none on the host's direct path")
		}
	})
}

func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

// text is a result's text content.
var text = scrapertest.Text

func page(t *testing.T, res *mcp.CallToolResult) host.Page {
	t.Helper()
	var p struct {
		host.Page
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(text(res)), &p); err != nil {
		t.Fatalf("result text is not a page: %v: %s", err, text(res))
	}
	p.Page.Items = p.Items
	return p.Page
}

func post(t *testing.T, url string, hdr map[string][]string, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m == nil {
		m = map[string]any{"_raw": string(raw)}
	}
	return resp, m
}

func keygenHost(t *testing.T, cfg func(*host.Config)) (*hosttest.Host, *keygentest.Server) {
	kg := keygentest.New("acct", map[string]keygentest.License{
		"good": {Code: "VALID", Plan: "team"}, "old": {Code: "EXPIRED"}, "stopped": {Code: "SUSPENDED"},
	})
	t.Cleanup(kg.Close)
	b, _ := license.NewKeygen(kg.URL, "acct")
	b.Client = &http.Client{Timeout: time.Second}
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Backend: b, Config: cfg})
	return h, kg
}

func TestLicenseRefusalsOnEveryRoute(t *testing.T) {
	h, kg := keygenHost(t, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	routes := []struct{ method, path, body string }{
		{http.MethodPost, "/web-crawl/mcp", init},
		{http.MethodGet, "/license", ""},
		{http.MethodPost, "/cancel", `{"thread_id":"t1"}`},
	}
	cases := []struct {
		name   string
		auth   []string
		status int
		reason string
	}{
		{"missing", nil, 401, "missing_license"},
		{"empty", []string{""}, 401, "missing_license"},
		{"empty key", []string{"License "}, 401, "missing_license"},
		{"bearer", []string{"Bearer good"}, 401, "missing_license"},
		{"doubled", []string{"License good", "License good"}, 401, "missing_license"},
		{"expired", []string{"License old"}, 403, "expired"},
		{"revoked", []string{"License stopped"}, 403, "revoked"},
		{"unknown", []string{"License nope"}, 403, "invalid"},
		{"odd case ok", []string{"lIcEnSe good"}, 200, ""},
	}
	for _, rt := range routes {
		for _, c := range cases {
			t.Run(rt.path+"/"+c.name, func(t *testing.T) {
				req, _ := http.NewRequest(rt.method, h.URL+rt.path, strings.NewReader(rt.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if c.auth != nil {
					req.Header["Authorization"] = c.auth
				}
				resp, body := do(t, req)
				if resp.StatusCode != c.status {
					t.Fatalf("status %d, want %d (%v)", resp.StatusCode, c.status, body)
				}
				if c.reason != "" && body["reason"] != c.reason {
					t.Fatalf("reason %v, want %s", body["reason"], c.reason)
				}
				if want := `License realm="SurfSense", reason="` + c.reason + `"`; c.status != 200 && resp.Header.Get("WWW-Authenticate") != want {
					t.Fatalf("WWW-Authenticate %q, want %s", resp.Header.Get("WWW-Authenticate"), want)
				}
			})
		}
	}
	// Keygen down, a key never validated: 503 with Retry-After.
	kg.SetOutage(keygentest.ServerError)
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/license", nil)
	req.Header.Set("Authorization", "License brand-new")
	resp, body := do(t, req)
	if resp.StatusCode != 503 || body["reason"] != "license_service_unavailable" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("outage with a new key: %d %v Retry-After=%q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	// A key validated before stays valid through the outage (it is cached
	// anyway; the grace path is tested in package license).
	req.Header.Set("Authorization", "License good")
	if resp, _ := do(t, req); resp.StatusCode != 200 {
		t.Fatalf("validated key during outage: %d", resp.StatusCode)
	}
}

func TestLicenseVerdictBody(t *testing.T) {
	h, _ := keygenHost(t, nil)
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/license", nil)
	req.Header.Set("Authorization", "License good")
	resp, body := do(t, req)
	if resp.StatusCode != 200 || body["status"] != "valid" || body["plan"] != "team" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
	if _, ok := body["expires_at"]; !ok || body["expires_at"] != nil {
		t.Fatalf("expires_at should be present and null: %v", body)
	}
	if _, err := time.Parse(time.RFC3339, fmt.Sprint(body["checked_at"])); err != nil {
		t.Fatalf("checked_at %v: %v", body["checked_at"], err)
	}
}

func TestToolsListAndAnnotations(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	cs := h.Connect(t, "web-crawl", "k", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		names[tool.Name] = tool
	}
	for _, n := range []string{"crawl", "map", "get_result"} {
		tool := names[n]
		if tool == nil {
			t.Fatalf("tool %s missing: %v", n, names)
		}
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint || a.Title == "" {
			t.Errorf("%s annotations: %+v", n, a)
		}
	}
	if len(names) != 3 {
		t.Errorf("tools: %v", names)
	}
}

func crawlSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case r.URL.Path == "/slow" || strings.HasPrefix(r.URL.Path, "/slow/"):
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			return
		}
		fmt.Fprintf(w, `<html lang="en"><head><title>T %s</title></head><body><article><p>Page %s has a paragraph of text long enough to count as content.</p><a href="/slow/1">s</a><a href="/x">x</a></article></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestCrawlEndToEndStructuredAndTextOnly(t *testing.T) {
	site, _ := crawlSite(t)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	args := map[string]any{"start_urls": []string{site.URL + "/a", site.URL + "/b"}}

	res := mustCall(t, h.Connect(t, "web-crawl", "k", nil), "crawl", args)
	if res.IsError || res.StructuredContent == nil {
		t.Fatalf("structured call: error=%v structured=%v: %s", res.IsError, res.StructuredContent != nil, text(res))
	}
	sc, _ := json.Marshal(res.StructuredContent)
	var structured struct {
		Items []map[string]any `json:"items"`
	}
	_ = json.Unmarshal(sc, &structured)
	if len(structured.Items) != 2 || structured.Items[0]["markdown"] == nil {
		t.Fatalf("structuredContent items: %s", sc)
	}
	if p := page(t, res); len(p.Items) != 2 {
		t.Fatalf("text rendering has %d items", len(p.Items))
	}

	res = mustCall(t, h.Connect(t, "web-crawl", "k", http.Header{"X-Surfsense-Text-Only": {"1"}}), "crawl", args)
	if res.IsError || res.StructuredContent != nil {
		t.Fatalf("text-only call carried structuredContent or failed: %s", text(res))
	}
	if p := page(t, res); len(p.Items) != 2 || !strings.Contains(string(p.Items[0]), "paragraph of text") {
		t.Fatalf("text-only items: %s", text(res))
	}
}

func TestBadArgumentsAndUnknownTool(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	cs := h.Connect(t, "web-crawl", "k", nil)
	for _, c := range []struct {
		args any
		want string
	}{
		{map[string]any{"start_urls": "x"}, "start_urls"},
		{map[string]any{"start_urls": []string{"https://e.com"}, "max_crawl_depth": 9}, "max_crawl_depth"},
		{map[string]any{"start_urls": []string{"file:///etc/passwd"}}, "file"},
		{map[string]any{"start_urls": []string{"https://e.com"}, "include_url_patterns": []string{"a["}}, "include_url_patterns"},
	} {
		res := mustCall(t, cs, "crawl", c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%v: error=%v %q, want a tool error naming %s", c.args, res.IsError, text(res), c.want)
		}
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestMalformedRequests(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	auth := map[string][]string{"Authorization": {"License k"}}
	url := h.URL + "/web-crawl/mcp"
	for _, body := range []string{`{not json`, `[]`, `{"jsonrpc":"2.0","id":1}`, "\xff\xfe", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`} {
		resp, m := post(t, url, auth, body)
		if resp.StatusCode < 400 && !strings.Contains(fmt.Sprint(m), "error") {
			t.Errorf("%q: status %d with no error: %v", body, resp.StatusCode, m)
		}
		if resp.StatusCode >= 500 {
			t.Errorf("%q: server error %d", body, resp.StatusCode)
		}
	}
	for _, th := range []string{"", "a b", "x/y", strings.Repeat("a", 129), "ü"} {
		hdr := map[string][]string{"Authorization": {"License k"}, "X-Surfsense-Thread": {th}}
		resp, m := post(t, url, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if resp.StatusCode != 400 || m["reason"] != "bad_request" {
			t.Errorf("thread %q: %d %v", th, resp.StatusCode, m)
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Authorization", "License k")
		if resp, _ := do(t, req); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", method, resp.StatusCode)
		}
	}
	for _, body := range []string{``, `{}`, `{"thread_id":""}`, `{"thread_id":"a b"}`, `{"thread_id":7}`, `nope`} {
		resp, m := post(t, h.URL+"/cancel", auth, body)
		if resp.StatusCode != 400 || m["reason"] != "bad_request" {
			t.Errorf("cancel %q: %d %v", body, resp.StatusCode, m)
		}
	}
	if resp, _ := post(t, h.URL+"/no-such/mcp", auth, `{}`); resp.StatusCode != 404 {
		t.Errorf("unknown plugin: %d", resp.StatusCode)
	}
}

func TestCancelEndsThreadCallsOfSameLicenseOnly(t *testing.T) {
	sp := newSlow()
	// Three runs of one question: without the result cache, which would
	// share one (resultcache_test.go covers cancels of a shared run).
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: noResultCache})
	expectDirect(t, h)
	thread := http.Header{"X-Surfsense-Thread": {"thread-1"}}
	results := make(chan *mcp.CallToolResult, 3)
	for _, key := range []string{"alice", "alice", "bob"} {
		cs := h.Connect(t, "slow", key, thread)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"items": 1, "wait": true}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			results <- res
		}()
	}
	for i := 0; i < 3; i++ {
		<-sp.started
	}
	start := time.Now()
	resp, body := post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License alice"}}, `{"thread_id":"thread-1"}`)
	if resp.StatusCode != 200 || body["cancelled"] != 2.0 || body["thread_id"] != "thread-1" {
		t.Fatalf("cancel: %d %v", resp.StatusCode, body)
	}
	if _, still := body["still_running"]; still {
		t.Fatalf("cancel answered before the calls ended: %v", body)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("cancel took %s", time.Since(start))
	}
	for i := 0; i < 2; i++ {
		res := <-results
		if !res.IsError || !strings.Contains(text(res), "cancelled") {
			t.Fatalf("cancelled call result: %v %s", res.IsError, text(res))
		}
	}
	time.Sleep(150 * time.Millisecond)
	if sp.ended.Load() != 2 {
		t.Fatalf("%d calls ended, want 2 (bob's goes on)", sp.ended.Load())
	}
	// Bob's call is untouched by Alice's cancel.
	select {
	case res := <-results:
		t.Fatalf("bob's call ended: %s", text(res))
	default:
	}
	resp, body = post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License bob"}}, `{"thread_id":"thread-1"}`)
	if body["cancelled"] != 1.0 {
		t.Fatalf("bob's cancel: %v", body)
	}
	<-results
	resp, body = post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License bob"}}, `{"thread_id":"thread-1"}`)
	if resp.StatusCode != 200 || body["cancelled"] != 0.0 {
		t.Fatalf("cancel with nothing running: %d %v", resp.StatusCode, body)
	}
}

// noResultCache turns the result cache off, for tests of calls that must
// each run.
func noResultCache(c *host.Config) { c.ResultCacheTTL = 0 }

func TestCancelledCrawlSendsNoMoreRequests(t *testing.T) {
	site, hits := crawlSite(t)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	cs := h.Connect(t, "web-crawl", "k", http.Header{"X-Surfsense-Thread": {"t-crawl"}})
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{
			"start_urls": []string{site.URL + "/slow", site.URL + "/slow/2", site.URL + "/slow/3", site.URL + "/slow/4"}, "max_crawl_depth": 2}})
		done <- res
	}()
	for hits.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, body := post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License k"}}, `{"thread_id":"t-crawl"}`)
	if body["cancelled"] != 1.0 {
		t.Fatalf("cancel: %v", body)
	}
	res := <-done
	if res == nil || !res.IsError || !strings.Contains(text(res), "cancelled") {
		t.Fatalf("crawl after cancel: %+v", res)
	}
	time.Sleep(100 * time.Millisecond) // a request sent just before the cancel may still land
	n := hits.Load()
	time.Sleep(400 * time.Millisecond)
	if hits.Load() != n {
		t.Fatalf("the crawl sent %d more requests after its cancel", hits.Load()-n)
	}
}

func TestClientGoneCancelsCall(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	expectDirect(t, h)
	cs := h.Connect(t, "slow", "k", nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"items": 1, "wait": true}})
	}()
	<-sp.started
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for (sp.ended.Load() == 0 || h.InFlight() != 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sp.ended.Load() != 1 || h.InFlight() != 0 {
		t.Fatalf("the call went on after its client left (ended %d, in flight %d)", sp.ended.Load(), h.InFlight())
	}
}

func TestProgressNotifications(t *testing.T) {
	old := host.ProgressInterval
	host.ProgressInterval = 50 * time.Millisecond
	defer func() { host.ProgressInterval = old }()
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	expectDirect(t, h)
	var mu sync.Mutex
	var got []float64
	cs, err := hosttest.Connect(context.Background(), h.URL+"/slow/mcp", "k", nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params.Progress)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go func() {
		time.Sleep(400 * time.Millisecond)
		close(sp.release)
	}()
	params := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"items": 1, "wait": true}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 3 {
		t.Fatalf("%d progress notifications in 400 ms at a 50 ms interval", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress did not increase: %v", got)
		}
	}
}

func TestDeadlineGivesPartialResult(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: func(c *host.Config) { c.CallDeadline = 300 * time.Millisecond }})
	expectDirect(t, h)
	cs := h.Connect(t, "slow", "k", nil)
	res := mustCall(t, cs, "work", map[string]any{"items": 3, "wait": true})
	if res.IsError {
		t.Fatalf("deadline with items gave an error: %s", text(res))
	}
	p := page(t, res)
	if !p.Partial || len(p.Items) != 3 || !strings.Contains(strings.Join(p.PartialReasons, " "), "deadline") {
		t.Fatalf("want 3 items marked partial for the deadline: %+v", p)
	}
	res = mustCall(t, cs, "work", map[string]any{"items": 0, "wait": true})
	if !res.IsError || !strings.Contains(text(res), "deadline") {
		t.Fatalf("deadline with nothing gathered: %v %s", res.IsError, text(res))
	}
}

func TestBlockedAndEmptyAreToolErrors(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	cs := h.Connect(t, "slow", "k", nil)
	res := mustCall(t, cs, "work", map[string]any{"items": 0, "fail": "captcha"})
	if !res.IsError || !strings.Contains(text(res), "Example") || !strings.Contains(text(res), "captcha") {
		t.Fatalf("blocked: %s", text(res))
	}
	res = mustCall(t, cs, "work", map[string]any{"items": 0})
	if !res.IsError {
		t.Fatalf("an empty result was a success: %s", text(res))
	}
	res = mustCall(t, cs, "work", map[string]any{"items": 2, "fail": "captcha"})
	if res.IsError || !page(t, res).Partial {
		t.Fatalf("a block after some items should return them, partial: %s", text(res))
	}
}

func TestLargeResultsPagedByOwnerOnly(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor, webcrawl.New}, Config: func(c *host.Config) { c.ResultMaxBytes = 4096 }})
	cs := h.Connect(t, "slow", "alice", nil)
	res := mustCall(t, cs, "work", map[string]any{"items": 50, "size": 500})
	p := page(t, res)
	if p.ResultID == "" || p.NextOffset == nil || p.TotalItems != 50 || len(p.Items) == 0 || len(p.Items) >= 50 {
		t.Fatalf("first page: total %d, items %d, id %q", p.TotalItems, len(p.Items), p.ResultID)
	}
	seen := len(p.Items)
	for p.NextOffset != nil {
		res = mustCall(t, cs, "get_result", map[string]any{"result_id": p.ResultID, "offset": *p.NextOffset})
		if res.IsError {
			t.Fatalf("get_result: %s", text(res))
		}
		p = page(t, res)
		var first map[string]any
		_ = json.Unmarshal(p.Items[0], &first)
		if int(first["n"].(float64)) != seen {
			t.Fatalf("page starts at item %v, want %d", first["n"], seen)
		}
		seen += len(p.Items)
	}
	if seen != 50 {
		t.Fatalf("paged through %d items, want 50", seen)
	}
	bob := h.Connect(t, "slow", "bob", nil)
	res = mustCall(t, bob, "get_result", map[string]any{"result_id": p.ResultID})
	if !res.IsError || strings.Contains(text(res), "pad") {
		t.Fatalf("another license read the result: %s", text(res))
	}
	res = mustCall(t, h.Connect(t, "web-crawl", "alice", nil), "get_result", map[string]any{"result_id": p.ResultID})
	if !res.IsError {
		t.Fatal("another plugin's get_result returned the result")
	}
	for _, args := range []map[string]any{{"result_id": "nope"}, {"result_id": p.ResultID, "offset": -1}, {}} {
		if res := mustCall(t, cs, "get_result", args); !res.IsError {
			t.Errorf("get_result %v succeeded", args)
		}
	}
}

func TestRateLimits(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: func(c *host.Config) {
		c.RateLimitPerMinute = 3
		c.MaxConcurrentCalls = 1
		c.ResultCacheTTL = 0 // every call runs: the limits are counted on runs here
	}})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{"items":1}}}`
	auth := map[string][]string{"Authorization": {"License k"}}
	// One call in flight (the 1st of 3 a minute): a second at the same time
	// is refused for the cap on calls in flight and uses up no budget.
	held := make(chan struct{})
	go func() {
		defer close(held)
		post(t, h.URL+"/slow/mcp", auth, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{"items":1,"wait":true}}}`)
	}()
	<-sp.started
	resp, m := post(t, h.URL+"/slow/mcp", auth, call)
	if resp.StatusCode != 429 || m["reason"] != "rate_limited" || !strings.Contains(fmt.Sprint(m["message"]), "in flight") {
		t.Fatalf("a 2nd call in flight with a cap of 1: %d %v", resp.StatusCode, m)
	}
	close(sp.release)
	<-held
	for i := 1; i < 3; i++ {
		if resp, m := post(t, h.URL+"/slow/mcp", auth, call); resp.StatusCode != 200 {
			t.Fatalf("call %d: %d %v", i, resp.StatusCode, m)
		}
		<-sp.started
	}
	resp, m = post(t, h.URL+"/slow/mcp", auth, call)
	if resp.StatusCode != 429 || m["reason"] != "rate_limited" || resp.Header.Get("Retry-After") == "" || m["retry_after_seconds"] == nil {
		t.Fatalf("4th call in a minute: %d %v %q", resp.StatusCode, m, resp.Header.Get("Retry-After"))
	}
	// tools/list is not a tool call and is not limited.
	if resp, _ := post(t, h.URL+"/slow/mcp", auth, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Fatalf("tools/list limited: %d", resp.StatusCode)
	}
	// Another license has its own budget.
	if resp, _ := post(t, h.URL+"/slow/mcp", map[string][]string{"Authorization": {"License other"}}, call); resp.StatusCode != 200 {
		t.Fatalf("other license: %d", resp.StatusCode)
	}
	<-sp.started
}

func TestDrainCancelsCallsAfterWait(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	cs := h.Connect(t, "slow", "k", nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"items": 1, "wait": true}})
		done <- res
	}()
	<-sp.started
	drained := make(chan int, 1)
	go func() { drained <- h.Drain(context.Background(), 300*time.Millisecond) }()
	time.Sleep(50 * time.Millisecond)
	resp, body := do(t, mustReq(http.MethodGet, h.URL+"/readyz"))
	if resp.StatusCode != 503 || body["status"] != "draining" {
		t.Fatalf("readyz while draining: %d %v", resp.StatusCode, body)
	}
	if resp, m := post(t, h.URL+"/slow/mcp", map[string][]string{"Authorization": {"License k"}}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 503 {
		t.Fatalf("new request while draining: %d %v", resp.StatusCode, m)
	}
	if n := <-drained; n != 1 {
		t.Fatalf("drain cancelled %d calls, want 1", n)
	}
	res := <-done
	if res == nil || !res.IsError || !strings.Contains(text(res), "shutting down") {
		t.Fatalf("drained call: %+v", res)
	}
}

func mustReq(method, url string) *http.Request {
	r, _ := http.NewRequest(method, url, nil)
	return r
}

func TestHealthReadyAndMetrics(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	if resp, _ := do(t, mustReq(http.MethodGet, h.URL+"/healthz")); resp.StatusCode != 200 {
		t.Fatal("healthz")
	}
	resp, body := do(t, mustReq(http.MethodGet, h.URL+"/readyz"))
	parts, _ := body["parts"].(map[string]any)
	if resp.StatusCode != 200 || parts["license"] == nil || parts["redis"] == nil || parts["plugins"] == nil {
		t.Fatalf("readyz: %d %v", resp.StatusCode, body)
	}
	mustCall(t, h.Connect(t, "slow", "k", nil), "work", map[string]any{"items": 1})
	post(t, h.URL+"/slow/mcp", nil, `{}`)
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, mustReq(http.MethodGet, "/metrics"))
	m := rec.Body.String()
	for _, want := range []string{
		`pluginhost_tool_calls_total{outcome="ok",plugin="slow",tool="work"} 1`,
		`pluginhost_tool_call_duration_seconds_count{plugin="slow",tool="work"} 1`,
		`pluginhost_license_verdicts_total{reason="valid"}`,
		`pluginhost_license_verdicts_total{reason="missing_license"} 1`,
		`pluginhost_tool_calls_in_flight 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// The public listener does not serve metrics.
	if resp, _ := do(t, mustReq(http.MethodGet, h.URL+"/metrics")); resp.StatusCode != 404 {
		t.Errorf("/metrics on the public listener: %d", resp.StatusCode)
	}
}

func TestNoLicenseKeyInLogs(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	site, _ := crawlSite(t)
	const key = "SECRET-KEY-0123456789"
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Logger: logger})
	cs := h.Connect(t, "web-crawl", key, http.Header{"X-Surfsense-Thread": {"t"}})
	mustCall(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/a"}})
	post(t, h.URL+"/cancel", map[string][]string{"Authorization": {"License " + key}}, `{"thread_id":"t"}`)
	post(t, h.URL+"/license", map[string][]string{"Authorization": {"License " + key}}, ``)
	post(t, h.URL+"/web-crawl/mcp", map[string][]string{"Authorization": {"Bearer " + key}}, `{}`)
	mu.Lock()
	defer mu.Unlock()
	if buf.Len() == 0 {
		t.Fatal("nothing was logged")
	}
	if strings.Contains(buf.String(), key) || strings.Contains(buf.String(), "SECRET") {
		t.Fatalf("the license key reached the logs:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), `"request_id"`) {
		t.Fatal("logs carry no request id")
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, err := host.FromEnv(env(nil), false); err == nil || !strings.Contains(err.Error(), "LICENSE_BACKEND") {
		t.Fatalf("no backend outside dev: %v", err)
	}
	c, err := host.FromEnv(env(nil), true)
	if err != nil || c.License.Backend != "dev" || c.Addr != "127.0.0.1:8000" || c.CallDeadline != 240*time.Second || c.ResultMaxBytes != 65536 {
		t.Fatalf("dev defaults: %+v %v", c, err)
	}
	c, err = host.FromEnv(env(map[string]string{"LICENSE_BACKEND": "keygen", "KEYGEN_URL": "https://k", "KEYGEN_ACCOUNT": "a",
		"AMAZON_RATE_LIMIT_PER_MINUTE": "7", "RATE_LIMIT_PER_MINUTE": "60", "UNLISTED_PLUGINS": "reddit, instagram"}), false)
	if err != nil || c.RateLimitFor("youtube") != 60 || len(c.UnlistedPlugins) != 2 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := host.FromEnv(env(map[string]string{"LOG_LEVEL": "loud"}), true); err == nil || !strings.Contains(err.Error(), "LOG_LEVEL") {
		t.Errorf("a bad LOG_LEVEL is not reported: %v", err)
	}
	_, err = host.FromEnv(env(map[string]string{"LICENSE_BACKEND": "keygen", "CALL_DEADLINE": "400s", "RESULT_MAX_BYTES": "x", "REDIS_URL": "http://x"}), false)
	for _, want := range []string{"KEYGEN_URL", "CALL_DEADLINE", "RESULT_MAX_BYTES", "REDIS_URL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
}

// TestPluginVariablesReadForMountedPlugins: <ID>_RATE_LIMIT_PER_MINUTE is
// read for whatever plugins are mounted, by their ids, with no list of ids in
// the host.
func TestPluginVariablesReadForMountedPlugins(t *testing.T) {
	waiter := func(scrapers.Env) (scrapers.Plugin, error) {
		return scrapers.Plugin{ID: "brand-new-site", Name: "New", Tools: []scrapers.Tool{
			scrapers.NewTool("t", "T", "d", nil, func(context.Context, *scrapers.Call, struct{}) error { return nil })}}, nil
	}
	env := map[string]string{"BRAND_NEW_SITE_RATE_LIMIT_PER_MINUTE": "7", "AMAZON_RATE_LIMIT_PER_MINUTE": "3"}
	cfg := host.Defaults()
	cfg.Getenv = func(k string) string { return env[k] }
	h, err := host.New(cfg, host.Options{Backend: license.Dev{}, Plugins: []scrapers.Constructor{waiter}})
	if err != nil {
		t.Fatal(err)
	}
	if hc := h.Config(); hc.RateLimitFor("brand-new-site") != 7 {
		got := hc.RateLimitFor("brand-new-site")
		t.Errorf("BRAND_NEW_SITE_RATE_LIMIT_PER_MINUTE gave %d, want 7", got)
	}
	if _, ok := h.Config().PluginRateLimits["amazon"]; ok {
		t.Error("a plugin that is not mounted had its variable read")
	}
	env["BRAND_NEW_SITE_RATE_LIMIT_PER_MINUTE"] = "many"
	if _, err := host.New(cfg, host.Options{Backend: license.Dev{}, Plugins: []scrapers.Constructor{waiter}}); err == nil || !strings.Contains(err.Error(), "BRAND_NEW_SITE_RATE_LIMIT_PER_MINUTE") {
		t.Errorf("a bad per-plugin value is not reported: %v", err)
	}
}

func TestOAuthPagesMounted(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: func(c *host.Config) { c.PublicURL = "https://plugins.example.com" }})
	resp, doc := do(t, mustReq(http.MethodGet, h.URL+"/oauth/client.json"))
	if resp.StatusCode != 200 || doc["client_id"] != "https://plugins.example.com/oauth/client.json" {
		t.Fatalf("client.json: %d %v", resp.StatusCode, doc)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := client.Get(h.URL + "/oauth/callback?code=abc&state=43123.nonce_1")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if loc := r.Header.Get("Location"); loc != "http://127.0.0.1:43123/plugins/oauth/callback?code=abc&state=43123.nonce_1" {
		t.Fatalf("callback forwards to %q (status %d)", loc, r.StatusCode)
	}
	if resp, idx := do(t, mustReq(http.MethodGet, h.URL+"/")); resp.StatusCode != 200 || idx["plugins"] == nil {
		t.Fatalf("index: %d %v", resp.StatusCode, idx)
	}
}

func TestRegistryServedAndNamedInReadyz(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	resp, body := do(t, mustReq(http.MethodGet, h.URL+"/readyz"))
	parts, _ := body["parts"].(map[string]any)
	if resp.StatusCode != 200 || parts["registry"] != "ok" || parts["oauth"] != "ok" {
		t.Fatalf("readyz: %v", body)
	}
	resp, list := do(t, mustReq(http.MethodGet, h.URL+"/plugins.json"))
	if resp.StatusCode != 200 || list["schema_version"] != 1.0 {
		t.Fatalf("/plugins.json: %d %v", resp.StatusCode, list)
	}
	if resp, fp := do(t, mustReq(http.MethodGet, h.URL+"/first-party/plugins.json")); resp.StatusCode != 200 || fp["plugins"] == nil {
		t.Fatalf("/first-party/plugins.json: %d", resp.StatusCode)
	}
	// A registry that does not verify: 503, named in /readyz, which stays 200.
	bad := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: func(c *host.Config) { c.RegistryDir = t.TempDir() }})
	resp, body = do(t, mustReq(http.MethodGet, bad.URL+"/readyz"))
	parts, _ = body["parts"].(map[string]any)
	if resp.StatusCode != 200 || !strings.HasPrefix(fmt.Sprint(parts["registry"]), "unverified") {
		t.Fatalf("readyz with a bad registry: %d %v", resp.StatusCode, body)
	}
	if resp, _ := do(t, mustReq(http.MethodGet, bad.URL+"/plugins.json")); resp.StatusCode != 503 {
		t.Fatalf("/plugins.json unverified: %d", resp.StatusCode)
	}
}

func TestInjectedBackendStillChecksTheRest(t *testing.T) {
	cfg := host.Defaults()
	cfg.PublicURL = "ftp://nope"
	_, err := host.New(cfg, host.Options{Backend: license.Dev{}, Plugins: []scrapers.Constructor{webcrawl.New}})
	if err == nil || !strings.Contains(err.Error(), "PUBLIC_URL") {
		t.Fatalf("a bad PUBLIC_URL with an injected backend: %v", err)
	}
	cfg.PublicURL = "https://plugins.example.com"
	if _, err := host.New(cfg, host.Options{Backend: license.Dev{}, Plugins: []scrapers.Constructor{webcrawl.New}}); err != nil {
		t.Fatalf("no LICENSE_BACKEND is fine with an injected backend: %v", err)
	}
}

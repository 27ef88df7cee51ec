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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/host/telemetry"
	"github.com/surfsense/pluginhost/host/telemetry/otlptest"
	"github.com/surfsense/pluginhost/internal/redistest"
	"github.com/surfsense/pluginhost/scrapers"
)

// The secrets and personal values the traced calls carry; none may reach
// the exporter.
const (
	tracedKey      = "LK-7f3a9c21-secret-license-key"
	proxyPassword  = "pr0xy-pa55word"
	personalValue  = "jane.doe.private"
	clientTraceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientParentID = "00f067aa0ba902b7"
	headerTraceID  = "11112222333344445555666677778888"
)

type pagesArgs struct {
	Pages []string `json:"pages"`
}

// standInSite answers as a site behind a proxy would: the proxy is this
// server too (it is asked with absolute URLs), ".../captcha/…" is a captcha
// page and everything else an ordinary page.
func standInSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/captcha/") {
			io.WriteString(w, `<html><body><form action="/sorry"><div class="g-recaptcha"></div>Please solve this CAPTCHA to continue</form></body></html>`)
			return
		}
		io.WriteString(w, "<html><body><p>a page</p></body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// tracedPlugin fetches each page through its fetcher, which detects the
// captcha page.
func tracedPlugin(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, scrapers.Site{ID: "traced", Name: "Traced", Origin: "http://traced.example", Domains: []string{"traced.example"},
		BaseBackoff: time.Millisecond,
		DetectBlock: func(r *scrapers.Response) *scrapers.BlockedError {
			if bytes.Contains(r.Body, []byte("CAPTCHA")) {
				return &scrapers.BlockedError{Kind: scrapers.BlockCaptcha}
			}
			return nil
		}})
	if err != nil {
		return scrapers.Plugin{}, err
	}
	tool := scrapers.NewTool("get", "Get", "gets pages", nil, func(ctx context.Context, call *scrapers.Call, a pagesArgs) error {
		for _, p := range a.Pages {
			resp, err := f.Get(ctx, "http://traced.example/"+p)
			if err != nil {
				return err
			}
			end := scrapers.Extraction(ctx, "page")
			call.Add(map[string]any{"page": p, "bytes": len(resp.Body)})
			end()
		}
		return nil
	})
	return scrapers.Plugin{ID: "traced", Name: "Traced", Tools: []scrapers.Tool{tool}}, nil
}

type tracedHost struct {
	*hosttest.Host
	recv *otlptest.Receiver
	prov *telemetry.Providers
	logs func() []map[string]any
}

func startTracedHost(t *testing.T) tracedHost { return startTracedHostWith(t, "") }

// startTracedHostWith starts the traced host; with redisURL its stores
// are in that Redis, traced too.
func startTracedHostWith(t *testing.T, redisURL string) tracedHost {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "100")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	prov, err := telemetry.Setup(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL}[k]
	}, host.Version)
	if err != nil {
		t.Fatal(err)
	}
	if !prov.Enabled() {
		t.Fatal("telemetry.Setup built nothing with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	t.Cleanup(func() { _ = prov.Shutdown(context.Background()) })
	site := standInSite(t)
	proxy := strings.Replace(site.URL, "http://", "http://user:"+proxyPassword+"@", 1)
	var stores host.Stores
	if redisURL != "" {
		st, err := redisstore.New(context.Background(), redisURL, redisstore.Options{
			Prefix: "surfsense:ph:tracing-test:" + time.Now().Format("150405.000000000") + ":", Timeout: 2 * time.Second,
			Logger: repQuiet, TracerProvider: prov.Tracer,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		stores = host.Stores{Licenses: st.Licenses(), Calls: st.Calls(), Results: st.Results(), Limits: st.Limiter(), Health: st.Check}
	}
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := hosttest.Start(t, hosttest.Options{
		Plugins: []scrapers.Constructor{tracedPlugin},
		Env:     map[string]string{"TRACED_BASE_URL": site.URL, "TRACED_PROXY_URLS": proxy + "," + proxy},
		Logger:  logger,
		Stores:  stores,
		// BLOCK_HOLD as deployed: a captcha holds its exit.
		Config:         func(c *host.Config) { c.ResultMaxBytes, c.BlockHold = 1024, host.Defaults().BlockHold },
		TracerProvider: prov.Tracer, MeterProvider: prov.Meter,
	})
	logs := func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		var out []map[string]any
		for _, line := range strings.Split(buf.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				out = append(out, m)
			}
		}
		return out
	}
	return tracedHost{Host: h, recv: recv, prov: prov, logs: logs}
}

func callWithTraceparent(t *testing.T, cs *mcp.ClientSession, traceparent string, pages ...string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get", Arguments: pagesArgs{Pages: pages},
		Meta: mcp.Meta{"traceparent": traceparent}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTraceOfAToolCall: a tools/call with a traceparent in _meta gives a
// server span in the MCP convention, in the client's trace under the span
// it sent (not the HTTP header's), with the license check, the rate limit,
// one span per upstream attempt (outcome, proxy, block kind) and the
// plugin's extraction under it; nothing secret reaches the exporter.
func TestTraceOfAToolCall(t *testing.T) {
	th := startTracedHost(t)
	cs := th.Connect(t, "traced", tracedKey, http.Header{"Traceparent": {"00-" + headerTraceID + "-1111222233334444-01"}})
	// One page, then a captcha page: retried through the next proxy twice
	// (three attempts), blocked each time. The result is partial, its
	// outcome blocked.
	res := callWithTraceparent(t, cs, "00-"+clientTraceID+"-"+clientParentID+"-01", "search/"+personalValue+"?who="+personalValue, personalValue+"/captcha/x")
	if res.IsError {
		t.Fatalf("the call failed: %s", text(res))
	}
	// Only a captcha page: a tool error.
	errRes := callWithTraceparent(t, cs, "00-"+clientTraceID+"-00000000000000aa-01", "captcha/again")
	if !errRes.IsError {
		t.Fatalf("a blocked call succeeded: %s", text(errRes))
	}
	// The response reaches the client before the request's span ends:
	// wait for both server spans, then flush the rest (metrics).
	th.recv.WaitSpans(t, 10*time.Second, "the two tools/call spans did not arrive", func(s []otlptest.Span) bool {
		n := 0
		for _, x := range s {
			if x.GetName() == "tools/call get" {
				n++
			}
		}
		return n == 2
	})
	if err := th.prov.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := th.recv.Spans()

	var call, failed *otlptest.Span
	for i, s := range spans {
		if s.GetName() == "tools/call get" {
			switch s.ParentID() {
			case clientParentID:
				call = &spans[i]
			case "00000000000000aa":
				failed = &spans[i]
			}
		}
	}
	if call == nil || failed == nil {
		t.Fatalf("no server span \"tools/call get\" under each span the client sent:\n%s", otlptest.Describe(spans))
	}
	if call.TraceID() != clientTraceID {
		t.Errorf("the call's span is in trace %s, want the client's %s from _meta (the HTTP header said %s)", call.TraceID(), clientTraceID, headerTraceID)
	}
	if call.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the call's span is a %v, want a server span", call.GetKind())
	}
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get", "gen_ai.operation.name": "execute_tool",
		"surfsense.plugin": "traced", "surfsense.outcome": "blocked", "surfsense.upstream.requests": "4", "jsonrpc.protocol.version": "2.0"}
	for k, v := range want {
		if got, _ := call.Attr(k); got != v {
			t.Errorf("the call's span has %s=%q, want %q", k, got, v)
		}
	}
	if id, ok := call.Attr("jsonrpc.request.id"); !ok || id == "" {
		t.Errorf("the call's span has no jsonrpc.request.id: %v", call.Attrs())
	}
	if pv, _ := call.Attr("mcp.protocol.version"); len(pv) != len("2025-06-18") {
		t.Errorf("the call's span has mcp.protocol.version %q", pv)
	}
	if et, ok := call.Attr("error.type"); ok {
		t.Errorf("a partial result is no error, but the span has error.type %q", et)
	}
	if et, _ := failed.Attr("error.type"); et != "tool_error" {
		t.Errorf("the blocked call's span has error.type %q, want tool_error: %v", et, failed.Attrs())
	}

	// The children of the call's span.
	children := map[string][]otlptest.Span{}
	for _, s := range spans {
		if s.ParentID() == call.SpanID() {
			if s.TraceID() != clientTraceID {
				t.Errorf("child %s is in trace %s", s.GetName(), s.TraceID())
			}
			children[s.GetName()] = append(children[s.GetName()], s)
		}
	}
	if lc := children["license check"]; len(lc) != 1 {
		t.Errorf("the call has %d license check spans, want 1:\n%s", len(lc), otlptest.Describe(spans))
	} else {
		if v, _ := lc[0].Attr("surfsense.license.verdict"); v != "valid" {
			t.Errorf("license check verdict %q", v)
		}
		if src, _ := lc[0].Attr("surfsense.license.source"); src != "cache" && src != "dev" {
			t.Errorf("license check source %q, want cache or dev", src)
		}
		if lc[0].GetStartTimeUnixNano() < call.GetStartTimeUnixNano() || lc[0].GetEndTimeUnixNano() > call.GetEndTimeUnixNano() {
			t.Errorf("the license check's span is not within the call's")
		}
	}
	if rl := children["rate limit"]; len(rl) != 1 {
		t.Errorf("the call has %d rate limit spans, want 1", len(rl))
	} else if r, _ := rl[0].Attr("surfsense.rate_limit.result"); r != "allowed" {
		t.Errorf("rate limit result %q", r)
	}
	if ex := children["extract page"]; len(ex) != 1 {
		t.Errorf("the call has %d extraction spans, want 1 (one page was not blocked)", len(ex))
	}
	up := children["GET traced"]
	if len(up) != 4 {
		t.Fatalf("the call has %d upstream spans, want 4 (a page, a captcha, the captcha twice again through the next proxy):\n%s", len(up), otlptest.Describe(spans))
	}
	type attempt struct{ outcome, kind, attempt, proxy, status, path string }
	sort.Slice(up, func(i, j int) bool { return up[i].GetStartTimeUnixNano() < up[j].GetStartTimeUnixNano() })
	var got []attempt
	for _, s := range up {
		a := attempt{}
		a.outcome, _ = s.Attr("surfsense.upstream.outcome")
		a.kind, _ = s.Attr("surfsense.upstream.block_kind")
		a.attempt, _ = s.Attr("surfsense.upstream.attempt")
		a.proxy, _ = s.Attr("surfsense.upstream.proxy_index")
		a.status, _ = s.Attr("http.response.status_code")
		a.path, _ = s.Attr("url.path")
		got = append(got, a)
		if s.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("upstream span kind %v", s.GetKind())
		}
		if s.GetEndTimeUnixNano() <= s.GetStartTimeUnixNano() {
			t.Errorf("upstream span without a duration")
		}
	}
	wantAttempts := []attempt{
		{outcome: "ok", attempt: "1", status: "200", path: "/search/*"},
		{outcome: "blocked", kind: "captcha", attempt: "1", status: "200", path: "/*"},
		{outcome: "blocked", kind: "captcha", attempt: "2", status: "200", path: "/*"},
		// Both proxies blocked: each exit is held off (scrapers.BlockHold), so
		// the third attempt is not sent.
		{outcome: "held", attempt: "3", path: "/*"},
	}
	proxies := map[string]bool{}
	for i, w := range wantAttempts {
		g := got[i]
		proxies[g.proxy] = true
		g.proxy = ""
		if g != w {
			t.Errorf("upstream attempt %d: %+v, want %+v", i, g, w)
		}
	}
	if len(proxies) != 2 {
		t.Errorf("the attempts went through proxies %v, want both of the two", proxies)
	}

	// Nothing secret or personal in anything exported.
	for _, body := range th.recv.Raw() {
		for _, secret := range []string{tracedKey, proxyPassword, personalValue, "who="} {
			if bytes.Contains(body, []byte(secret)) {
				t.Errorf("an export carries %q", secret)
			}
		}
	}

	// mcp.server.operation.duration went out beside the spans.
	var sawDuration bool
	for _, m := range th.recv.Metrics() {
		if m.GetName() == "mcp.server.operation.duration" && m.GetHistogram() != nil {
			sawDuration = true
		}
	}
	if !sawDuration {
		t.Error("no mcp.server.operation.duration histogram was exported")
	}

	// One line at info per request, with the trace id; the SDK's chatter
	// is not at info.
	var callLines int
	logs := th.logs()
	for deadline := time.Now().Add(5 * time.Second); countCallLines(logs) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		logs = th.logs()
	}
	for _, l := range logs {
		switch l["msg"] {
		case "mcp request":
			if l["method"] == "tools/call" && l["trace_id"] == clientTraceID {
				callLines++
				for _, k := range []string{"plugin", "tool", "outcome", "duration_ms"} {
					if _, ok := l[k]; !ok {
						t.Errorf("the request line has no %s: %v", k, l)
					}
				}
			}
		case "server session connected", "request", "tool call":
			if l["level"] == "INFO" {
				t.Errorf("a second line at info for an MCP request: %v", l)
			}
		}
	}
	if callLines != 2 {
		t.Errorf("%d tools/call lines with the client's trace id, want 2", callLines)
	}
}

// TestTraceOfARefusal: a request refused for its license before the body
// is read still gives a span, parented on the HTTP traceparent, with the
// refusal as error.type and the license check under it.
func TestTraceOfARefusal(t *testing.T) {
	th := startTracedHost(t)
	req, _ := http.NewRequest(http.MethodPost, th.URL+"/traced/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Traceparent", "00-"+headerTraceID+"-1111222233334444-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d without a license", resp.StatusCode)
	}
	spans := th.recv.WaitSpans(t, 10*time.Second, "no span of the refused request", func(s []otlptest.Span) bool {
		for _, x := range s {
			if x.ParentID() == "1111222233334444" {
				return true
			}
		}
		return false
	})
	var seen bool
	for _, s := range spans {
		if s.ParentID() != "1111222233334444" {
			continue
		}
		seen = true
		if s.TraceID() != headerTraceID {
			t.Errorf("trace %s, want the header's", s.TraceID())
		}
		if et, _ := s.Attr("error.type"); et != "missing_license" {
			t.Errorf("error.type %q, want missing_license", et)
		}
		if st, _ := s.Attr("http.response.status_code"); st != "401" {
			t.Errorf("status %q", st)
		}
		var lic bool
		for _, c := range spans {
			if c.ParentID() == s.SpanID() && c.GetName() == "license check" {
				lic = true
			}
		}
		if !lic {
			t.Errorf("no license check under the refused request's span:\n%s", otlptest.Describe(spans))
		}
	}
	if !seen {
		t.Fatalf("no span under the HTTP traceparent's:\n%s", otlptest.Describe(spans))
	}
}

// A body the gate refuses is traced with the JSON-RPC code it answered as
// error.type, not its HTTP status.
func TestTraceOfABodyGateRefusal(t *testing.T) {
	th := startTracedHost(t)
	req, _ := http.NewRequest(http.MethodPost, th.URL+"/traced/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "License k")
	req.Header.Set("Traceparent", "00-"+headerTraceID+"-5555666677778888-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d for a malformed body", resp.StatusCode)
	}
	spans := th.recv.WaitSpans(t, 10*time.Second, "no span of the refused body", func(s []otlptest.Span) bool {
		for _, x := range s {
			if x.ParentID() == "5555666677778888" {
				return true
			}
		}
		return false
	})
	for _, s := range spans {
		if s.ParentID() != "5555666677778888" {
			continue
		}
		if et, _ := s.Attr("error.type"); et != "-32700" {
			t.Fatalf("error.type %q, want -32700 (parse error): %v", et, s.Attrs())
		}
		if st, _ := s.Attr("http.response.status_code"); st != "400" {
			t.Fatalf("status %q", st)
		}
	}
}

func countCallLines(logs []map[string]any) int {
	n := 0
	for _, l := range logs {
		if l["msg"] == "mcp request" && l["method"] == "tools/call" && l["trace_id"] == clientTraceID {
			n++
		}
	}
	return n
}

// TestTraceOfRedisCommands: with the stores in Redis, the commands a
// traced call makes (the rate limit's, the thread registry's) are client
// spans in its trace, named by command, with no key in them.
func TestTraceOfRedisCommands(t *testing.T) {
	th := startTracedHostWith(t, redistest.URL(t))
	cs := th.Connect(t, "traced", tracedKey, http.Header{"X-SurfSense-Thread": {"thread-1"}})
	// Enough pages that the result passes RESULT_MAX_BYTES (1024 here) and
	// is stored for get_result.
	var pages []string
	for i := range 60 {
		pages = append(pages, fmt.Sprintf("search/%02d", i))
	}
	res := callWithTraceparent(t, cs, "00-"+clientTraceID+"-"+clientParentID+"-01", pages...)
	var pg struct {
		ResultID string `json:"result_id"`
	}
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &pg) != nil || pg.ResultID == "" {
		t.Fatalf("the large result was not stored: %s", text(res))
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: host.GetResultTool, Arguments: map[string]any{"result_id": pg.ResultID, "offset": 1},
		Meta: mcp.Meta{"traceparent": "00-" + clientTraceID + "-00000000000000bb-01"}}); err != nil {
		t.Fatal(err)
	}
	spans := th.recv.WaitSpans(t, 10*time.Second, "no tools/call spans", func(s []otlptest.Span) bool {
		n := 0
		for _, x := range s {
			if x.GetName() == "tools/call get" || x.GetName() == "tools/call get_result" {
				n++
			}
		}
		return n == 2
	})
	byID := map[string]otlptest.Span{}
	var call otlptest.Span
	for _, s := range spans {
		byID[s.SpanID()] = s
		if s.GetName() == "tools/call get" {
			call = s
		}
	}
	// under reports whether s descends from the call's span, and through which child.
	under := func(s otlptest.Span) (string, bool) {
		via := ""
		for p := s.ParentID(); p != ""; p = byID[p].ParentID() {
			if p == call.SpanID() {
				return via, true
			}
			via = byID[p].GetName()
		}
		return "", false
	}
	// underLicenseCheck reports whether s descends from a license check
	// (the session's first request checks the key through Redis, in a
	// trace of its own; later ones are answered from memory).
	underLicenseCheck := func(s otlptest.Span) bool {
		for p := s.ParentID(); p != ""; p = byID[p].ParentID() {
			if byID[p].GetName() == "license check" {
				return true
			}
		}
		return false
	}
	licenseRedis := 0
	vias := map[string]bool{}
	for _, s := range spans {
		if sys, _ := s.Attr("db.system.name"); sys != "redis" {
			continue
		}
		if s.TraceID() != clientTraceID && !underLicenseCheck(s) {
			t.Errorf("redis span %s in trace %s, not under a license check", s.GetName(), s.TraceID())
		}
		if underLicenseCheck(s) {
			licenseRedis++
		}
		if op, _ := s.Attr("db.operation.name"); op == "" {
			t.Errorf("redis span %s names no operation", s.GetName())
		}
		if strings.Contains(s.GetName(), "surfsense:") || strings.Contains(fmt.Sprint(s.Attrs()), "surfsense:") {
			t.Errorf("a redis span names a key: %s %v", s.GetName(), s.Attrs())
		}
		if via, ok := under(s); ok {
			vias[via] = true
		}
	}
	if !vias["rate limit"] {
		t.Errorf("no redis command under the call's rate limit span (under: %v):\n%s", vias, otlptest.Describe(spans))
	}
	if !vias["result store"] {
		t.Errorf("no redis command under the call's result store span (under: %v)", vias)
	}
	var read bool
	for _, s := range spans {
		if s.GetName() == "result read" && byID[s.ParentID()].GetName() == "tools/call get_result" {
			read = true
		}
	}
	if !read {
		t.Errorf("get_result has no result read span:\n%s", otlptest.Describe(spans))
	}
	if !vias[""] {
		t.Errorf("no redis command of the call itself (its thread registration) (under: %v):\n%s", vias, otlptest.Describe(spans))
	}
	// The license check runs before the request's span exists; its Redis
	// commands (the verdict cache) are recorded under its span afterwards.
	if licenseRedis == 0 {
		t.Errorf("no redis command under a license check span:\n%s", otlptest.Describe(spans))
	}
}

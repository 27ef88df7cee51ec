package host_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// seriesOf scrapes the host's metrics: each series line of the families
// named by prefix, with its value.
func seriesOf(t *testing.T, h *hosttest.Host, prefixes ...string) map[string]string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	out := map[string]string{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				i := strings.LastIndexByte(line, ' ')
				out[line[:i]] = line[i+1:]
			}
		}
	}
	return out
}

// countedFamilies are the counters whose label values are known at start.
var countedFamilies = []string{"pluginhost_tool_calls_total{", "pluginhost_license_verdicts_total{", "pluginhost_http_refusals_total{",
	"pluginhost_result_cache_calls_total{", "pluginhost_upstream_requests_total{", "pluginhost_upstream_retries_total{",
	"pluginhost_upstream_proxy_rotations_total{", "pluginhost_upstream_proxy_requests_total{", "pluginhost_usage_items_total{",
	"pluginhost_usage_refused_calls_total{", "pluginhost_upstream_holds_total{"}

// A fresh replica's counters with known labels (outcomes, plugins, tools,
// cache answers, license reasons, refusals, proxies configured) are there
// at 0 before any request; and the calls and refusals a client can cause
// afterwards use no label value that was not there at the start.
func TestCountersStartAtZero(t *testing.T) {
	h := hosttest.Start(t, hosttest.Options{
		Plugins: []scrapers.Constructor{webcrawl.New},
		Env:     map[string]string{"PROXY_URLS": "http://127.0.0.1:1,http://127.0.0.1:2"},
		Config:  func(c *host.Config) { c.ResultCacheTTL = 60e9 },
	})
	start := seriesOf(t, h, countedFamilies...)
	for _, want := range []string{
		`pluginhost_tool_calls_total{outcome="ok",plugin="web-crawl",tool="crawl"}`,
		`pluginhost_tool_calls_total{outcome="deadline",plugin="web-crawl",tool="crawl"}`,
		`pluginhost_tool_calls_total{outcome="bad_arguments",plugin="web-crawl",tool="get_result"}`,
		`pluginhost_license_verdicts_total{reason="valid"}`,
		`pluginhost_license_verdicts_total{reason="license_service_unavailable"}`,
		`pluginhost_http_refusals_total{reason="method_not_found"}`,
		`pluginhost_http_refusals_total{reason="missing_license"}`,
		`pluginhost_result_cache_calls_total{plugin="web-crawl",served="cache",tool="crawl"}`,
		`pluginhost_upstream_requests_total{block_kind="",outcome="timeout",site="web-crawl"}`,
		`pluginhost_upstream_requests_total{block_kind="captcha",outcome="blocked",site="web-crawl"}`,
		`pluginhost_upstream_proxy_requests_total{outcome="ok",proxy="1",site="web-crawl"}`,
		`pluginhost_upstream_proxy_rotations_total{site="web-crawl"}`,
		`pluginhost_usage_refused_calls_total{plugin="web-crawl",reason="rate_limited",tool="crawl"}`,
	} {
		if v, ok := start[want]; !ok || v != "0" {
			t.Errorf("%s: %q at start, want 0", want, v)
		}
	}
	if _, ok := start[`pluginhost_upstream_proxy_requests_total{outcome="ok",proxy="2",site="web-crawl"}`]; ok {
		t.Error("a third proxy's series, with two configured")
	}

	// What a client can make the host count: calls of each kind and
	// refusals of each kind.
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><head><title>t</title></head><body><article><p>`+strings.Repeat("words ", 60)+`</p></article></body></html>`)
	}))
	defer page.Close()
	cs := h.Connect(t, "web-crawl", "zero-key", nil)
	ctx := context.Background()
	for _, args := range []map[string]any{
		{"start_urls": []string{page.URL + "/a"}},
		{"start_urls": []string{page.URL + "/a"}}, // from the cache
		{"start_urls": 5},
		{"start_urls": []string{"http://127.0.0.1:1/closed"}},
	} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crawl", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_result", Arguments: map[string]any{"result_id": "res_" + strings.Repeat("0", 32)}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ key, body string }{
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"zero-key", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`},
		{"zero-key", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
		{"zero-key", `not json`},
	} {
		req, _ := http.NewRequest(http.MethodPost, h.URL+"/web-crawl/mcp", strings.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if r.key != "" {
			req.Header.Set("Authorization", "License "+r.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	after := seriesOf(t, h, countedFamilies...)
	changed := 0
	for k, v := range after {
		if _, ok := start[k]; !ok {
			t.Errorf("%s appeared only when counted (%s): its label value is not started at 0", k, v)
		}
		if v != start[k] {
			changed++
		}
	}
	if changed < 6 {
		t.Fatalf("only %d series moved: the requests above did not reach the counters", changed)
	}
}

package host_test

import (
	"github.com/surfsense/pluginhost/host"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

// scrapeMetrics is the host's Prometheus text, as its listener serves it.
func scrapeMetrics(t *testing.T, h *hosttest.Host) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestBlockPageInSiteSeries: a captcha page served by a stand-in shows in
// the per-site series with its kind, beside the page that was not blocked;
// the retries through the next proxy are counted as retries and rotations,
// and the call by plugin, tool and outcome.
func TestBlockPageInSiteSeries(t *testing.T) {
	site := standInSite(t)
	proxy := strings.Replace(site.URL, "http://", "http://user:"+proxyPassword+"@", 1)
	h := hosttest.Start(t, hosttest.Options{
		Plugins: []scrapers.Constructor{tracedPlugin},
		Env:     map[string]string{"TRACED_BASE_URL": site.URL, "TRACED_PROXY_URLS": proxy + "," + proxy},
		Config:  func(c *host.Config) { c.BlockHold = host.Defaults().BlockHold }, // as deployed: a captcha holds its exit
	})
	cs := h.Connect(t, "traced", "key", nil)
	mustCall(t, cs, "get", pagesArgs{Pages: []string{"ok/a", "captcha/b"}})
	wants := []string{
		`pluginhost_upstream_requests_total{block_kind="",outcome="ok",site="traced"} 1`,
		`pluginhost_upstream_requests_total{block_kind="captcha",outcome="blocked",site="traced"} 2`,
		// each blocked exit is held off: the third attempt is not sent
		`pluginhost_upstream_requests_total{block_kind="",outcome="held",site="traced"} 1`,
		`pluginhost_upstream_holds_total{reason="blocked",site="traced"} 2`,
		`pluginhost_upstream_hold_seconds_total{site="traced"} 120`,
		`pluginhost_upstream_retries_total{site="traced"} 2`,
		`pluginhost_upstream_proxy_rotations_total{site="traced"} 2`,
		`pluginhost_upstream_request_duration_seconds_count{site="traced"} 4`,
		`pluginhost_upstream_proxy_requests_total{outcome="blocked",proxy="0",site="traced"}`,
		`pluginhost_upstream_proxy_requests_total{outcome="blocked",proxy="1",site="traced"}`,
		`pluginhost_tool_calls_total{outcome="blocked",plugin="traced",tool="get"} 1`,
		`mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="get",mcp_method_name="tools/call",plugin="traced"} 1`,
	}
	// The request's own series are recorded once its response has gone:
	// give them a moment.
	var text string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		text = scrapeMetrics(t, h)
		if strings.Contains(text, wants[len(wants)-1]) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("the metrics have no %s", want)
		}
	}
	if strings.Contains(text, proxyPassword) {
		t.Error("the metrics carry the proxy's password")
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", grepLines(text, "upstream", "tool_calls_total", "mcp_server"))
	}
}

func grepLines(text string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, s := range subs {
			if strings.Contains(l, s) && !strings.HasPrefix(l, "#") {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

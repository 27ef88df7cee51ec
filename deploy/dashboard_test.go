package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/host/redisstore"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Type    string `json:"type"`
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	labelValues  = regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)
	promKeywords = map[string]bool{"by": true, "without": true, "and": true, "or": true, "unless": true, "bool": true, "offset": true, "on": true, "ignoring": true}
)

// promMetrics are the metric names a PromQL expression reads: what is
// left once strings, matchers, ranges, groupings, functions and keywords are
// taken out.
func promMetrics(expr string) []string {
	e := promString.ReplaceAllString(expr, `""`)
	e = promMatchers.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	var out []string
	for _, m := range promIdent.FindAllStringSubmatch(e, -1) {
		if m[1] != "" || promKeywords[m[0]] { // a function, or a keyword
			continue
		}
		out = append(out, m[0])
	}
	return out
}

func TestPromMetrics(t *testing.T) {
	got := promMetrics(`histogram_quantile(0.99, sum by (plugin, le) (rate(a_bucket{plugin=~"$plugin",x="y{z}"}[$__rate_interval]))) / sum without (site) (b_total) or on (x) c`)
	if strings.Join(got, ",") != "a_bucket,b_total,c" {
		t.Fatalf("promMetrics: %v", got)
	}
}

// dashboardPlugin is a site plugin against a stand-in that serves a page
// and a captcha page, through two proxies: every upstream series gets a
// sample.
func dashboardPlugin(env scrapers.Env) (scrapers.Plugin, error) {
	f, err := scrapers.NewFetcher(env, scrapers.Site{ID: "dash", Name: "Dash", Origin: "http://dash.example", Domains: []string{"dash.example"},
		BaseBackoff: time.Millisecond,
		DetectBlock: func(r *scrapers.Response) *scrapers.BlockedError {
			if bytes.Contains(r.Body, []byte("captcha")) {
				return &scrapers.BlockedError{Kind: scrapers.BlockCaptcha}
			}
			return nil
		}})
	if err != nil {
		return scrapers.Plugin{}, err
	}
	type args struct {
		Path string `json:"path"`
	}
	tool := scrapers.NewTool("get", "Get", "gets a page", nil, func(ctx context.Context, call *scrapers.Call, a args) error {
		resp, err := f.Get(ctx, "http://dash.example/"+a.Path)
		if err != nil {
			return err
		}
		call.Add(map[string]any{"bytes": len(resp.Body)})
		return nil
	})
	return scrapers.Plugin{ID: "dash", Name: "Dash", Tools: []scrapers.Tool{tool}}, nil
}

// servedAfterExercise runs a real host (its Redis unreachable, so that the
// Redis series have samples too), makes it answer (once from its result
// cache), block, retry, refuse and check licenses, and returns the metric
// names its listener serves.
func servedAfterExercise(t *testing.T) map[string]bool {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "captcha") {
			io.WriteString(w, "<html>solve the captcha</html>")
			return
		}
		io.WriteString(w, "<html>a page</html>")
	}))
	defer site.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := prometheus.NewRegistry()
	rs, err := redisstore.New(context.Background(), "redis://127.0.0.1:1/0", redisstore.Options{Timeout: 50 * time.Millisecond, Logger: quiet, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cfg := host.Defaults()
	cfg.License.Backend = "dev"
	cfg.AllowPrivateNetworks = true
	env := map[string]string{"DASH_BASE_URL": site.URL, "DASH_PROXY_URLS": site.URL + "," + site.URL}
	cfg.Getenv = func(k string) string { return env[k] }
	h, err := host.New(cfg, host.Options{Logger: quiet, Metrics: reg, Backend: license.Dev{}, Plugins: []scrapers.Constructor{dashboardPlugin},
		Stores: host.Stores{Licenses: rs.Licenses(), Calls: rs.Calls(), Results: rs.Results(), Limits: rs.Limiter(), Health: rs.Check}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcpdial.Connect(ctx, srv.URL+"/dash/mcp", "dashboard-key", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, path := range []string{"page", "page", "captcha"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"path": path}}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(srv.URL+"/dash/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a request without a license got %d", resp.StatusCode)
	}
	mname := regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]`)
	served := map[string]bool{}
	// A request's own series are recorded once its response has gone.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rec := httptest.NewRecorder()
		h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		for _, line := range strings.Split(rec.Body.String(), "\n") {
			if m := mname.FindStringSubmatch(line); m != nil {
				served[m[1]] = true
			}
		}
		if served["mcp_server_operation_duration_seconds_count"] || time.Now().After(deadline) {
			return served
		}
	}
}

// TestDashboardQueriesServedSeries: every series the Grafana dashboard
// queries (panels and variables) is one a real host serves once it has
// worked, and the dashboard shows what an operator opens it for.
func TestDashboardQueriesServedSeries(t *testing.T) {
	var d dashboard
	if err := json.Unmarshal([]byte(read(t, "grafana-dashboard.json")), &d); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	queried := map[string][]string{} // metric → panels
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			names := promMetrics(tg.Expr)
			if len(names) == 0 {
				t.Errorf("panel %q: %q reads no series", p.Title, tg.Expr)
			}
			for _, n := range names {
				queried[n] = append(queried[n], p.Title)
			}
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(<metric>, <label>)", v.Name, v.Definition)
			continue
		}
		queried[m[1]] = append(queried[m[1]], "variable "+v.Name)
	}
	for _, want := range []string{
		"pluginhost_tool_calls_total", "pluginhost_tool_call_duration_seconds_bucket", "pluginhost_tool_calls_in_flight",
		"pluginhost_upstream_requests_total", "pluginhost_license_verdicts_total", "redis_up", "mcp_server_operation_duration_seconds_bucket",
		"pluginhost_result_cache_calls_total",
	} {
		if queried[want] == nil {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
	served := servedAfterExercise(t)
	var names []string
	for n := range queried {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !served[n] {
			t.Errorf("%s (in %s) is not a series the host serves", n, strings.Join(queried[n], ", "))
		}
	}
	if t.Failed() {
		var s []string
		for n := range served {
			if strings.HasPrefix(n, "pluginhost_") || strings.HasPrefix(n, "redis_") || strings.HasPrefix(n, "mcp_") {
				s = append(s, n)
			}
		}
		sort.Strings(s)
		t.Logf("served: %s", strings.Join(s, " "))
	}
}

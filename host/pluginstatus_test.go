package host_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

// TestPluginStatusAndMetricsReachTheHost: a plugin's Status names its part in
// /readyz, as it says it at the moment of the request (a degraded part
// keeps the replica ready), and a series it registers in Env.Metrics is
// served with the host's.
func TestPluginStatusAndMetricsReachTheHost(t *testing.T) {
	var state atomic.Value
	state.Store("ok (a test part)")
	counter := prometheus.NewCounter(prometheus.CounterOpts{Name: "pluginhost_test_part_total", Help: "test"})
	ctor := func(env scrapers.Env) (scrapers.Plugin, error) {
		if env.Metrics == nil {
			t.Error("the host gave the plugin no Metrics registerer")
		} else if err := env.Metrics.Register(counter); err != nil {
			t.Error(err)
		}
		return scrapers.Plugin{ID: "status-test", Name: "Status test",
			Status: func() (string, string) { return "test-part", state.Load().(string) }}, nil
	}
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{ctor}})
	for _, want := range []string{"ok (a test part)", "degraded: the test part is down"} {
		state.Store(want)
		resp, body := do(t, mustReq(http.MethodGet, h.URL+"/readyz"))
		parts, _ := body["parts"].(map[string]any)
		if resp.StatusCode != http.StatusOK || parts["test-part"] != want {
			t.Fatalf("/readyz = %d %v, want test-part %q and 200", resp.StatusCode, body, want)
		}
	}
	counter.Inc()
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "pluginhost_test_part_total 1") {
		t.Fatalf("the plugin's series is not served: %s", rec.Body.String())
	}
}

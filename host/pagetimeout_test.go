package host_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// TestPageTimeoutReachesThePlugins: PAGE_TIMEOUT caps one page inside a
// call whose deadline is longer (without it, web-crawl would wait its own
// 20 s and meet the call's deadline first), and may not exceed CALL_DEADLINE.
func TestPageTimeoutReachesThePlugins(t *testing.T) {
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a page that answers only when the test ends
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer site.Close()
	defer close(release)
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Config: func(c *host.Config) {
		c.CallDeadline = 8 * time.Second // shorter than web-crawl's own 20 s page timeout
		c.PageTimeout = time.Second
		c.ResultCacheTTL = 0
	}})
	cs := h.Connect(t, "web-crawl", "key", nil)
	res := mustCall(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/"}})
	if !res.IsError || strings.Contains(text(res), "deadline (") {
		t.Fatalf("a page past PAGE_TIMEOUT should fail on its own, not at the call's deadline: %s", text(res))
	}

	env := map[string]string{"PAGE_TIMEOUT": "300s", "CALL_DEADLINE": "240s"}
	if _, err := host.FromEnv(func(k string) string { return env[k] }, true); err == nil || !strings.Contains(err.Error(), "PAGE_TIMEOUT") {
		t.Fatalf("PAGE_TIMEOUT past CALL_DEADLINE is not refused: %v", err)
	}
}

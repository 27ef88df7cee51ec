package host_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// MAX_PAGES_IN_FLIGHT and PAGES_MEMORY are read, refused with a clear
// error when wrong, and are the budget every plugin of the host shares,
// published beside the pages held.
func TestPageBudgetSettings(t *testing.T) {
	env := map[string]string{"LICENSE_BACKEND": "dev", "MAX_PAGES_IN_FLIGHT": "50", "PAGES_MEMORY": "128MiB"}
	cfg, err := host.FromEnv(func(k string) string { return env[k] }, false)
	if err != nil || cfg.MaxPagesInFlight != 50 || cfg.PagesMemory != 128<<20 {
		t.Fatalf("FromEnv: %v, %d pages, %d bytes", err, cfg.MaxPagesInFlight, cfg.PagesMemory)
	}
	for name, bad := range map[string]string{"MAX_PAGES_IN_FLIGHT": "0", "PAGES_MEMORY": "lots"} {
		env := map[string]string{"LICENSE_BACKEND": "dev", name: bad}
		if _, err := host.FromEnv(func(k string) string { return env[k] }, false); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, bad, err)
		}
	}
	if _, err := host.FromEnv(func(k string) string { return map[string]string{"LICENSE_BACKEND": "dev", "PAGES_MEMORY": "1KiB"}[k] }, false); err == nil || !strings.Contains(err.Error(), "at least 1MiB") {
		t.Errorf("PAGES_MEMORY=1KiB: %v", err)
	}

	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New},
		Config: func(c *host.Config) { c.MaxPagesInFlight, c.PagesMemory = 50, 128<<20 }})
	got := seriesOf(t, h, "pluginhost_pages_")
	for name, want := range map[string]string{"pluginhost_pages_in_flight_limit": "50", "pluginhost_pages_memory_limit_bytes": "1.34217728e+08",
		"pluginhost_pages_in_flight": "0", "pluginhost_pages_memory_bytes": "0"} {
		if got[name] != want {
			t.Errorf("%s = %q, want %s", name, got[name], want)
		}
	}
	// A page web-crawl fetches holds a place in the host's budget.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" { // read before the page, outside the budget
			http.NotFound(w, r)
			return
		}
		<-release
		io.WriteString(w, `<html><body><article><p>`+strings.Repeat("words ", 50)+`</p></article></body></html>`)
	}))
	defer slow.Close()
	cs := h.Connect(t, "web-crawl", "budget-key", nil)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{slow.URL + "/held"}}})
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for seriesOf(t, h, "pluginhost_pages_")["pluginhost_pages_in_flight"] != "1" {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("the page fetched is not in the host's budget: %v", seriesOf(t, h, "pluginhost_pages_"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// Unset, the defaults: 1024 pages, a quarter of the memory.
	d := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}})
	if got := seriesOf(t, d, "pluginhost_pages_"); got["pluginhost_pages_in_flight_limit"] != "1024" || got["pluginhost_pages_memory_limit_bytes"] == "" {
		t.Errorf("defaults: %v", got)
	}
}

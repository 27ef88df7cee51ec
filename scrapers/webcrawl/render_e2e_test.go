package webcrawl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/scrapertest"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func rendererPart(t *testing.T, h *hosttest.Host) string {
	t.Helper()
	parts, _ := getJSON(t, h.URL+"/readyz")["parts"].(map[string]any)
	s, _ := parts["renderer"].(string)
	return s
}

func metrics(t *testing.T, h *hosttest.Host) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

// TestRenderThroughTheHost: web-crawl built by the host from CHROMIUM_BIN
// renders over MCP, names its renderer in /readyz, counts renders by
// outcome, and a /cancel ends a render at once, cutting the page's requests.
func TestRenderThroughTheHost(t *testing.T) {
	bin := os.Getenv("CHROMIUM_BIN")
	if bin == "" {
		if p, err := exec.LookPath("chromium"); err == nil {
			bin = p
		} else {
			t.Skip("no chromium on this machine (apt-get install chromium, or set CHROMIUM_BIN): the rendering end-to-end test is skipped")
		}
	}
	forever := make(chan struct{}, 1)
	cut := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>`+
			`document.getElementById("root").innerHTML = "<article><h1>Through the host</h1><p>" + "Written by the page's script, long enough to be its main content. ".repeat(3) + "</p></article>";`+
			`</script><script src="/vendor.js"></script></body></html>`)
	})
	mux.HandleFunc("/vendor.js", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "// "+strings.Repeat("x", 5000)) })
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body><p>waiting</p><script>fetch("/forever")</script>`)
	})
	mux.HandleFunc("/forever", func(w http.ResponseWriter, r *http.Request) {
		forever <- struct{}{}
		<-r.Context().Done()
		cut <- struct{}{}
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New},
		Env: map[string]string{"CHROMIUM_BIN": bin, "RENDER_ALLOW_ADDRS": site.Listener.Addr().String(), "RENDER_CONCURRENCY": "2"}})
	if st := rendererPart(t, h); !strings.HasPrefix(st, "ok (") || !strings.Contains(st, "starts at the first render") {
		t.Fatalf("/readyz renderer before any render: %q", st)
	}

	cs := h.Connect(t, webcrawl.ID, hosttest.License, nil)
	res, page := scrapertest.CallTool(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/"}})
	if res.IsError || len(page.Items) != 1 {
		t.Fatalf("crawl: %s", scrapertest.Text(res))
	}
	it := page.Items[0]
	if it["rendered"] != true || !strings.Contains(it["markdown"].(string), "Written by the page's script") {
		t.Fatalf("the page was not rendered by default (auto): %v", it)
	}
	if st := rendererPart(t, h); !strings.HasPrefix(st, "ok (Chrome/") {
		t.Fatalf("/readyz renderer after a render: %q", st)
	}
	if m := metrics(t, h); !strings.Contains(m, `pluginhost_renders_total{outcome="ok",plugin="web-crawl"} 1`) {
		t.Fatalf("renders are not counted: %s", grep(m, "renders_total"))
	}

	// /cancel closes the tab at once and cuts the page's request.
	thread := http.Header{"X-Surfsense-Thread": {"render-thread"}}
	cs2 := h.Connect(t, webcrawl.ID, hosttest.License, thread)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{site.URL + "/hang"}, "render": "always"}})
		if err != nil {
			r = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- r
	}()
	select {
	case <-forever:
	case <-time.After(20 * time.Second):
		t.Fatal("the page's request never came")
	}
	req, _ := http.NewRequest(http.MethodPost, h.URL+"/cancel", strings.NewReader(`{"thread_id":"render-thread"}`))
	req.Header.Set("Authorization", "License "+hosttest.License)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"cancelled":1`) {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	select {
	case r := <-done:
		if !r.IsError || !strings.Contains(scrapertest.Text(r), "cancelled") {
			t.Fatalf("the cancelled call: %v %s", r.IsError, scrapertest.Text(r))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not end")
	}
	select {
	case <-cut:
	case <-time.After(3 * time.Second):
		t.Fatal("the page's request was not cut when the call was cancelled")
	}
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(metrics(t, h), `pluginhost_renders_total{outcome="cancelled",plugin="web-crawl"} 1`) {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled render is not counted: %s", grep(metrics(t, h), "renders_total"))
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The host's Close (serve calls it after the drain) stops the browser
	// web-crawl started: /readyz says so and a render is refused.
	h.Close()
	if st := rendererPart(t, h); st != "degraded: closed" {
		t.Fatalf("/readyz renderer after the host's Close: %q", st)
	}
	res, _ = scrapertest.CallTool(t, cs, "crawl", map[string]any{"start_urls": []string{site.URL + "/?after-close"}, "render": "always"})
	if !strings.Contains(scrapertest.Text(res), "closed") {
		t.Fatalf("a render after the host's Close: %s", scrapertest.Text(res))
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

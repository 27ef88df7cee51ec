package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

// TestUpstreamAttemptsCountedPerCall: every attempt a plugin's fetcher
// makes (a retry included) reaches the call's own count, which its log line
// reports.
func TestUpstreamAttemptsCountedPerCall(t *testing.T) {
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("0123456789"))
	}))
	defer site.Close()
	type args struct{}
	ctor := func(env scrapers.Env) (scrapers.Plugin, error) {
		f, err := scrapers.NewFetcher(env, scrapers.Site{ID: "counted", Origin: "https://counted.example", Domains: []string{"counted.example"}, BaseBackoff: time.Millisecond})
		if err != nil {
			return scrapers.Plugin{}, err
		}
		tool := scrapers.NewTool("get", "Get", "gets one page", nil, func(ctx context.Context, call *scrapers.Call, _ args) error {
			resp, err := f.Get(ctx, "https://counted.example/page")
			if err != nil {
				return err
			}
			call.Add(map[string]any{"url": "https://counted.example/page", "bytes": len(resp.Body)})
			return nil
		})
		return scrapers.Plugin{ID: "counted", Name: "Counted", Tools: []scrapers.Tool{tool}}, nil
	}
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, nil))
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{ctor}, Env: map[string]string{"COUNTED_BASE_URL": site.URL}, Logger: logger})
	cs := h.Connect(t, "counted", "key", nil)
	mustCall(t, cs, "get", map[string]any{})
	// The request's line is written once its response has gone.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		done := strings.Contains(buf.String(), `"method":"tools/call"`)
		mu.Unlock()
		if done {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range strings.Split(buf.String(), "\n") {
		if !strings.Contains(line, `"msg":"mcp request"`) || !strings.Contains(line, `"method":"tools/call"`) {
			continue
		}
		var rec struct {
			Requests int    `json:"upstream_requests"`
			Bytes    int    `json:"upstream_bytes"`
			Served   string `json:"served"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Requests != 2 || rec.Bytes != 10 || rec.Served != "fresh" {
			t.Fatalf("the call counted %d upstream requests and %d bytes, want 2 (a 503, then the page) and 10, served fresh: %s", rec.Requests, rec.Bytes, line)
		}
		return
	}
	t.Fatalf("no tools/call request line was logged:\n%s", buf.String())
}

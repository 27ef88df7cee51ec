package host_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/scrapers"
)

// heldPlugin's tool waits, once started, for a value on release or the end
// of its context.
type heldPlugin struct {
	started chan struct{}
	release chan struct{}
}

type heldArgs struct {
	N int `json:"n"`
}

func (hp *heldPlugin) ctor(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "held", Name: "Held", Tools: []scrapers.Tool{
		scrapers.NewTool("hold", "Hold", "waits until released", nil, func(ctx context.Context, call *scrapers.Call, a heldArgs) error {
			call.Add(map[string]any{"url": fmt.Sprintf("https://example.com/%d", a.N)})
			hp.started <- struct{}{}
			select {
			case <-hp.release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}),
	}}, nil
}

// recordCalls keeps the last tools/call request a client sent.
type recordCalls struct {
	mu     sync.Mutex
	header http.Header
	body   []byte
}

func (rc *recordCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(body, []byte(`"tools/call"`)) {
		rc.mu.Lock()
		rc.header, rc.body = r.Header.Clone(), body
		rc.mu.Unlock()
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	return http.DefaultTransport.RoundTrip(r)
}

// A tool call held in flight waits on its request's goroutine, under the
// route's steps and the call's own frames, and that goroutine's stack is
// the largest part of what the call holds: it must stay within Go's 8 KB
// (callHandler, mcpRoute). In a child process, where no goroutine may grow
// its stack past 8 KB (debug.SetMaxStack) while calls start, send their
// keep-alive and progress, and wait, it holds the official Go SDK client's
// call (2026-07-28, with a progress token, its bytes as recorded) and a
// 2025-11-25 one. A stack that needs more ends the child with that stack,
// printed here.
func TestCallWaitsOnASmallStack(t *testing.T) {
	if os.Getenv("HOST_TEST_SMALL_STACK") == "" {
		// Goroutines start at the smallest stack (not at the average of
		// the process's), so that one that needs more than 8 KB grows.
		cmd := exec.Command(os.Args[0], "-test.run=^TestCallWaitsOnASmallStack$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HOST_TEST_SMALL_STACK=1", "GODEBUG=adaptivestackstart=0")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestCallWaitsOnASmallStack")) {
			t.Fatalf("the child process (stacks of at most 8 KB): %v\n%s", err, out)
		}
		return
	}
	host.ProgressInterval, host.KeepAliveInterval = 20*time.Millisecond, 40*time.Millisecond
	hp := &heldPlugin{started: make(chan struct{}, 1), release: make(chan struct{}, 1)}
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{hp.ctor}})
	endpoint := h.URL + "/held/mcp"

	// The SDK client's call, recorded; it is also the process's first,
	// which fills the caches a first call fills (encoding/json's fields
	// of the result and of a progress notification), released once its
	// progress is heard.
	rec := &recordCalls{}
	ctx := context.Background()
	var heard sync.Once
	cs, err := mcpdial.Connect(ctx, endpoint, "k", nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			heard.Do(func() { hp.release <- struct{}{} })
		},
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{"n": 0}, Meta: mcp.Meta{"progressToken": "first"}})
	if err != nil || res.IsError {
		t.Fatalf("the first call: %v %s", err, text(res))
	}
	<-hp.started
	rec.mu.Lock()
	sdkHeader, sdkBody := rec.header, rec.body
	rec.mu.Unlock()
	if sdkHeader.Get("MCP-Protocol-Version") < "2026-07-28" {
		t.Fatalf("the SDK client sent protocol %q, not 2026-07-28 or later", sdkHeader.Get("MCP-Protocol-Version"))
	}

	calls := []struct {
		name   string
		header http.Header
		body   string
	}{
		{"the Go SDK client's", sdkHeader, strings.Replace(string(sdkBody), `"n":0`, `"n":1`, 1)},
		{"2025-11-25's", http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Authorization": {"License k"}, "Mcp-Protocol-Version": {"2025-11-25"}},
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{"n":2},"_meta":{"progressToken":"p2"}}}`},
	}
	for _, c := range calls {
		if !strings.Contains(c.body, `"n":`) || strings.Contains(c.body, `"n":0`) {
			t.Fatalf("%s call does not ask for a page of its own: %s", c.name, c.body)
		}
		before := host.DirectCalls(h.Host)
		old := debug.SetMaxStack(8 << 10)
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(c.body))
		req.Header = c.header.Clone()
		progress := make(chan struct{}, 100)
		answer := make(chan string, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answer <- err.Error()
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				switch line := sc.Text(); {
				case strings.Contains(line, `"notifications/progress"`):
					progress <- struct{}{}
				case strings.Contains(line, `"result"`):
					answer <- line
					return
				}
			}
			answer <- fmt.Sprintf("the stream ended without a result (%v)", sc.Err())
		}()
		<-hp.started
		for i := 0; i < 3; i++ {
			select {
			case <-progress:
			case a := <-answer:
				t.Fatalf("%s call answered before it was released: %s", c.name, a)
			case <-time.After(10 * time.Second):
				t.Fatalf("%s call: %d progress notifications in 10 s at a 20 ms interval", c.name, i)
			}
		}
		time.Sleep(3 * host.KeepAliveInterval) // the keep-alive fills a silence
		debug.SetMaxStack(old)
		hp.release <- struct{}{}
		if a := <-answer; strings.Contains(a, `"isError":true`) || !strings.Contains(a, "example.com") {
			t.Fatalf("%s call's answer: %s", c.name, a)
		}
		if host.DirectCalls(h.Host) != before+1 {
			t.Fatalf("%s call went through the SDK, not the host's direct path", c.name)
		}
	}
}

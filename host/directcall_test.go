package host_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

type echoArgs struct {
	Items    int    `json:"items"`
	Progress int    `json:"progress,omitempty"`
	Fail     string `json:"fail,omitempty"`
	Partial  bool   `json:"partial,omitempty"`
	Text     string `json:"text,omitempty"`
}

// echoPlugin's tool answers from its arguments alone, so that two hosts
// answer a call with the same bytes.
func echoPlugin(scrapers.Env) (scrapers.Plugin, error) {
	return scrapers.Plugin{ID: "echo", Name: "Echo", Tools: []scrapers.Tool{
		scrapers.NewTool("echo", "Echo", "answers from its arguments", nil, func(ctx context.Context, call *scrapers.Call, a echoArgs) error {
			if a.Items < 0 || a.Items > 50 || a.Progress > 5 {
				return scrapers.Argf("items", "must be between 0 and 50")
			}
			for i := range a.Progress {
				call.Progress("step <"+a.Text+">", i+1, a.Progress)
			}
			for i := range a.Items {
				call.Add(map[string]any{"url": fmt.Sprintf("https://example.com/%d?a=1&b=2", i), "n": i, "text": a.Text})
			}
			if a.Partial {
				call.MarkPartial("stopped at the test's word")
			}
			if a.Fail != "" {
				return &scrapers.BlockedError{Site: "Example", Kind: a.Fail}
			}
			return nil
		}),
	}}, nil
}

// unlimited is a host without a result cache or limits on calls: the
// corpus sends hundreds of calls from one license.
func unlimited(c *host.Config) {
	c.ResultCacheTTL, c.RateLimitPerMinute, c.MaxConcurrentCalls = 0, 0, 0
}

// directCorpus is the tools/call requests the differential test sends.
func directCorpus() []fastRequest {
	type shape struct {
		params  string
		real    bool
		notFast bool
	}
	shapes := []shape{
		{params: `{"name":"echo","arguments":{"items":2}}`, real: true},
		{params: `{"name":"echo","arguments":{"items":3,"progress":2,"text":"<b>&amp;</b> é"},"_meta":{"progressToken":"p-1"}}`, real: true},
		{params: `{"name":"echo","arguments":{"items":1,"progress":3},"_meta":{"progressToken":7}}`, real: true},
		{params: `{"name":"echo","arguments":{"items":1,"progress":1},"_meta":{"progressToken":"a\"b"}}`, notFast: true},
		{params: `{"name":"echo","arguments":{"items":1,"progress":1},"_meta":{"progressToken":{"x":1}}}`, notFast: true},
		{params: `{"name":"echo"}`},
		{params: `{"name":"echo","arguments":null}`, notFast: true},
		{params: `{"name":"echo","arguments":[]}`, notFast: true},
		{params: `{"name":"echo","arguments":{"items":"x"}}`},
		{params: `{"name":"echo","arguments":{"items":1,"unknown":true}}`},
		{params: `{"name":"echo","arguments":{"items":99}}`},
		{params: `{"name":"echo","arguments":{"items":1,"fail":"captcha"}}`},
		{params: `{"name":"echo","arguments":{"items":2,"partial":true}}`},
		{params: `{"name":"echo","arguments":{"items":0}}`},
		{params: `{"name":"echo","arguments":{"items":1,"max_age_seconds":0}}`},
		{params: `{"name":"get_result","arguments":{"result_id":"nope"}}`},
		{params: `{"name":"nope","arguments":{}}`, notFast: true},
		{params: `{"name":5}`, notFast: true},
		{params: `{"name":"ec\u0068o","arguments":{"items":1}}`, notFast: true},
		{params: `{"name":"echo","arguments":{"items":1},"extra":1}`, notFast: true},
		{params: `{"name":"echo","name":"echo","arguments":{"items":1}}`, notFast: true},
		{params: `{"name":"echo","arguments":{"items":1},"_meta":{"` + "io.modelcontextprotocol/protocolVersion" + `":"2025-11-25"}}`, notFast: true},
	}
	var out []fastRequest
	for _, hv := range []string{"", "2025-11-25", "2025-06-18", "2026-07-28"} {
		newProto := hv >= "2026-07-28"
		for _, mcpName := range []string{"ok", "missing", "other"} {
			if !newProto && mcpName != "ok" {
				continue
			}
			for i, s := range shapes {
				for _, accept := range []string{"application/json, text/event-stream", "text/event-stream", "application/json"} {
					params := s.params
					if newProto { // 2026-07-28 carries its version and the client's capabilities in _meta
						meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
						if strings.Contains(params, `"_meta":{`) {
							params = strings.Replace(params, `"_meta":{`, `"_meta":{`+meta+`,`, 1)
						} else {
							params = strings.TrimSuffix(params, "}") + `,"_meta":{` + meta + `}}`
						}
						if strings.Contains(s.params, "protocolVersion") {
							continue
						}
					}
					h := http.Header{"Content-Type": {"application/json"}, "Accept": {accept}, "Authorization": {"License differential-key"}}
					if hv != "" {
						h.Set("MCP-Protocol-Version", hv)
					}
					if newProto {
						h.Set("Mcp-Method", "tools/call")
						switch mcpName {
						case "ok":
							if name, ok := strings.CutPrefix(s.params, `{"name":"`); ok {
								h.Set("Mcp-Name", name[:strings.IndexByte(name, '"')])
							}
						case "other":
							h.Set("Mcp-Name", "other")
						}
					}
					if i%2 == 1 {
						h.Set("x-surfsense-text-only", "1")
					}
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, len(out)+1, params)
					out = append(out, fastRequest{header: h, body: body, jsonOnly: accept == "application/json",
						real:    s.real && mcpName == "ok",
						notFast: s.notFast || mcpName != "ok"})
				}
			}
		}
	}
	return out
}

func directHosts(t *testing.T) (direct, sdk *hosttest.Host) {
	opts := hosttest.Options{Plugins: []scrapers.Constructor{echoPlugin}, Config: unlimited}
	direct, sdk = hosttest.Start(t, opts), hosttest.Start(t, opts)
	host.SetSDKOnly(sdk.Host, true)
	return direct, sdk
}

// A tool call run by the host itself answers with the SDK's bytes: the
// same events (progress, then the result) encoded the same way, for every
// shape of the corpus; the shapes real clients send are run directly, and
// the rest (unknown tools, params the SDK reads otherwise, 2026-07-28
// without its headers) go to the SDK. A client that takes only JSON gets
// the SDK's result after the keep-alive's newlines, without the progress
// the SDK would put in an array around it at the end.
func TestDirectCallsMatchTheSDK(t *testing.T) {
	direct, sdk := directHosts(t)
	took := differential(t, direct, sdk, "/echo/mcp", directCorpus(), host.DirectCalls)
	t.Logf("%d direct calls, all answered as the SDK answers", took)
}

// The official Go SDK client's calls (2026-07-28, with a progress token)
// run directly: the client reads the same result and the same progress.
func TestDirectCallsServeTheGoSDKClient(t *testing.T) {
	direct, sdk := directHosts(t)
	ctx := context.Background()
	call := func(h *hosttest.Host) (string, []string) {
		progress := make(chan string, 10)
		cs, err := hosttest.Connect(ctx, h.URL+"/echo/mcp", "k", nil, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				progress <- fmt.Sprintf("%v %s %v/%v", r.Params.ProgressToken, r.Params.Message, r.Params.Progress, r.Params.Total)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"items": 2, "progress": 2, "text": "<x>"}, Meta: mcp.Meta{"progressToken": "tok"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := res.MarshalJSON()
		// The client hands notifications to its handler on a goroutine
		// of their own: they may come after the result.
		var got []string
		for len(got) < 2 {
			select {
			case p := <-progress:
				got = append(got, p)
			case <-time.After(10 * time.Second):
				t.Fatalf("progress heard: %v, want two notifications", got)
			}
		}
		slices.Sort(got)
		return string(b), got
	}
	gotRes, gotProg := call(direct)
	wantRes, wantProg := call(sdk)
	if host.DirectCalls(direct.Host) != 1 {
		t.Fatalf("direct calls = %d, want the client's one", host.DirectCalls(direct.Host))
	}
	if gotRes != wantRes || fmt.Sprint(gotProg) != fmt.Sprint(wantProg) || len(gotProg) != 2 {
		t.Fatalf("direct: %s %v\nsdk:    %s %v", gotRes, gotProg, wantRes, wantProg)
	}
}

// A call run directly holds fewer goroutines than one run by the SDK: the
// SDK's session reads and handles each request on goroutines of its own.
func TestDirectCallHoldsFewerGoroutines(t *testing.T) {
	sp := newSlow()
	opts := hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: unlimited}
	held := func(sdkOnly bool) float64 {
		h := hosttest.Start(t, opts)
		host.SetSDKOnly(h.Host, sdkOnly)
		cs := h.Connect(t, "slow", "k", nil)
		base := runtime.NumGoroutine()
		const n = 20
		done := make(chan struct{}, n)
		for range n {
			go func() {
				defer func() { done <- struct{}{} }()
				_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"items": 1, "wait": true}})
			}()
		}
		for range n {
			<-sp.started
		}
		time.Sleep(100 * time.Millisecond) // every call is waiting now
		per := float64(runtime.NumGoroutine()-base) / n
		for range n {
			sp.release <- struct{}{}
		}
		for range n {
			<-done
		}
		return per
	}
	viaSDK, viaHost := held(true), held(false)
	t.Logf("goroutines per held call (client side included): SDK %.2f, direct %.2f", viaSDK, viaHost)
	// The SDK's session reads and handles each request on two goroutines
	// of its own; a few others coming and going are noise.
	if viaHost > viaSDK-1.5 {
		t.Fatalf("a direct call holds %.2f goroutines, the SDK's %.2f: want two fewer", viaHost, viaSDK)
	}
}

package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
	"github.com/surfsense/pluginhost/scrapers/webcrawl"
)

// fastRequest is one request of the differential corpus.
type fastRequest struct {
	header  http.Header
	body    string
	real    bool // a shape a real client sends: it must take the fast path
	notFast bool // a shape the fast path must leave to the SDK
	// jsonOnly: a tool call of a client that takes only JSON, which the
	// host answers after keep-alive newlines and without progress (see
	// jsonAnswer).
	jsonOnly bool
}

// jsonAnswer is the one JSON-RPC response of a JSON body: the SDK's JSON
// answer to a call that sent progress is an array of the notifications and
// the response, the host's the response alone after keep-alive newlines.
func jsonAnswer(body []byte) []byte {
	body = bytes.TrimLeft(body, " \t\r\n")
	var all []json.RawMessage
	if len(body) > 0 && body[0] == '[' && json.Unmarshal(body, &all) == nil && len(all) > 0 {
		return all[len(all)-1]
	}
	return body
}

const (
	pvKey   = `"io.modelcontextprotocol/protocolVersion"`
	capsKey = `"io.modelcontextprotocol/clientCapabilities"`
	infoKey = `"io.modelcontextprotocol/clientInfo"`
)

// fastCorpus is every request shape the test sends: each protocol version
// (and a few the host does not speak), with and without 2026-07-28's
// headers and _meta, both answer forms, text-only on and off, ids of every
// spelling, cursors, and params of every wrong kind.
func fastCorpus() []fastRequest {
	headers := append([]string{""}, mcp.SupportedProtocolVersions()...)
	headers = append(headers, "2027-01-01", "2024-01-01")
	accepts := []string{"application/json, text/event-stream", "application/json", "text/event-stream", "*/*"}
	ids := []string{`1`, `0`, `42`, `1000000`, `9007199254740993`, `123456789012345`, `1234567890123456`, `-1`, `007`,
		`"a"`, `"abc-1.2:3_x"`, `""`, `"with space"`, `"é"`, `"\u0041"`, `"<x>"`, `"a\"b"`}
	var out []fastRequest
	n, turn := 0, 0
	for _, hv := range headers {
		newProto := hv >= "2026-07-28"
		meta := func(extra string) string {
			return `{` + pvKey + `:"` + hv + `",` + capsKey + `:{"roots":{"listChanged":true}},` + infoKey + `:{"name":"pluginhost","version":"1"}` + extra + `}`
		}
		type shape struct {
			method, params string
			real, notFast  bool
			mcpMethod      string // "" is the method itself
		}
		shapes := []shape{
			// initialize, as the TypeScript SDK and older Go clients send it
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"opencode","version":"1.0.0"}}`, real: !newProto && hv != "2024-01-01"},
			{method: "initialize", params: `{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"inspector","version":"0.1","title":"MCP Inspector"}}`, real: !newProto && hv != "2024-01-01"},
			{method: "initialize", params: `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"x","version":"1"},"_meta":{"progressToken":3}}`},
			{method: "initialize", params: `{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`},
			{method: "initialize", params: `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`},
			{method: "initialize", params: `{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":"all","clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{"roots":5},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{"ROOTS":5},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":5}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"},"extra":1}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"},"_meta":{` + pvKey + `:"2025-11-25"}}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"},"_meta":5}`, notFast: true},
			{method: "initialize", params: `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"x","version":"1"},"_meta":` + meta("") + `}`},
			{method: "initialize", params: `null`, notFast: true},
			// tools/list
			{method: "tools/list", params: ``, real: !newProto && hv != "2024-01-01"},
			{method: "tools/list", params: `{}`, real: !newProto && hv != "2024-01-01"},
			{method: "tools/list", params: `{"_meta":{"progressToken":"t"}}`},
			{method: "tools/list", params: `{"cursor":"x"}`, notFast: true},
			{method: "tools/list", params: `{"cursor":""}`, notFast: true},
			{method: "tools/list", params: `{"_meta":5}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{},"_meta":{}}`, notFast: true},
			{method: "tools/list", params: `{"other":1}`, notFast: true},
			// the Go SDK client's shape from 2026-07-28 on
			{method: "tools/list", params: `{"_meta":` + meta("") + `}`, real: newProto && slices.Contains(mcp.SupportedProtocolVersions(), hv)},
			{method: "tools/list", params: `{"_meta":` + meta(`,"io.modelcontextprotocol/logLevel":"debug","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`) + `}`},
			{method: "tools/list", params: `{"_meta":` + meta("") + `,"cursor":"x"}`, notFast: true},
			{method: "tools/list", params: `{"_meta":` + meta("") + `}`, mcpMethod: "-", notFast: true},
			{method: "tools/list", params: `{"_meta":` + meta("") + `}`, mcpMethod: "tools/call", notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:"2026-07-28"}}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:"2026-07-28",` + capsKey + `:5}}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:"2026-07-28",` + capsKey + `:{},` + infoKey + `:5}}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:"2026-07-28",` + capsKey + `:{},` + infoKey + `:null}}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:"2025-11-25",` + capsKey + `:{}}}`, notFast: true},
			{method: "tools/list", params: `{"_meta":{` + pvKey + `:5,` + capsKey + `:{}}}`, notFast: true},
			// server/discover, 2026-07-28's initialize
			{method: "server/discover", params: `{"_meta":` + meta("") + `}`, real: newProto && slices.Contains(mcp.SupportedProtocolVersions(), hv)},
			{method: "server/discover", params: ``, notFast: true},
			{method: "server/discover", params: `{"_meta":{` + pvKey + `:"2026-07-28",` + capsKey + `:{"roots":"yes"}}}`, notFast: true},
			// ping and the initialized notification
			{method: "ping", params: ``, real: !newProto && hv != "2024-01-01"},
			{method: "ping", params: `{"_meta":` + meta("") + `}`},
			{method: "notifications/initialized", params: ``, real: !newProto && hv != "2024-01-01"},
			{method: "notifications/initialized", params: `{}`},
			{method: "notifications/initialized", params: `{"_meta":{}}`, notFast: true},
		}
		for _, s := range shapes {
			turn++
			for ai, accept := range accepts {
				for _, textOnly := range []bool{false, true} {
					// Every form of a real client's shape; one form,
					// turn by turn, of the others.
					if !s.real && (turn%len(accepts) != ai || textOnly != ((turn/len(accepts))%2 == 1)) {
						continue
					}
					id := ids[n%len(ids)]
					n++
					body := `{"jsonrpc":"2.0"`
					if !strings.HasPrefix(s.method, "notifications/") {
						body += `,"id":` + id
					}
					body += `,"method":"` + s.method + `"`
					if s.params != "" {
						body += `,"params":` + s.params
					}
					body += "}"
					h := http.Header{"Content-Type": {"application/json"}, "Accept": {accept}, "Authorization": {"License differential-key"}}
					if hv != "" {
						h.Set("MCP-Protocol-Version", hv)
					}
					switch {
					case s.mcpMethod == "-":
					case s.mcpMethod != "":
						h.Set("Mcp-Method", s.mcpMethod)
					case hv >= "2026-07-28":
						h.Set("Mcp-Method", s.method)
					}
					if textOnly {
						h.Set("x-surfsense-text-only", "1")
					}
					plainID := strings.HasPrefix(s.method, "notifications/") || slices.Contains([]string{`1`, `0`, `42`, `1000000`, `123456789012345`, `"a"`, `"abc-1.2:3_x"`, `""`}, id)
					out = append(out, fastRequest{header: h, body: body, real: s.real && plainID, notFast: s.notFast})
				}
			}
		}
	}
	return out
}

// fastHosts are the same host twice: one with its fast answers, one where
// the SDK answers everything.
func fastHosts(t *testing.T) (fast, sdk *hosttest.Host) {
	plugins := []scrapers.Constructor{webcrawl.New, newSlow().ctor}
	fast = hosttest.Start(t, hosttest.Options{Plugins: plugins})
	sdk = hosttest.Start(t, hosttest.Options{Plugins: plugins})
	host.SetSDKOnly(sdk.Host, true)
	return fast, sdk
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func ask(t *testing.T, url string, r fastRequest) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = r.header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Clone()
	// Framing and per-request headers: the fast answer is written at once,
	// the SDK's is flushed, so one may carry a length the other streams.
	for _, k := range []string{"Date", "X-Request-Id", "Content-Length", "Transfer-Encoding"} {
		h.Del(k)
	}
	return answer{resp.StatusCode, h, b}
}

// differential sends every request of corpus to fast (the host's own
// paths on) and to sdk (the SDK answering everything) at path and requires
// the same status, headers and bytes; the shapes real clients send must
// have taken the host's path (counted by taken), and those marked notFast
// must not have. It returns how many took it.
func differential(t *testing.T, fast, sdk *hosttest.Host, path string, corpus []fastRequest, taken func(*host.Host) int64) int {
	t.Helper()
	took, real := 0, 0
	for i, r := range corpus {
		before := taken(fast.Host)
		got := ask(t, fast.URL+path, r)
		own := taken(fast.Host) > before
		want := ask(t, sdk.URL+path, r)
		if r.jsonOnly && own {
			got.body, want.body = jsonAnswer(got.body), jsonAnswer(want.body)
		}
		if got.status != want.status || !bytes.Equal(got.body, want.body) || fmt.Sprint(got.header) != fmt.Sprint(want.header) {
			t.Fatalf("request %d to %s (the host's path: %v)\n%v\n%s\nhost: %d %v\n%.600s\nsdk:  %d %v\n%.600s", i, path, own, r.header, r.body,
				got.status, got.header, got.body, want.status, want.header, want.body)
		}
		if r.real {
			real++
			if !own {
				t.Errorf("request %d (%v %s) is what real clients send but the SDK answered it", i, r.header, r.body)
			}
		}
		if r.notFast && own {
			t.Errorf("request %d (%v %s) took the host's path, which cannot prove its answer", i, r.header, r.body)
		}
		if own {
			took++
		}
	}
	if taken(sdk.Host) != 0 {
		t.Fatal("the reference host answered without the SDK")
	}
	if real == 0 || took < real {
		t.Fatalf("%d requests took the host's path, of %d real clients' shapes", took, real)
	}
	return took
}

// The fast answers are the SDK's answers, byte for byte, for every shape of
// the corpus; the shapes real clients send take the fast path, and those the
// fast path cannot prove identical go to the SDK.
func TestFastAnswersMatchTheSDK(t *testing.T) {
	fast, sdk := fastHosts(t)
	corpus := fastCorpus()
	took := 0
	for _, plugin := range []string{"web-crawl", "slow"} {
		took += differential(t, fast, sdk, "/"+plugin+"/mcp", corpus, host.FastAnswered)
	}
	t.Logf("%d requests, %d answered by the fast path, all the same as the SDK's", 2*len(corpus), took)
}

// The official Go SDK client (server/discover and tools/list of 2026-07-28)
// is answered by the fast path and reads the same tools as from the SDK.
func TestFastAnswersServeTheGoSDKClient(t *testing.T) {
	fast, sdk := fastHosts(t)
	ctx := context.Background()
	list := func(h *hosttest.Host) []*mcp.Tool {
		cs, err := hosttest.Connect(ctx, h.URL+"/web-crawl/mcp", "k", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools
	}
	got, want := list(fast), list(sdk)
	if n := host.FastAnswered(fast.Host); n < 2 {
		t.Fatalf("the fast path answered %d of the client's requests, want its discover and tools/list", n)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) || len(got) == 0 {
		t.Fatalf("tools differ:\nfast %s\nsdk  %s", gj, wj)
	}
}

// A refusal before the MCP handler (no license) is the same whether or not
// the fast answers are on, and is not counted as one.
func TestFastAnswersAfterTheLicense(t *testing.T) {
	fast, _ := fastHosts(t)
	req, _ := http.NewRequest(http.MethodPost, fast.URL+"/web-crawl/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || host.FastAnswered(fast.Host) != 0 {
		t.Fatalf("tools/list without a key: %s, fast answers %d", resp.Status, host.FastAnswered(fast.Host))
	}
}

// BenchmarkToolsList is one tools/list through the host's whole handler
// (license, body gate, limits, metrics, log line), answered by the fast path
// and by the SDK, side by side.
func BenchmarkToolsList(b *testing.B) {
	plugins := []scrapers.Constructor{webcrawl.New}
	h := hosttest.Start(b, hosttest.Options{Plugins: plugins})
	handler := h.Handler()
	for _, mode := range []struct {
		name    string
		sdkOnly bool
	}{{"fast", false}, {"sdk", true}} {
		for _, m := range []struct{ name, version, body string }{
			{"tools-list", "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			{"initialize", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"opencode","version":"1.0.0"}}}`},
		} {
			b.Run(mode.name+"/"+m.name, func(b *testing.B) {
				host.SetSDKOnly(h.Host, mode.sdkOnly)
				b.ReportAllocs()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPost, "/web-crawl/mcp", strings.NewReader(m.body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Authorization", "License bench-key")
					if m.version != "" {
						req.Header.Set("MCP-Protocol-Version", m.version)
					}
					w := &discardWriter{h: http.Header{}}
					handler.ServeHTTP(w, req)
					if w.status != http.StatusOK {
						b.Fatalf("status %d", w.status)
					}
				}
			})
		}
	}
}

type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
func (w *discardWriter) WriteHeader(s int) { w.status = s }
func (w *discardWriter) Flush()            {}

// A fast answer is a request like any other for the host's books: counted
// in mcp_server_operation_duration_seconds and logged on its one line. (The
// rate limit and the cap on calls in flight apply to tools/call only, as
// before.)
func TestFastAnswersAreCountedAndLogged(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&buf, &mu}, nil))
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{webcrawl.New}, Logger: logger})
	list := fastRequest{header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Authorization": {"License books-key"}, "Mcp-Protocol-Version": {"2025-11-25"}}, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}
	for range 3 {
		if a := ask(t, h.URL+"/web-crawl/mcp", list); a.status != http.StatusOK {
			t.Fatalf("tools/list: %d %s", a.status, a.body)
		}
	}
	if n := host.FastAnswered(h.Host); n != 3 {
		t.Fatalf("fast answers %d, want 3", n)
	}
	// The duration is recorded once the answer has gone out, so the third
	// may be a moment behind the client.
	want := `mcp_server_operation_duration_seconds_count{error_type="",gen_ai_tool_name="",mcp_method_name="tools/list",plugin="web-crawl"} 3`
	for deadline := time.Now().Add(5 * time.Second); ; {
		rec := httptest.NewRecorder()
		h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		if strings.Contains(rec.Body.String(), want) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("metrics lack %s", want)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := strings.Count(buf.String(), `"msg":"mcp request"`)
		logged := buf.String()
		mu.Unlock()
		if n == 3 && strings.Count(logged, `"method":"tools/list"`) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d request lines, want 3 of tools/list:\n%s", n, logged)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

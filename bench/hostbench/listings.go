package hostbench

// tools/list and initialize of web-crawl under a light load generator
// (loadgen.go), on four servers side by side in one run, alternating: the
// host, a bare Go SDK server listing the same tools, the official
// TypeScript SDK server listing the same tools, and the floor (net/http
// writing the bytes the host answers, nothing else).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// The requests as the TypeScript SDK client (opencode's) sends them once
// initialized: the SDK's JSON (method first, no params for tools/list) with
// its headers; the protocol version header is sent on initialize too, as the
// Go SDK client does.
const (
	listBody = `{"method":"tools/list","jsonrpc":"2.0","id":1}`
	initBody = `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}},"jsonrpc":"2.0","id":0}`
	// benchProtocol is the protocol version the requests speak.
	benchProtocol = "2025-11-25"
)

func benchHeaders() [][2]string {
	return [][2]string{
		{"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"},
		{"MCP-Protocol-Version", benchProtocol},
		{"Authorization", "License bench-key"},
	}
}

// Served is one server's figures for one method.
type Served struct {
	Stats
	BodyBytes  int    // the size of an answer's body
	FirstError string // the first failed request's error, if any
}

// ListReport is one method (tools/list or initialize) on the four servers.
type ListReport struct {
	Method                string
	Host, Bare, TS, Floor Served
	// TSSkipped says why the TypeScript server was not measured ("" when
	// it was).
	TSSkipped string
}

// method is a request measured on every server and what its good answer
// contains.
type method struct {
	name, body string
	expect     []string
}

var listMethods = []method{
	{"tools/list", listBody, []string{`"tools":[`, `"name":"crawl"`}},
	{"initialize", initBody, []string{`"protocolVersion":"` + benchProtocol + `"`, `"serverInfo"`}},
}

// loadTarget is a server's address and MCP path.
type loadTarget struct {
	name, addr, path string
	out              func(*ListReport) *Served
}

// Listings measures tools/list and initialize on the host (hostURL is its
// web-crawl MCP endpoint) and the bare server (bareURL), starting the TypeScript
// server and the floor from the host's own answers.
func Listings(ctx context.Context, opts Options, hostURL, bareURL string, w io.Writer) ([]ListReport, error) {
	opts.defaults()
	answers := map[string]hostAnswer{}
	for _, m := range listMethods {
		a, err := captureAnswer(ctx, hostURL, m.body)
		if err != nil {
			return nil, fmt.Errorf("the host's %s answer: %w", m.name, err)
		}
		answers[m.name] = a
	}
	floor := httptest.NewServer(floorHandler(answers))
	defer floor.Close()
	targets := []loadTarget{
		{"host", addrOf(hostURL), pathOf(hostURL), func(r *ListReport) *Served { return &r.Host }},
		{"bare", addrOf(bareURL), pathOf(bareURL), func(r *ListReport) *Served { return &r.Bare }},
	}
	skipped := ""
	switch dir, why := findTSDir(opts.TSDir); {
	case opts.SkipTS:
		skipped = "skipped (-skip-ts)"
	case why != "":
		skipped = "skipped: " + why
	default:
		listing, err := tsListing(answers)
		if err != nil {
			return nil, err
		}
		ts, err := startTSServer(ctx, dir, listing)
		if err != nil {
			return nil, fmt.Errorf("the TypeScript SDK server: %w", err)
		}
		defer ts.stop()
		targets = append(targets, loadTarget{"ts", ts.addr, "/mcp", func(r *ListReport) *Served { return &r.TS }})
	}
	targets = append(targets, loadTarget{"floor", addrOf(floor.URL), "/", func(r *ListReport) *Served { return &r.Floor }})

	what := fmt.Sprintf("%d requests per connection", opts.LoadRequests)
	if opts.LoadRequests == 0 {
		what = fmt.Sprintf("%s per server per round", opts.Duration)
	}
	fmt.Fprintf(w, "\ntools/list and initialize of web-crawl, raw HTTP/1.1 load: %d keep-alive connections, %s, %d rounds alternating the servers\n",
		opts.Connections, what, opts.Rounds)
	results := make(map[string]map[string]*LoadResult)
	for _, m := range listMethods {
		results[m.name] = map[string]*LoadResult{}
		for _, t := range targets {
			results[m.name][t.name] = &LoadResult{}
		}
	}
	for round := range opts.Rounds {
		for _, m := range listMethods {
			for k := range targets {
				t := targets[(k+round)%len(targets)] // each round starts at another server
				l := Load{Addr: t.addr, Request: PostRequest(t.addr, t.path, benchHeaders(), m.body), Expect: m.expect,
					Connections: opts.Connections, Duration: opts.Duration, Requests: opts.LoadRequests, Warmup: opts.Warmup}
				res, err := l.Run(ctx)
				if err != nil {
					return nil, fmt.Errorf("%s on %s: %w", m.name, t.name, err)
				}
				acc := results[m.name][t.name]
				acc.Latencies = append(acc.Latencies, res.Latencies...)
				acc.Errors += res.Errors
				acc.Elapsed += res.Elapsed
				if res.BodyBytes > 0 {
					acc.BodyBytes = res.BodyBytes
				}
				if acc.FirstError == "" {
					acc.FirstError = res.FirstError
				}
			}
		}
	}
	var reps []ListReport
	for _, m := range listMethods {
		rep := ListReport{Method: m.name, TSSkipped: skipped}
		for _, t := range targets {
			r := results[m.name][t.name]
			*t.out(&rep) = Served{Stats: r.Stats(), BodyBytes: r.BodyBytes, FirstError: r.FirstError}
		}
		reps = append(reps, rep)
		rep.write(w)
	}
	return reps, nil
}

func (r ListReport) write(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", r.Method)
	row := func(name string, s Served) {
		fmt.Fprintf(w, "  %-30s %s  %6d B", name, s.Stats, s.BodyBytes)
		if s.FirstError != "" {
			fmt.Fprintf(w, "  first error: %.120s", strings.TrimSpace(s.FirstError))
		}
		fmt.Fprintln(w)
	}
	row("host", r.Host)
	row("bare Go SDK", r.Bare)
	if r.TSSkipped == "" {
		row("TypeScript SDK 1.32.2", r.TS)
	} else {
		fmt.Fprintf(w, "  %-30s %s\n", "TypeScript SDK", r.TSSkipped)
	}
	row("floor (net/http, same bytes)", r.Floor)
	ratios := func(name string, o Served, target string) {
		fmt.Fprintf(w, "  %-10s calls/s %6.2f×  p50 %.3f  p99 %.3f%s\n", name, r.Host.PerSecond/o.PerSecond, ratio(r.Host.P50, o.P50), ratio(r.Host.P99, o.P99), target)
	}
	bareTarget, tsTarget := "", ""
	if r.Method == "tools/list" { // issue 16's targets
		bareTarget, tsTarget = "  (target calls/s ≥ 3×, p99 ≤ 1)", "  (target calls/s ≥ 10×, p99 ≤ 1)"
	}
	ratios("host/bare", r.Bare, bareTarget)
	if r.TSSkipped == "" {
		ratios("host/ts", r.TS, tsTarget)
	}
	ratios("host/floor", r.Floor, "")
}

// hostAnswer is one answer of the host as it went on the wire, and its
// JSON-RPC result.
type hostAnswer struct {
	contentType string
	body        []byte
	result      json.RawMessage
}

// captureAnswer sends body to url once, as the load generator does, and
// keeps the answer.
func captureAnswer(ctx context.Context, url, body string) (hostAnswer, error) {
	var a hostAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return a, err
	}
	for _, h := range benchHeaders() {
		req.Header.Set(h[0], h[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return a, err
	}
	if resp.StatusCode != http.StatusOK {
		return a, fmt.Errorf("%s: %.300s", resp.Status, b)
	}
	a.contentType, a.body = resp.Header.Get("Content-Type"), b
	msg := b
	if strings.HasPrefix(a.contentType, "text/event-stream") {
		msg = sseData(b)
	}
	var rpc struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(msg, &rpc); err != nil || len(rpc.Result) == 0 {
		return a, fmt.Errorf("not a JSON-RPC result (%s): %.300s", a.contentType, b)
	}
	a.result = rpc.Result
	return a, nil
}

// sseData is the data of an SSE stream's message events, joined.
func sseData(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			out = append(out, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// tsListing is what bench-server.mjs reads: the host's tools/list result,
// and its serverInfo and instructions from initialize.
func tsListing(answers map[string]hostAnswer) ([]byte, error) {
	var init struct {
		ServerInfo   json.RawMessage `json:"serverInfo"`
		Instructions string          `json:"instructions,omitempty"`
	}
	if err := json.Unmarshal(answers["initialize"].result, &init); err != nil {
		return nil, fmt.Errorf("the host's initialize result: %w", err)
	}
	return json.Marshal(map[string]any{"tools": answers["tools/list"].result, "serverInfo": init.ServerInfo, "instructions": init.Instructions})
}

// floorHandler answers each method with the host's own bytes for it, and
// does nothing else: the cost of HTTP itself on this machine.
func floorHandler(answers map[string]hostAnswer) http.Handler {
	list, init := answers["tools/list"], answers["initialize"]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		a := list
		if bytes.Contains(body, []byte(`"initialize"`)) {
			a = init
		}
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
		_, _ = w.Write(a.body)
	})
}

func addrOf(url string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

func pathOf(url string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return "/"
}

// loadDefaults are the load generator's defaults in Options.
func (o *Options) loadDefaults() {
	if o.Connections <= 0 {
		o.Connections = 32
	}
	if o.Duration <= 0 {
		o.Duration = 2 * time.Second
	}
}

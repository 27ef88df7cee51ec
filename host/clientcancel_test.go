package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/internal/redistest"
)

// splitTransport sends an MCP client's POSTs as an ingress in front of
// replicas might: notifications/cancelled to cancelTo, everything else to
// callTo. It also keeps a tool call's POST open when the client abandons the
// call, as the TypeScript SDK does (it aborts no fetch on cancel), so that
// only notifications/cancelled can end the call: the Go SDK would otherwise
// also drop the POST, and the host would end the call for that instead.
type splitTransport struct {
	callTo, cancelTo *url.URL
	mu               sync.Mutex
	cancels          int
}

func (s *splitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	to := s.callTo
	switch {
	case bytes.Contains(body, []byte(`"notifications/cancelled"`)):
		to = s.cancelTo
		s.mu.Lock()
		s.cancels++
		s.mu.Unlock()
	case bytes.Contains(body, []byte(`"tools/call"`)):
		r = r.WithContext(context.WithoutCancel(r.Context()))
	}
	r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
	return http.DefaultTransport.RoundTrip(r)
}

func (s *splitTransport) sent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancels
}

func connectSplit(t testing.TB, callTo, cancelTo, key string, hdr http.Header) (*mcp.ClientSession, *splitTransport) {
	t.Helper()
	a, _ := url.Parse(callTo)
	b, _ := url.Parse(cancelTo)
	st := &splitTransport{callTo: a, cancelTo: b}
	cs, err := mcpdial.Connect(context.Background(), callTo+"/slow/mcp", key, hdr, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, st
}

// abortCall starts a waiting call through cs, waits until it runs on r, and
// abandons it the Go SDK's way (its context ends); it returns when the
// abort happened.
func abortCall(t testing.TB, cs *mcp.ClientSession, r *replica) time.Time {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"wait": true}})
		errc <- err
	}()
	select {
	case <-r.plugin.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not start")
	}
	at := time.Now()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the aborted call returned %v", err)
	}
	return at
}

// TestClientCancelOnAnotherReplicaEndsCallAndFreesSlot: with
// MAX_CONCURRENT_CALLS=1 on two replicas sharing one redis-server, a Go SDK
// client aborts a call running on A; its notifications/cancelled reaches B;
// the call on A ends at once, as a cancelled call, and the client's next
// call, sent right away, runs.
func TestClientCancelOnAnotherReplicaEndsCallAndFreesSlot(t *testing.T) {
	rs := startReplicas(t, redistest.URL(t), 2, nil, time.Second, func(c *host.Config) { c.MaxConcurrentCalls, c.CallDeadline = 1, 5*time.Second })
	a, b := rs[0], rs[1]
	cs, st := connectSplit(t, a.URL, b.URL, "key-1", nil)
	for i := range 3 {
		at := abortCall(t, cs, a)
		select {
		case end := <-a.plugin.ended:
			if d := end.Sub(at); d > time.Second {
				t.Errorf("abort %d: the call ended %v after it, want well under 1s", i, d)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("abort %d: the call on A did not end (cancels sent to B: %d)", i, st.sent())
		}
		// The next call, right away: its slot is free.
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("abort %d: the next call: %v %v", i, err, res)
		}
		<-a.plugin.started
	}
	if n := st.sent(); n != 3 {
		t.Fatalf("%d notifications/cancelled went to B, want 3", n)
	}
	if got := metricValue(t, a, `pluginhost_tool_calls_total{outcome="cancelled",plugin="slow",tool="work"}`); got != 3 {
		t.Fatalf("A counts %v cancelled calls, want 3 (they must end by the notification, not by the POST closing)", got)
	}
}

// TestClientCancelMatchesOnlyItsOwnCall: a cancel never ends another
// license's call with the same request id; two calls of one license with
// the same id are told apart by their thread; when nothing tells them apart
// none is cancelled.
func TestClientCancelMatchesOnlyItsOwnCall(t *testing.T) {
	rs := startReplicas(t, redistest.URL(t), 2, nil, time.Second, func(c *host.Config) { c.CallDeadline = 3 * time.Second })
	a, b := rs[0], rs[1]
	waiting := func(cs *mcp.ClientSession) <-chan *mcp.CallToolResult {
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"wait": true}})
			out <- res
		}()
		<-a.plugin.started
		return out
	}
	ended := func(what string, ch <-chan *mcp.CallToolResult, want bool) {
		t.Helper()
		select {
		case res := <-ch:
			if !want {
				t.Errorf("%s ended: %q", what, text(res))
			}
		case <-time.After(300 * time.Millisecond):
			if want {
				t.Errorf("%s did not end", what)
			}
		}
	}
	// Another license, the same request id (each session's first call).
	mine, _ := connectSplit(t, a.URL, b.URL, "key-1", nil)
	other, _ := connectSplit(t, a.URL, b.URL, "key-2", nil)
	otherCall := waiting(other)
	abortCall(t, mine, a)
	<-a.plugin.ended
	ended("another license's call", otherCall, false)

	// One license, one request id, two threads: the thread tells them apart.
	t1, _ := connectSplit(t, a.URL, b.URL, "key-3", http.Header{"X-Surfsense-Thread": {"t1"}})
	t2, _ := connectSplit(t, a.URL, b.URL, "key-3", http.Header{"X-Surfsense-Thread": {"t2"}})
	t2Call := waiting(t2)
	abortCall(t, t1, a)
	<-a.plugin.ended
	ended("the other thread's call", t2Call, false)

	// One license, one request id, no thread: none can be told apart, so
	// the cancel ends none.
	n1, _ := connectSplit(t, a.URL, b.URL, "key-4", nil)
	n2, _ := connectSplit(t, a.URL, b.URL, "key-4", nil)
	n2Call := waiting(n2)
	abortCall(t, n1, a)
	ended("an indistinguishable call", n2Call, false)
	select {
	case <-a.plugin.ended:
		t.Fatal("a cancel that matched two calls ended one")
	case <-time.After(200 * time.Millisecond):
	}
	// Everything left ends by the deadline.
	for _, ch := range []<-chan *mcp.CallToolResult{otherCall, t2Call, n2Call} {
		<-ch
	}
}

// metricValue reads one series from the host's Prometheus handler.
func metricValue(t testing.TB, r *replica, series string) float64 {
	t.Helper()
	rec := &bytes.Buffer{}
	req, _ := http.NewRequest(http.MethodGet, "/metrics", nil)
	w := &captureWriter{h: http.Header{}, b: rec}
	r.MetricsHandler().ServeHTTP(w, req)
	for _, line := range strings.Split(rec.String(), "\n") {
		if strings.HasPrefix(line, series+" ") {
			var v float64
			_, _ = fmt.Sscan(strings.TrimPrefix(line, series+" "), &v)
			return v
		}
	}
	return 0
}

type captureWriter struct {
	h http.Header
	b *bytes.Buffer
}

func (c *captureWriter) Header() http.Header         { return c.h }
func (c *captureWriter) Write(p []byte) (int, error) { return c.b.Write(p) }
func (c *captureWriter) WriteHeader(int)             {}

// BenchmarkClientCancel is the time from a client's abort (the Go SDK's
// context ending) to the call's end on the replica that runs it, with the
// notification sent to the other replica; p50 and p99 over b.N aborts.
func BenchmarkClientCancel(b *testing.B) {
	rs := startReplicas(b, redistest.URL(b), 2, nil, time.Second, nil)
	cs, _ := connectSplit(b, rs[0].URL, rs[1].URL, "bench-key", nil)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		at := abortCall(b, cs, rs[0])
		end := <-rs[0].plugin.ended
		lat = append(lat, end.Sub(at))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

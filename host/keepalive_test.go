package host_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

const slowCall = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"work","arguments":{"items":1,"wait":true}}}`

// startSlowCall posts a call without a progress token that runs until
// released; it returns the response once its headers came.
func startSlowCall(t testing.TB, url, accept string) (*http.Response, time.Time) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(slowCall))
	req.Header.Set("Authorization", "License k")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, start
}

// TestSlowCallStartsAtOnceAndIsNeverSilent: a call without a progress token
// gets its status, headers and first bytes at once, then bytes at least every
// KeepAliveInterval while it runs (SSE comment lines), and its result after.
func TestSlowCallStartsAtOnceAndIsNeverSilent(t *testing.T) {
	old := host.KeepAliveInterval
	host.KeepAliveInterval = 200 * time.Millisecond
	t.Cleanup(func() { host.KeepAliveInterval = old })
	sp := newSlow()
	// The same call twice: without the result cache the second one runs
	// rather than being answered from the first one's stored result.
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: noResultCache})
	for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
		resp, start := startSlowCall(t, h.URL+"/slow/mcp", accept)
		<-sp.started
		br := bufio.NewReader(resp.Body)
		first, err := br.ReadByte()
		ttfb := time.Since(start)
		if err != nil || ttfb > time.Second {
			t.Fatalf("%s: first byte after %v (%v)", accept, ttfb, err)
		}
		_ = br.UnreadByte()
		// Read for 1.2 s: never a gap past the interval (with room for a
		// busy machine), and only fillers.
		var got []byte
		last := time.Now()
		var gaps []time.Duration
		deadline := time.Now().Add(1200 * time.Millisecond)
		for time.Now().Before(deadline) {
			b, err := br.ReadByte()
			if err != nil {
				t.Fatalf("%s: the response ended while the call ran: %v", accept, err)
			}
			if now := time.Now(); now.Sub(last) > 20*time.Millisecond {
				gaps = append(gaps, now.Sub(last))
				last = now
			}
			got = append(got, b)
		}
		if len(gaps) < 3 || slices.Max(gaps) > 3*host.KeepAliveInterval {
			t.Errorf("%s: silences %v while the call ran, want several, none past ~%v", accept, gaps, host.KeepAliveInterval)
		}
		sse := strings.Contains(accept, "event-stream")
		if sse && !strings.HasPrefix(string(got), ": ") || !sse && strings.TrimSpace(string(got)) != "" {
			t.Errorf("%s: the fillers are %q", accept, got)
		}
		sp.release <- struct{}{}
		rest, _ := io.ReadAll(br)
		resp.Body.Close()
		body := string(got) + string(rest)
		if sse {
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || !strings.Contains(body, "event: message\ndata: ") || !strings.Contains(body, `"result"`) {
				t.Errorf("SSE: %q %q", ct, body)
			}
		} else {
			var m map[string]any
			if err := json.Unmarshal([]byte(body), &m); err != nil || m["result"] == nil || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("JSON: %v %q", err, body)
			}
		}
		t.Logf("%s: first byte after %v; silences %v", accept, ttfb, gaps)
		_ = first
	}
}

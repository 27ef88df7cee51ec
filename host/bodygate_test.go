package host_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/license/keygentest"
	"github.com/surfsense/pluginhost/scrapers"
)

// rpcErr is the JSON-RPC error of an answer (nil when there is none).
func rpcErr(m map[string]any) map[string]any {
	e, _ := m["error"].(map[string]any)
	return e
}

// TestBadBodiesAreJSONRPCErrorsAndNeverRun sends every kind of body that is
// not exactly one JSON-RPC request: each gets its JSON-RPC error in
// application/json, none runs the tool and none is counted against the rate
// limit (one call a minute) or the cap on calls in flight.
func TestBadBodiesAreJSONRPCErrorsAndNeverRun(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}, Config: func(c *host.Config) {
		c.RateLimitPerMinute = 1
		c.MaxConcurrentCalls = 1
	}})
	url := h.URL + "/slow/mcp"
	auth := map[string][]string{"Authorization": {"License k"}}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{"items":1}}}`
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	deepInArgs := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{"items":1,"x":` + deep + `}}}`
	cases := []struct {
		name   string
		body   string
		status int
		code   float64
		id     any
	}{
		{"not JSON", `{not json`, 400, -32700, nil},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/call"`, 400, -32700, nil},
		{"not UTF-8", "\xff\xfe", 400, -32700, nil},
		{"trailing bytes", call + `x`, 400, -32700, nil},
		{"a second object", call + call, 400, -32700, nil},
		{"a second object after a newline", call + "\n" + call, 400, -32700, nil},
		{"a batch of one", `[` + call + `]`, 400, -32600, nil},
		{"a batch of two", `[` + call + `,` + call + `]`, 400, -32600, nil},
		{"an empty batch", `[]`, 400, -32600, nil},
		{"100,000-deep array", deep, 400, -32700, nil},
		{"100,000-deep array in the arguments", deepInArgs, 400, -32700, nil},
		{"empty body", ``, 400, -32600, nil},
		{"a string", `"tools/call"`, 400, -32600, nil},
		{"null", `null`, 400, -32600, nil},
		{"no method", `{"jsonrpc":"2.0","id":1}`, 400, -32600, nil},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, 400, -32600, nil},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"work"}}`, 400, -32600, nil},
		{"no jsonrpc", `{"id":1,"method":"tools/call","params":{"name":"work"}}`, 400, -32600, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, 400, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"work"}}`, 400, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"work"}}`, 400, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"work"}}`, 400, -32600, nil},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["work"]}`, 400, -32600, nil},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"work","arguments":{"items":1}}}`, 400, -32600, nil},
		{"Method in another case", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"tools/list"}`, 400, -32600, nil},
		{"a call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"work","arguments":{"items":1}}}`, 400, -32600, nil},
		{"a notification with an id", `{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`, 400, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":9,"method":"tools/run"}`, 200, -32601, float64(9)},
		{"unadvertised method", `{"jsonrpc":"2.0","id":"a","method":"resources/list"}`, 200, -32601, "a"},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, 400, -32601, nil},
		{"a call without params", `{"jsonrpc":"2.0","id":4,"method":"tools/call"}`, 200, -32602, float64(4)},
	}
	for _, c := range cases {
		resp, m := post(t, url, auth, c.body)
		e := rpcErr(m)
		if resp.StatusCode != c.status || e == nil || e["code"] != c.code || m["jsonrpc"] != "2.0" || m["id"] != c.id {
			t.Errorf("%s: %d %v, want %d with JSON-RPC error %v and id %v", c.name, resp.StatusCode, m, c.status, c.code, c.id)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", c.name, ct)
		}
		if msg, _ := e["message"].(string); len(msg) > 300 {
			t.Errorf("%s: a message of %d bytes", c.name, len(msg))
		}
	}
	// The form of the request: another content type, an Accept that takes
	// neither JSON nor a stream, an unknown protocol version, a body too
	// large. JSON-RPC errors too.
	forms := []struct {
		name   string
		hdr    map[string][]string
		body   string
		status int
	}{
		{"text/plain", map[string][]string{"Content-Type": {"text/plain"}}, call, 415},
		{"Accept: text/html", map[string][]string{"Accept": {"text/html"}}, call, 406},
		{"an unknown protocol version", map[string][]string{"Mcp-Protocol-Version": {"1999-01-01"}}, call, 400},
		{"a body too large", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", host.MaxMCPBodyBytes) + `"}}`, 413},
	}
	for _, f := range forms {
		hdr := map[string][]string{"Authorization": {"License k"}}
		for k, v := range f.hdr {
			hdr[k] = v
		}
		resp, m := post(t, url, hdr, f.body)
		if resp.StatusCode != f.status || rpcErr(m) == nil || rpcErr(m)["code"] != float64(-32600) || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %q %v, want %d with a -32600 JSON-RPC error", f.name, resp.StatusCode, resp.Header.Get("Content-Type"), m, f.status)
		}
	}
	select {
	case <-sp.started:
		t.Fatal("a malformed body ran the tool")
	default:
	}
	if n := sp.ended.Load(); n != 0 {
		t.Fatalf("%d tool runs from malformed bodies", n)
	}
	// Nothing above used up the one call a minute or held the one slot.
	if resp, m := post(t, url, auth, call); resp.StatusCode != 200 || strings.Contains(m["_raw"].(string), `"isError":true`) {
		t.Fatalf("the first real call after the bad bodies: %d %v", resp.StatusCode, m)
	}
	<-sp.started
	if resp, m := post(t, url, auth, call); resp.StatusCode != 429 {
		t.Fatalf("the second real call in the minute: %d %v, want 429 (the limit counts real calls)", resp.StatusCode, m)
	}
}

// TestJSONOnlyClientGetsJSON: a client that accepts only application/json
// gets one JSON body (not the SDK's 400), for tools/list and for a call.
func TestJSONOnlyClientGetsJSON(t *testing.T) {
	sp := newSlow()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{sp.ctor}})
	hdr := map[string][]string{"Authorization": {"License k"}, "Accept": {"application/json"}}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work","arguments":{"items":2}}}`,
	} {
		resp, m := post(t, h.URL+"/slow/mcp", hdr, body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || m["result"] == nil {
			t.Errorf("%s: %d %q %v", body, resp.StatusCode, resp.Header.Get("Content-Type"), m)
		}
	}
}

// TestLicenseBeforeMethodAndChallenge: a bad key on GET or DELETE is a 401 or
// 403, not a 405, and every 401 and 403 names the License scheme.
func TestLicenseBeforeMethodAndChallenge(t *testing.T) {
	kg := keygentest.New("acct", map[string]keygentest.License{"good-key": {Code: "VALID"}, "expired-key": {Code: "EXPIRED"}})
	t.Cleanup(kg.Close)
	b, _ := license.NewKeygen(kg.URL, "acct")
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{newSlow().ctor}, Backend: b})
	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodPost} {
		for _, c := range []struct {
			auth   string
			status int
			reason string
		}{{"", 401, "missing_license"}, {"Bearer x", 401, "missing_license"}, {"License expired-key", 403, "expired"}, {"License nope", 403, "invalid"}} {
			for _, path := range []string{"/slow/mcp", "/license", "/cancel"} {
				req, _ := http.NewRequest(method, h.URL+path, strings.NewReader(`{}`))
				if c.auth != "" {
					req.Header.Set("Authorization", c.auth)
				}
				resp, m := do(t, req)
				if path != "/slow/mcp" && resp.StatusCode == http.StatusMethodNotAllowed {
					continue // another route's method; the license routes are chi's
				}
				want := `License realm="SurfSense", reason="` + c.reason + `"`
				if resp.StatusCode != c.status || m["reason"] != c.reason || resp.Header.Get("WWW-Authenticate") != want {
					t.Errorf("%s %s with %q: %d %v %q, want %d %s with %s", method, path, c.auth, resp.StatusCode, m, resp.Header.Get("WWW-Authenticate"), c.status, c.reason, want)
				}
			}
		}
		if method == http.MethodPost {
			continue
		}
		req, _ := http.NewRequest(method, h.URL+"/slow/mcp", nil)
		req.Header.Set("Authorization", "License good-key")
		resp, _ := do(t, req)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost {
			t.Errorf("%s with a good key: %d, want 405 with Allow: POST", method, resp.StatusCode)
		}
	}
}

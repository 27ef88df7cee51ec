package host_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/scrapers"
)

var fuzzMethods = []string{"initialize", "server/discover", "tools/list", "ping", "notifications/initialized", "tools/call"}

var fuzzVersions = []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28", "2027-01-01"}

// FuzzFastPathsMatchTheSDK sends any params, id and headers of the methods
// the host answers itself to a host with its fast answers and direct calls
// and to one where the SDK answers everything: never a panic, and the same
// status, headers and bytes.
func FuzzFastPathsMatchTheSDK(f *testing.F) {
	for _, r := range append(fastCorpus(), directCorpus()...) {
		method := r.body[strings.Index(r.body, `"method":"`)+10:]
		method = method[:strings.IndexByte(method, '"')]
		params := ""
		if i := strings.Index(r.body, `"params":`); i >= 0 {
			params = strings.TrimSuffix(r.body[i+9:], "}")
		}
		mi, vi := 0, 0
		for i, m := range fuzzMethods {
			if m == method {
				mi = i
			}
		}
		for i, v := range fuzzVersions {
			if v == r.header.Get("MCP-Protocol-Version") {
				vi = i
			}
		}
		f.Add(uint8(mi), uint8(vi), params, `1`, r.header.Get("Accept"), r.header.Get("Mcp-Method"), r.header.Get("Mcp-Name"), r.header.Get("x-surfsense-text-only") == "1")
	}
	opts := hosttest.Options{Plugins: []scrapers.Constructor{echoPlugin}, Config: unlimited}
	fast, sdk := hosttest.Start(f, opts), hosttest.Start(f, opts)
	host.SetSDKOnly(sdk.Host, true)
	fh, sh := fast.Handler(), sdk.Handler()
	f.Fuzz(func(t *testing.T, mi, vi uint8, params, id, accept, mcpMethod, mcpName string, textOnly bool) {
		method := fuzzMethods[int(mi)%len(fuzzMethods)]
		body := `{"jsonrpc":"2.0","method":"` + method + `"`
		if !strings.HasPrefix(method, "notifications/") {
			body += `,"id":` + id
		}
		if params != "" {
			body += `,"params":` + params
		}
		body += "}"
		hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {accept}, "Authorization": {"License fuzz-key"}}
		if v := fuzzVersions[int(vi)%len(fuzzVersions)]; v != "" {
			hdr.Set("MCP-Protocol-Version", v)
		}
		for k, v := range map[string]string{"Mcp-Method": mcpMethod, "Mcp-Name": mcpName} {
			if v != "" {
				hdr[k] = []string{v}
			}
		}
		if textOnly {
			hdr.Set("x-surfsense-text-only", "1")
		}
		serve := func(h http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/echo/mcp", strings.NewReader(body))
			req.Header = hdr.Clone()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		got, want := serve(fh), serve(sh)
		gb, wb := got.Body.Bytes(), want.Body.Bytes()
		if method == "tools/call" && got.Header().Get("Content-Type") == "application/json" {
			gb, wb = jsonAnswer(gb), jsonAnswer(wb) // a JSON-only client's call: see jsonAnswer
		}
		gh, wh := got.Header().Clone(), want.Header().Clone()
		for _, k := range []string{"Date", "X-Request-Id", "Content-Length"} {
			gh.Del(k)
			wh.Del(k)
		}
		if got.Code != want.Code || !bytes.Equal(gb, wb) || fmt.Sprint(gh) != fmt.Sprint(wh) {
			t.Fatalf("%v\n%s\nfast: %d %v\n%s\nsdk:  %d %v\n%s", hdr, body, got.Code, gh, gb, want.Code, wh, wb)
		}
	})
}

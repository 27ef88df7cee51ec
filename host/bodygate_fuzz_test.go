package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseMessage: the body gate never panics, and what it lets through is
// exactly one JSON object that encoding/json (the SDK's reader) reads as the
// same request: the same method, id and params, a method the host serves,
// nesting within MaxJSONDepth.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crawl","arguments":{"start_urls":["https://e.com"]}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}{"jsonrpc":"2.0"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\"[[[["}}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`,
		strings.Repeat("[", 70) + strings.Repeat("]", 70),
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00",
		"\xef\xbb\xbf{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, e := parseMessage(body)
		if e != nil {
			if e.Code == 0 || e.Message == "" || e.Status == 0 {
				t.Fatalf("a refusal without its code, message or status: %+v", e)
			}
			if e.Code == codeMethodNotFound || e.Code == codeInvalidParams {
				if m == nil {
					t.Fatalf("%d without the message it answers", e.Code)
				}
			}
			return
		}
		if !json.Valid(body) || jsonDepth(body) > MaxJSONDepth {
			t.Fatalf("let through a body that is not one JSON value within the depth: %q", body)
		}
		var std struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			ID      json.RawMessage `json:"id"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &std); err != nil {
			t.Fatalf("let through a body encoding/json refuses: %v", err)
		}
		if std.JSONRPC != "2.0" || std.Method != m.Method || !bytes.Equal(std.ID, m.ID) {
			t.Fatalf("the gate read %q id %s, encoding/json %q id %s", m.Method, m.ID, std.Method, std.ID)
		}
		if m.Params != nil && !bytes.Equal(std.Params, m.Params) {
			t.Fatalf("params differ: %s vs %s", m.Params, std.Params)
		}
		if _, ok := serverMethods[m.Method]; !ok {
			t.Fatalf("let through method %q", m.Method)
		}
	})
}

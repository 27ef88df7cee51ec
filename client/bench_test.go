package client

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkListTools measures one listing (its own connection: initialize,
// initialized, tools/list, close) of a stand-in server with 20 tools on
// loopback.
func BenchmarkListTools(b *testing.B) {

	var tools []*mcp.Tool
	for i := range 20 {
		tools = append(tools, readOnlyTool(fmt.Sprintf("tool%d", i), "A tool."))
	}
	for _, stateless := range []bool{false, true} {
		b.Run(fmt.Sprintf("stateless=%v", stateless), func(b *testing.B) {
			s := newStandIn(b, standInOptions{stateless: stateless}, tools...)

			l := &Lister{}
			ctx := context.Background()
			for b.Loop() {
				got, err := l.ListTools(ctx, s.URL(), nil)
				if err != nil || len(got) != 20 {
					b.Fatal(err, len(got))
				}
			}
		})
	}
}

// BenchmarkReadyTools measures list_tools() over 50 plugins of 10 tools.
func BenchmarkReadyTools(b *testing.B) {
	ctx := context.Background()
	st := &MemoryStore{}
	for i := range 50 {
		id := fmt.Sprintf("p%d", i)
		st.PutPlugin(ctx, InstalledPlugin{ID: id, URL: "https://" + id + ".dev/mcp", Source: SourceFirstParty, Enabled: true, Hosts: []string{id + ".dev"}})
		var ts []PluginTool
		for j := range 10 {
			ts = append(ts, PluginTool{Name: fmt.Sprintf("t%d", j), Enabled: true, Approval: ApprovalAsk, Annotations: Annotations{ReadOnlyHint: yes}, InputSchema: []byte(`{"type":"object"}`)})
		}
		st.PutTools(ctx, id, ts)
	}
	c := &Client{Store: st}
	for b.Loop() {
		got, err := c.ReadyTools(ctx)
		if err != nil || len(got) != 500 {
			b.Fatal(err, len(got))
		}
	}
}

// BenchmarkFileStorePutTools measures one change written to a store of 20
// plugins of 10 tools (the file is rewritten whole, atomically).
func BenchmarkFileStorePutTools(b *testing.B) {
	ctx := context.Background()
	key, _ := NewKey()
	s, err := OpenFileStore(filepath.Join(b.TempDir(), "p.json"), key)
	if err != nil {
		b.Fatal(err)
	}
	var ts []PluginTool
	for j := range 10 {
		ts = append(ts, PluginTool{Name: fmt.Sprintf("t%d", j), Description: "A tool that does a thing.", Enabled: true, InputSchema: []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`)})
	}
	for i := range 20 {
		id := fmt.Sprintf("p%d", i)
		s.PutPlugin(ctx, InstalledPlugin{ID: id, URL: "https://" + id + ".dev/mcp", Credential: "token-" + id, CredentialKind: CredentialToken})
		s.PutTools(ctx, id, ts)
	}
	for b.Loop() {
		if err := s.PutTools(ctx, "p0", ts); err != nil {
			b.Fatal(err)
		}
	}
}

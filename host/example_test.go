package host_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// A host in process: New mounts exactly the plugins it is given, checks the
// license of every call and serves each plugin's MCP server at /<id>/mcp.
// The client is the official Go SDK's, with the key in Authorization.
func ExampleNew() {
	type args struct {
		Name string `json:"name"`
	}
	hello := func(scrapers.Env) (scrapers.Plugin, error) {
		greet := scrapers.NewTool("greet", "Greet", "Says hello.", nil, func(_ context.Context, call *scrapers.Call, a args) error {
			call.Add(map[string]string{"url": "https://example.com/", "greeting": "hello, " + a.Name})
			return nil
		})
		return scrapers.Plugin{ID: "hello", Name: "Hello", Tools: []scrapers.Tool{greet}}, nil
	}

	cfg := host.Defaults()
	cfg.License.Backend = "dev" // any non-empty key is valid
	h, err := host.New(cfg, host.Options{
		Plugins: []scrapers.Constructor{hello},
		Backend: license.Dev{},
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	fmt.Println("mounted:", h.PluginIDs())

	// Without a license, contract 2's 401.
	resp, _ := http.Post(srv.URL+"/hello/mcp", "application/json", nil)
	resp.Body.Close()
	fmt.Println("no license:", resp.StatusCode)

	ctx := context.Background()
	cs, err := mcpdial.Connect(ctx, srv.URL+"/hello/mcp", "dev-key", http.Header{"X-Surfsense-Text-Only": {"1"}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// mounted: [hello]
	// no license: 401
	// {"items":[{"greeting":"hello, Ada","url":"https://example.com/"}],"partial":false,"total_items":1,"offset":0}
}

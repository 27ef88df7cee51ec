package host

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Version is the host's version, reported as the MCP servers' version.
var Version = "0.1.0"

// mcpHandler builds the plugin's MCP server (its tools and get_result) and
// serves it as stateless Streamable HTTP.
func (h *Host) mcpHandler(p scrapers.Plugin) http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "surfsense-" + p.ID, Title: p.Name, Version: Version}, &mcp.ServerOptions{
		Logger: sdkLogger(h.log),
	})
	srv.AddReceivingMiddleware(h.annotateMCP)
	for _, t := range p.Tools {
		srv.AddTool(mcpTool(t), h.toolHandler(p, t))
	}
	srv.AddTool(mcpTool(getResultTool()), h.getResultHandler(p))
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		Logger:              sdkLogger(h.log),
		MaxRequestBodyBytes: MaxMCPBodyBytes,
	})
}

// mcpTool is the MCP description of a tool: every scraper tool is read-only
// and reaches the open world.
func mcpTool(t scrapers.Tool) *mcp.Tool {
	f, tr := false, true
	schema := t.InputSchema
	if schema == nil {
		schema = &jsonschema.Schema{Type: "object"}
	}
	// Encoded once: every tools/list would otherwise marshal the schema
	// again, the most expensive part of answering it.
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	return &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: json.RawMessage(raw),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    true,
			DestructiveHint: &f,
			IdempotentHint:  true,
			OpenWorldHint:   &tr,
		},
	}
}

package host

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// render turns a page into the MCP result: text alone for text-only callers
// (opencode reads only the text), else structuredContent with a text
// rendering. The page's pictures (screenshots) follow the text as image
// contents, for both: the text stays first.
func render(p Page, textOnly bool) *mcp.CallToolResult {
	b, err := json.Marshal(p)
	if err != nil {
		return toolError("the result could not be encoded: " + err.Error())
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	for _, im := range p.Images {
		res.Content = append(res.Content, &mcp.ImageContent{MIMEType: im.MIMEType, Data: im.Data})
	}
	if !textOnly {
		res.StructuredContent = json.RawMessage(b)
	}
	return res
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

package scrapertest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text is the text a tool result carries: its text contents, joined.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Page is the JSON page a successful tool result carries, its items decoded.
type Page struct {
	Items          []map[string]any `json:"items"`
	Partial        bool             `json:"partial"`
	PartialReasons []string         `json:"partial_reasons"`
	// ResultsProvider is the results_provider the search plugins set.
	ResultsProvider string `json:"results_provider"`
}

// ToolTitles lists the tools of the session's plugin and returns their
// titles by name. A listing that fails fails the test; a tool not marked
// read-only is a test error (every scraper tool, and get_result, only reads).
func ToolTitles(tb testing.TB, cs *mcp.ClientSession) map[string]string {
	tb.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	titles := make(map[string]string, len(res.Tools))
	for _, t := range res.Tools {
		titles[t.Name] = t.Title
		if a := t.Annotations; a == nil || !a.ReadOnlyHint {
			tb.Errorf("tool %s is not marked read-only: annotations %+v", t.Name, a)
		}
	}
	return titles
}

// CallTool calls the tool name with args over cs. A call that fails (as a
// request, not as a tool error) fails the test; the page of a result that is
// no tool error is decoded, and one that is not a page fails the test.
func CallTool(tb testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, Page) {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatal(err)
	}
	var page Page
	if !res.IsError {
		if err := json.Unmarshal([]byte(Text(res)), &page); err != nil {
			tb.Fatalf("%v: %s", err, Text(res))
		}
	}
	return res, page
}

// WantToolError calls the tool name with args over cs and checks that it
// answered with a tool error whose text holds every one of wants (the
// site's name and the block's kind, or the argument's name).
func WantToolError(tb testing.TB, cs *mcp.ClientSession, name string, args map[string]any, wants ...string) {
	tb.Helper()
	res, _ := CallTool(tb, cs, name, args)
	text := Text(res)
	if !res.IsError {
		tb.Errorf("%s %.200v: no tool error: %.300s", name, args, text)
		return
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			tb.Errorf("%s %.200v: tool error %q does not say %q", name, args, text, w)
		}
	}
}

// Many is a list of n copies of s, for arguments over a list's bound.
func Many(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

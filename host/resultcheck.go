package host

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/scrapers"
)

// Checking results against their output schema (Options.CheckResult): the
// tests hold every result the host sends to the schema tools/list publishes,
// closed to fields it does not declare.

func (h *Host) addChecks(p scrapers.Plugin) error {
	rs, err := newResultSchemas(p)
	if err != nil {
		return err
	}
	if h.checks == nil {
		h.checks = map[string]resultSchemas{}
	}
	h.checks[p.ID] = rs
	return nil
}

// check validates res, a result of tool of plugin, when Options.CheckResult
// asks. A text-only result carries the same envelope in its text.
func (h *Host) check(plugin, tool string, res *mcp.CallToolResult) {
	if h.checkResult == nil || res == nil || res.IsError {
		return
	}
	h.checkResult(plugin, tool, h.conforms(plugin, tool, res))
}

func (h *Host) conforms(plugin, tool string, res *mcp.CallToolResult) error {
	schema := h.checks[plugin][tool]
	if schema == nil {
		return fmt.Errorf("%s/%s has no output schema", plugin, tool)
	}
	var raw []byte
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return fmt.Errorf("structuredContent does not encode: %v", err)
		}
		raw = b
	} else if len(res.Content) >= 1 {
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return fmt.Errorf("a text-only result's first content is not text")
		}
		for _, c := range res.Content[1:] {
			if _, ok := c.(*mcp.ImageContent); !ok {
				return fmt.Errorf("a text-only result holds a second content that is no image")
			}
		}
		raw = []byte(tc.Text)
	} else {
		return fmt.Errorf("a result with neither structuredContent nor one text")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("the result is not JSON: %v", err)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("%s/%s: the result does not conform to its output schema: %v\n%.800s", plugin, tool, err, raw)
	}
	return nil
}

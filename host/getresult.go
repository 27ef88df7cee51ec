package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/scrapers"
)

// GetResultTool is the name of the tool every server has for paging through a
// result too large to return whole (CONTRACTS.md, "Tool results").
const GetResultTool = "get_result"

type getResultArgs struct {
	ResultID string `json:"result_id" jsonschema:"the result_id a previous call returned"`
	Offset   *int   `json:"offset,omitempty" jsonschema:"the index of the first item to return (the previous page's next_offset); default 0"`
	Whole    bool   `json:"whole,omitempty" jsonschema:"return the item at offset alone and uncut, however large (for an item listed in cut_items)"`
}

func (a *getResultArgs) Validate() error {
	// res_ and 32 hex digits; a result one replica alone keeps has
	// -on-<replica> after them (results.LocalID).
	base, replica, local := strings.Cut(a.ResultID, "-on-")
	if !strings.HasPrefix(base, "res_") || len(base) != 36 || strings.Trim(base[4:], "0123456789abcdef") != "" ||
		(local && (replica == "" || results.ReplicaName(replica) != replica)) {
		return scrapers.Argf("result_id", "must be a result_id returned by a previous call of this license (res_ and 32 hex digits)")
	}
	if a.Offset != nil && *a.Offset < 0 {
		return scrapers.Argf("offset", "must be 0 or more, got %d", *a.Offset)
	}
	return nil
}

// getResultTool describes get_result. The host answers it itself
// (getResultHandler): it reads a stored result, so it has no scrape to run.
func getResultTool() scrapers.Tool {
	t := scrapers.NewTool("get_result", "Get the rest of a large result",
		"Returns more items of a result that was too large to return whole. Pass the result_id and next_offset it gave; results are kept for 24 hours and only the license that made the call can read them. "+
			"An item listed in cut_items was shortened to fit; pass its index as offset with whole: true to get it uncut.",
		func(s *jsonschema.Schema) {
			s.Required = []string{"result_id"}
			if p := s.Properties["offset"]; p != nil {
				zero := 0.0
				p.Minimum = &zero
			}
		}, func(context.Context, *scrapers.Call, getResultArgs) error { return nil })
	t.Run = nil
	return t
}

// getResultHandler answers get_result for plugin p: the page of the stored
// result at the offset asked, for the license that made the call only.
func (h *Host) getResultHandler(p scrapers.Plugin) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		c, ok := callerOfRequest(ctx, req)
		if !ok {
			// Not reachable through the router, which checks the license first.
			return toolError("the call carried no license"), nil
		}
		res, outcome, items := h.getResult(ctx, c, p.ID, req.Params.Arguments)
		h.observeCall(ctx, p.ID, GetResultTool, c, outcome, items, start, nil)
		h.check(p.ID, GetResultTool, res)
		return res, nil
	}
}

// getResult reads the page; it returns the result, its outcome for metrics
// and the number of items on the page.
func (h *Host) getResult(ctx context.Context, c caller, plugin string, raw json.RawMessage) (*mcp.CallToolResult, string, int) {
	var args getResultArgs
	if err := scrapers.DecodeArgs(raw, &args); err != nil {
		return toolError(err.Error()), "bad_arguments", 0
	}
	rctx, endSpan := h.childSpan(ctx, "result read")
	st, err := h.stores.Results.Get(rctx, c.LicenseHash, args.ResultID)
	endSpan(err)
	var elsewhere *results.HeldElsewhereError
	if errors.Is(err, results.ErrNotFound) {
		return toolError(scrapers.Argf("result_id", "%v", err).Error()), "bad_arguments", 0
	} else if errors.As(err, &elsewhere) {
		return toolError(err.Error()), "tool_error", 0
	} else if err != nil {
		return toolError("the stored result could not be read: " + err.Error()), "tool_error", 0
	}
	if st.Plugin != plugin {
		return toolError(scrapers.Argf("result_id", "belongs to the %s plugin; call its get_result", st.Plugin).Error()), "bad_arguments", 0
	}
	off := 0
	if args.Offset != nil {
		off = *args.Offset
	}
	if off > len(st.Items) {
		return toolError(scrapers.Argf("offset", "must be at most %d, the number of items", len(st.Items)).Error()), "bad_arguments", 0
	}
	out := scrapers.Outcome{Items: st.Items, Partial: st.Partial, Reasons: st.Reasons, Meta: st.Meta, Images: st.Images}
	page, err := h.page(ctx, c, plugin, st.Tool, out, off, args.ResultID, args.Whole)
	if err != nil {
		return toolError(err.Error()), "tool_error", 0
	}
	return render(page, c.TextOnly), "ok", len(page.Items)
}

func storedFrom(plugin, tool string, o scrapers.Outcome) results.Stored {
	return results.Stored{Plugin: plugin, Tool: tool, Items: o.Items, Partial: o.Partial, Reasons: o.Reasons, Meta: o.Meta, Images: o.Images}
}

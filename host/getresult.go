package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/scrapers"
)

// GetResultTool is the name of the tool every server has for paging through a
// result too large to return whole.
const GetResultTool = "get_result"

type getResultArgs struct {
	ResultID string `json:"result_id" jsonschema:"the result_id a previous call returned"`
	Offset   *int   `json:"offset,omitempty" jsonschema:"the index of the first item to return (the previous page's next_offset); default 0"`
}

func (a *getResultArgs) Validate() error {
	if !strings.HasPrefix(a.ResultID, "res_") || len(a.ResultID) != 36 {
		return scrapers.Argf("result_id", "must be a result_id returned by a previous call of this license (res_ and 32 hex digits)")
	}
	if a.Offset != nil && *a.Offset < 0 {
		return scrapers.Argf("offset", "must be 0 or more, got %d", *a.Offset)
	}
	return nil
}

// getResultTool describes get_result; bindGetResult gives it its work.
func getResultTool() scrapers.Tool {
	return scrapers.NewTool("get_result", "Get the rest of a large result",
		"Returns more items of a result that was too large to return whole. Pass the result_id and next_offset it gave; results are kept for 24 hours and only the license that made the call can read them.",
		func(s *jsonschema.Schema) {
			s.Required = []string{"result_id"}
			if p := s.Properties["offset"]; p != nil {
				zero := 0.0
				p.Minimum = &zero
			}
		},
		func(context.Context, *scrapers.Call, getResultArgs) error {
			return errors.New("get_result is not bound to a host")
		})
}

func (h *Host) bindGetResult(plugin string, t scrapers.Tool) scrapers.Tool {
	t.Run = func(ctx context.Context, call *scrapers.Call, raw json.RawMessage) error {
		var args getResultArgs
		if err := scrapers.DecodeArgs(raw, &args); err != nil {
			return err
		}
		c, ok := callerFrom(ctx)
		if !ok {
			return errors.New("the call carried no license")
		}
		st, err := h.stores.Results.Get(ctx, c.LicenseHash, args.ResultID)
		if errors.Is(err, results.ErrNotFound) {
			return scrapers.Argf("result_id", "%v", err)
		} else if err != nil {
			return fmt.Errorf("the stored result could not be read: %v", err)
		}
		if st.Plugin != plugin {
			return scrapers.Argf("result_id", "belongs to the %s plugin; call its get_result", st.Plugin)
		}
		off := 0
		if args.Offset != nil {
			off = *args.Offset
		}
		if off > len(st.Items) {
			return scrapers.Argf("offset", "must be at most %d, the number of items", len(st.Items))
		}
		return &pageReady{id: args.ResultID, offset: off, stored: st}
	}
	return t
}

// pageReady carries a stored result from get_result's Run to shape without
// copying it through the Call.
type pageReady struct {
	id     string
	offset int
	stored results.Stored
}

func (*pageReady) Error() string { return "page ready" }

func storedFrom(plugin, tool string, o scrapers.Outcome) results.Stored {
	return results.Stored{Plugin: plugin, Tool: tool, Items: o.Items, Partial: o.Partial, Reasons: o.Reasons, Meta: o.Meta}
}

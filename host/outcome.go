package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/scrapers"
)

// shape turns what the tool gathered into the MCP result.
func (h *Host) shape(ctx context.Context, p scrapers.Plugin, t scrapers.Tool, c caller, call *scrapers.Call, runErr, cause error) (*mcp.CallToolResult, string) {
	var argErr *scrapers.ArgError
	switch {
	case errors.Is(cause, scrapers.ErrCancelled):
		return toolError("The call was cancelled (POST /cancel for its thread): " + p.Name + " stopped and sent no further requests."), "cancelled"
	case errors.Is(cause, errTaskCancelled):
		return toolError(taskCancelledMessage(p)), "cancelled"
	case errors.Is(cause, errClientCancelled):
		return toolError("The client cancelled the call (notifications/cancelled): " + p.Name + " stopped and sent no further requests."), "cancelled"
	case errors.Is(cause, scrapers.ErrShuttingDown):
		return toolError("The plugin host is shutting down and stopped this call; call the tool again."), "shutdown"
	case errors.Is(cause, errClientGone):
		return toolError("The client went away; the call was stopped."), "client_gone"
	case errors.As(runErr, &argErr):
		return toolError(argErr.Error()), "bad_arguments"
	}
	out := call.Snapshot()
	outcome := "ok"
	if errors.Is(cause, errDeadline) {
		deadline := h.deadlineOf(ctx)
		msg := fmt.Sprintf("the call's deadline (%s) passed before it finished", deadline)
		if len(out.Items) == 0 {
			return toolError(fmt.Sprintf("%s did not finish within the call's deadline (%s) and gathered nothing; try fewer or smaller inputs.", p.Name, deadline)), "deadline"
		}
		out.Partial = true
		out.Reasons = append(out.Reasons, msg)
		outcome = "deadline"
	} else if runErr != nil {
		var be *scrapers.BlockedError
		kind := "tool_error"
		if errors.As(runErr, &be) {
			kind = "blocked"
		}
		if len(out.Items) == 0 {
			return toolError(runErr.Error()), kind
		}
		out.Partial = true
		out.Reasons = append(out.Reasons, runErr.Error())
		outcome = kind
	} else if len(out.Items) == 0 {
		// Never an empty success.
		return toolError(p.Name + " found nothing for these arguments."), "empty"
	}
	if len(out.Failed) > 0 && len(out.Failed) == len(out.Items) {
		return toolError(everyFailed(p.Name, out.Failed)), "tool_error"
	}
	if out.Partial && outcome == "ok" {
		outcome = "partial"
	}
	page, err := h.page(ctx, c, p.ID, t.Name, out, 0, "", false)
	if err != nil {
		return toolError(err.Error()), "tool_error"
	}
	return render(page, c.TextOnly), outcome
}

// shapeCached turns a stored answer into the MCP result: a whole answer,
// marked cached with its fetch time, paged for this caller (a get_result id
// is this license's own). It returns the outcome and the items on the page.
func (h *Host) shapeCached(ctx context.Context, p scrapers.Plugin, t scrapers.Tool, c caller, e resultcache.Entry) (*mcp.CallToolResult, string, int) {
	page, err := h.page(ctx, c, p.ID, t.Name, e.Outcome(), 0, "", false)
	if err != nil {
		return toolError(err.Error()), "tool_error", 0
	}
	at := e.FetchedAt.UTC()
	page.Cached, page.FetchedAt = true, &at
	return render(page, c.TextOnly), "ok", len(e.Items)
}

// everyFailed is the tool error when every source failed: a list of them.
func everyFailed(name string, failed []scrapers.Failed) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s could not get any of the %d sources:", name, len(failed))
	for i, f := range failed {
		if i == 10 {
			fmt.Fprintf(&b, "\n- and %d more", len(failed)-10)
			break
		}
		fmt.Fprintf(&b, "\n- %s: %s", f.URL, f.Error)
	}
	return b.String()
}

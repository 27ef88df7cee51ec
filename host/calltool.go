package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// ProgressInterval is how often a call with a progress token hears from the
// host while it works, whether or not the tool reported progress (CONTRACTS.md
// asks for at least every 10 s).
var ProgressInterval = 5 * time.Second

// stopGrace is how long a tool has to return after its context ended before
// the host answers with what it gathered.
const stopGrace = 2 * time.Second

var (
	errDeadline   = errors.New("the call's deadline passed")
	errClientGone = errors.New("the client went away")
)

// activeCall is one tool call in flight on this replica.
type activeCall struct {
	cancelCause context.CancelCauseFunc
}

func (a *activeCall) cancel(cause error) { a.cancelCause(cause) }

// toolHandler runs one scraper tool under the host's rules: the call's
// deadline, cancellation by thread, progress notifications, partial results
// and large results kept for get_result.
func (h *Host) toolHandler(p scrapers.Plugin, t scrapers.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		c, ok := callerOfRequest(ctx, req)
		if !ok {
			// Not reachable through the router, which checks the license first.
			return toolError("the call carried no license"), nil
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		ac := &activeCall{cancelCause: cancel}
		h.track(ac, true)
		defer h.track(ac, false)
		if c.Thread != "" {
			done, err := h.stores.Calls.Start(ctx, calls.Key{License: c.LicenseHash, Thread: c.Thread}, func() { cancel(scrapers.ErrCancelled) })
			if err != nil {
				h.log.Warn("call not registered for cancel", "plugin", p.ID, "err", err)
			} else {
				defer done()
			}
		}
		// The deadline is measured from the call's start and gives what was
		// gathered rather than nothing.
		runCtx, stop := context.WithTimeoutCause(ctx, h.cfg.CallDeadline, errDeadline)
		defer stop()

		prog := newProgress(ctx, req)
		call := scrapers.NewCall(prog.report)
		finished := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					h.log.Error("tool panicked", "plugin", p.ID, "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					finished <- fmt.Errorf("the tool failed unexpectedly; the error was logged")
				}
			}()
			finished <- t.Run(context.WithValue(runCtx, ctxCaller, c), call, req.Params.Arguments)
		}()
		if rc := requestContext(ctx); rc != nil {
			stopWatch := context.AfterFunc(rc, func() { cancel(errClientGone) })
			defer stopWatch()
		}
		var runErr error
		tick := time.NewTicker(ProgressInterval)
		defer tick.Stop()
	wait:
		for {
			select {
			case runErr = <-finished:
				break wait
			case <-tick.C:
				prog.heartbeat(call.Len())
			case <-runCtx.Done():
				select {
				case runErr = <-finished:
				case <-time.After(stopGrace):
					runErr = context.Cause(runCtx)
				}
				break wait
			}
		}
		// Why the call stopped early, if it did: the deadline, a cancel by
		// thread, the drain, or the client leaving.
		var cause error
		if runCtx.Err() != nil {
			cause = context.Cause(runCtx)
			if cause == context.Canceled {
				cause = errClientGone // the SDK's own context ended
			}
		}
		res, outcome := h.shape(ctx, p, t, c, call, runErr, cause)
		h.metrics.calls.WithLabelValues(p.ID, t.Name, outcome).Inc()
		h.metrics.duration.WithLabelValues(p.ID, t.Name).Observe(time.Since(start).Seconds())
		h.log.Info("tool call", "request_id", RequestIDFrom(ctx), "plugin", p.ID, "tool", t.Name, "outcome", outcome,
			"items", call.Len(), "duration_ms", time.Since(start).Milliseconds(), "thread", c.Thread)
		return res, nil
	}
}

// shape turns what the tool gathered into the MCP result.
func (h *Host) shape(ctx context.Context, p scrapers.Plugin, t scrapers.Tool, c caller, call *scrapers.Call, runErr, cause error) (*mcp.CallToolResult, string) {
	var argErr *scrapers.ArgError
	var ready *pageReady
	switch {
	case errors.As(runErr, &ready):
		st := ready.stored
		page, err := h.page(ctx, c, p.ID, t.Name, scrapers.Outcome{Items: st.Items, Partial: st.Partial, Reasons: st.Reasons, Meta: st.Meta}, ready.offset, ready.id)
		if err != nil {
			return toolError(err.Error()), "tool_error"
		}
		return render(page, c.TextOnly), "ok"
	case errors.Is(cause, scrapers.ErrCancelled):
		return toolError("The call was cancelled (POST /cancel for its thread): " + p.Name + " stopped and sent no further requests."), "cancelled"
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
		msg := fmt.Sprintf("the call's deadline (%s) passed before it finished", h.cfg.CallDeadline)
		if len(out.Items) == 0 {
			return toolError(fmt.Sprintf("%s did not finish within the call's deadline (%s) and gathered nothing; try fewer or smaller inputs.", p.Name, h.cfg.CallDeadline)), "deadline"
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
	page, err := h.page(ctx, c, p.ID, t.Name, out, 0, "")
	if err != nil {
		return toolError(err.Error()), "tool_error"
	}
	return render(page, c.TextOnly), outcome
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

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// Page is the JSON a tool result carries: items, and when the items did not
// all fit, where the rest is.
type Page struct {
	Items          []json.RawMessage `json:"items"`
	Partial        bool              `json:"partial"`
	PartialReasons []string          `json:"partial_reasons,omitempty"`
	TotalItems     int               `json:"total_items"`
	Offset         int               `json:"offset"`
	ResultID       string            `json:"result_id,omitempty"`
	NextOffset     *int              `json:"next_offset,omitempty"`
	Meta           map[string]any    `json:"-"`
}

// MarshalJSON puts the meta fields (results_provider, …) beside the others.
func (p Page) MarshalJSON() ([]byte, error) {
	type plain Page
	b, err := json.Marshal(plain(p))
	if err != nil || len(p.Meta) == 0 {
		return b, err
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range p.Meta {
		if _, taken := m[k]; taken {
			continue
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = vb
	}
	return json.Marshal(m)
}

// page takes the items from offset that fit in RESULT_MAX_BYTES (at least
// one), storing the whole result for get_result when they do not all fit.
func (h *Host) page(ctx context.Context, c caller, plugin, tool string, out scrapers.Outcome, offset int, resultID string) (Page, error) {
	p := Page{Partial: out.Partial, PartialReasons: out.Reasons, TotalItems: len(out.Items), Offset: offset, Meta: out.Meta, ResultID: resultID}
	size := 0
	end := offset
	for end < len(out.Items) {
		n := len(out.Items[end]) + 1
		if end > offset && size+n > h.cfg.ResultMaxBytes {
			break
		}
		size += n
		end++
	}
	p.Items = out.Items[offset:end]
	if end < len(out.Items) {
		if p.ResultID == "" {
			id, err := h.stores.Results.Put(ctx, c.LicenseHash, storedFrom(plugin, tool, out))
			if err != nil {
				return Page{}, fmt.Errorf("the result was too large to return whole and could not be kept for get_result: %v", err)
			}
			p.ResultID = id
		}
		next := end
		p.NextOffset = &next
	}
	if p.Items == nil {
		p.Items = []json.RawMessage{}
	}
	return p, nil
}

// render turns a page into the MCP result: text alone for text-only callers
// (opencode reads only the text), else structuredContent with a text rendering.
func render(p Page, textOnly bool) *mcp.CallToolResult {
	b, err := json.Marshal(p)
	if err != nil {
		return toolError("the result could not be encoded: " + err.Error())
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	if !textOnly {
		res.StructuredContent = json.RawMessage(b)
	}
	return res
}

// callerOfRequest finds the caller the license middleware put in the HTTP
// request's context; when the SDK does not hand that context on, it is read
// again from the request's headers.
func callerOfRequest(ctx context.Context, req *mcp.CallToolRequest) (caller, bool) {
	if c, ok := callerFrom(ctx); ok {
		return c, true
	}
	if req.Extra == nil || req.Extra.Header == nil {
		return caller{}, false
	}
	key, err := license.ParseAuthorization(req.Extra.Header.Values("Authorization"))
	if err != nil {
		return caller{}, false
	}
	c := caller{LicenseHash: license.Hash(key), TextOnly: req.Extra.Header.Get("x-surfsense-text-only") == "1"}
	if th := req.Extra.Header.Get("X-SurfSense-Thread"); ValidThread(th) {
		c.Thread = th
	}
	return c, true
}

func (h *Host) track(a *activeCall, add bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if add {
		h.inFlight[a] = struct{}{}
		h.metrics.inFlight.Inc()
		return
	}
	delete(h.inFlight, a)
	h.metrics.inFlight.Dec()
}

// progress sends MCP progress notifications for one call when it carries a
// progress token: the tool's own reports, and a heartbeat from the host.
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	mu    sync.Mutex
	n     float64
	msg   string
	total float64
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	return &progress{ctx: ctx, req: req, token: req.Params.GetProgressToken()}
}

func (p *progress) report(message string, done, total int) {
	if p.token == nil {
		return
	}
	p.mu.Lock()
	p.msg, p.total = message, float64(total)
	p.mu.Unlock()
	p.send(message, float64(total))
}

func (p *progress) heartbeat(items int) {
	if p.token == nil {
		return
	}
	p.mu.Lock()
	msg := p.msg
	total := p.total
	p.mu.Unlock()
	if msg == "" {
		msg = "working"
	}
	p.send(fmt.Sprintf("%s (%d items so far)", msg, items), total)
}

// send emits one notification; progress only ever increases.
func (p *progress) send(message string, total float64) {
	p.mu.Lock()
	p.n++
	n := p.n
	if total > 0 && n > total {
		total = 0 // the count went past the tool's estimate: say unknown
	}
	p.mu.Unlock()
	if p.req.Session == nil {
		return
	}
	_ = p.req.Session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Message: message, Progress: n, Total: total})
}

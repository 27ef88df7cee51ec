package host

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/resultcache"
	"github.com/surfsense/pluginhost/scrapers"
)

// The call lifecycle: one tool call from the SDK's handler to its result.
// What the result looks like is outcome.go's; paging is page.go's.

// ProgressInterval is how often a call with a progress token hears from the
// host while it works, whether or not the tool reported progress
// (CONTRACTS.md, "Tool results", asks for at least every 10 s).
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
// deadline, cancellation by thread, progress notifications, partial results,
// large results kept for get_result, and the shared result cache
// (resultcache.go): an identical call's stored answer, or its run in flight.
//
// A call whose client declares MCP Tasks may become one (tasks.go).
func (h *Host) toolHandler(p scrapers.Plugin, t scrapers.Tool) mcp.ToolHandler {
	run := h.callHandler(p, t)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if offersTask(ctx, req) {
			if c, ok := callerOfRequest(ctx, req); ok {
				return h.callAsTask(ctx, p, t, c, req, run)
			}
		}
		return run(ctx, req)
	}
}

// callHandler is one call's run, from its start to its result.
func (h *Host) callHandler(p scrapers.Plugin, t scrapers.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		start := time.Now()
		c, ok := callerOfRequest(ctx, req)
		if !ok {
			// Not reachable through the router, which checks the license first.
			return toolError("the call carried no license"), nil
		}
		tr := taskRunFrom(ctx)
		if ka := keepAliveFrom(ctx); ka != nil {
			ka.start() // the response's first bytes, now
			defer ka.stop()
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		ac := &activeCall{cancelCause: cancel}
		h.track(ac, true)
		defer h.track(ac, false)
		// A cancelled call gives its slot back at once (clientcancel.go).
		endCall := func(cause error) {
			cancel(cause)
			freeSlot(ctx)
		}
		unregister := h.registerRequest(ctx, p.ID, c, func() { endCall(errClientCancelled) })
		if tr != nil {
			// A task is cancelled by tasks/cancel, never by its request's id.
			tr.onPromote(unregister)
		}
		defer unregister()
		if c.Thread != "" {
			done, err := h.stores.Calls.Start(ctx, calls.Key{License: c.LicenseHash, Thread: c.Thread}, func() { endCall(scrapers.ErrCancelled) })
			if err != nil {
				h.log.Warn("call not registered for cancel", "plugin", p.ID, "err", err)
			} else {
				defer done()
			}
		}
		if tr != nil {
			// Before the thread's registration ends: POST /cancel answers
			// once the task's end is stored.
			defer func() { tr.finish(res) }()
		}
		stats := &callStats{}
		args, maxAge, key, err := h.question(p, t, req.Params.Arguments)
		if err != nil {
			res, outcome := h.shape(ctx, p, t, c, scrapers.NewCall(nil), err, nil)
			h.observeCall(ctx, p.ID, t.Name, c, outcome, 0, start, stats)
			return res, nil
		}
		if e, ok := h.cache.Lookup(ctx, key, maxAge); ok {
			stats.Served = servedCache
			res, outcome, items := h.shapeCached(ctx, p, t, c, e)
			h.observeCall(ctx, p.ID, t.Name, c, outcome, items, start, stats)
			h.check(p.ID, t.Name, res)
			return res, nil
		}

		// The call's own deadline is measured from its start and gives what
		// was gathered rather than nothing; the run it starts (or joins)
		// has its own, from its start.
		deadline := h.runDeadline(ctx)
		waitCtx, stop := context.WithTimeoutCause(ctx, deadline, errDeadline)
		defer stop()
		prog := newProgress(ctx, req)
		stats.Served = servedFresh
		m := h.cache.Join(resultcache.Start{
			Key: key, MaxAge: maxAge,
			Context:  withCallStats(context.WithValue(ctx, ctxCaller, c), stats),
			Deadline: deadline, DeadlineCause: errDeadline,
			Run: func(runCtx context.Context, call *scrapers.Call) (err error) {
				defer func() {
					if r := recover(); r != nil {
						h.log.Error("tool panicked", "plugin", p.ID, "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
						err = fmt.Errorf("the tool failed unexpectedly; the error was logged")
					}
				}()
				return t.Run(runCtx, call, args)
			},
			Progress: prog.report,
		})
		if rc := requestContext(ctx); rc != nil {
			stopWatch := context.AfterFunc(rc, func() { cancel(errClientGone) })
			defer stopWatch()
		}
		var runErr, cause error
		var entry *resultcache.Entry
		tick := time.NewTicker(ProgressInterval)
		defer tick.Stop()
	wait:
		for {
			select {
			case <-m.Done():
				runErr, cause, entry = m.Result()
				break wait
			case <-tick.C:
				prog.heartbeat(m.Call().Len())
			case <-waitCtx.Done():
				// The call stops early: its deadline, a cancel by thread,
				// the drain, or the client leaving. The run stops too
				// unless another identical call still waits for it.
				cause = context.Cause(waitCtx)
				if m.Leave(cause) {
					select {
					case <-m.Done():
						runErr, _, _ = m.Result()
					case <-time.After(stopGrace + time.Second):
						runErr = cause
					}
				}
				break wait
			}
		}
		if cause == context.Canceled {
			cause = errClientGone // the SDK's own context ended
		}
		if !m.Ran() {
			stats.Served = servedShared
		}
		if entry != nil { // another replica's run answered, through the cache
			stats.Served = servedCache
			res, outcome, items := h.shapeCached(ctx, p, t, c, *entry)
			h.observeCall(ctx, p.ID, t.Name, c, outcome, items, start, stats)
			h.check(p.ID, t.Name, res)
			return res, nil
		}
		res, outcome := h.shape(ctx, p, t, c, m.Call(), runErr, cause)
		h.observeCall(ctx, p.ID, t.Name, c, outcome, m.Call().Len(), start, stats)
		h.check(p.ID, t.Name, res)
		return res, nil
	}
}

// observeCall records one call's end: its metrics and its log line.
// stats is nil for calls that go upstream for nothing (get_result).
func (h *Host) observeCall(ctx context.Context, plugin, tool string, c caller, outcome string, items int, start time.Time, stats *callStats) {
	if tr := taskRunFrom(ctx); tr != nil {
		tr.noteOutcome(outcome)
	}
	h.metrics.calls.WithLabelValues(plugin, tool, outcome).Inc()
	served := ""
	if stats != nil {
		served = stats.Served
	}
	if served != "" && h.cache.Enabled() {
		h.metrics.cache.WithLabelValues(plugin, tool, served).Inc()
	}
	h.metrics.duration.WithLabelValues(plugin, tool).Observe(time.Since(start).Seconds())
	var requests, bytes, blocked int64
	if stats != nil {
		requests, bytes, blocked = stats.Requests.Load(), stats.Bytes.Load(), stats.Blocked.Load()
	}
	h.countCall(plugin, tool, c, outcome, items, requests, bytes, served)
	// The request's one log line carries it (requestlog.go).
	if noteCall(ctx, callNote{outcome: outcome, items: items, requests: requests, bytes: bytes, blocked: blocked,
		thread: c.Thread, durationMs: time.Since(start).Milliseconds(), withUpstreamCounts: stats != nil, served: served}) {
		return
	}
	h.log.Info("tool call", "request_id", RequestIDFrom(ctx), "plugin", plugin, "tool", tool, "outcome", outcome,
		"items", items, "duration_ms", time.Since(start).Milliseconds(), "thread", c.Thread,
		"upstream_requests", requests, "upstream_bytes", bytes, "served", served)
}

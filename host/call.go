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
			return h.maybeTask(ctx, &p, &t, req, run)
		}
		return run(ctx, req)
	}
}

// maybeTask runs a call that may become a task as one (callAsTask), when
// it carries a license.
func (h *Host) maybeTask(ctx context.Context, p *scrapers.Plugin, t *scrapers.Tool, req *mcp.CallToolRequest, run mcp.ToolHandler) (*mcp.CallToolResult, error) {
	if c, ok := callerOfRequest(ctx, req); ok {
		return h.callAsTask(ctx, *p, *t, c, req, run)
	}
	return run(ctx, req)
}

// callHandler is one call's run, from its start to its result.
//
// A call held in flight waits on its HTTP request's goroutine, under the
// router and the MCP route's steps (mcpRoute), and that goroutine's stack is
// the largest part of what the call holds. So the work before the wait
// (newCall, startCall) and after it (callRun.answer) is done in functions of
// their own, whose frames are gone while the call waits, and the wait's own
// frame is small: the stack stays within Go's 8 KB instead of growing to
// 16 KB (TestCallWaitsOnASmallStack; 8 MB for 1,000 calls).
func (h *Host) callHandler(p scrapers.Plugin, t scrapers.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		cr := h.newCall(ctx, &p, &t, req)
		defer cr.end(&res)
		if cr.res == nil {
			if cr.ka != nil {
				// The response's first bytes, now; here, since writing
				// them goes deep into net/http.
				cr.ka.start()
			}
			h.startCall(cr, ctx, req)
		}
		if cr.res != nil { // answered before any run: a bad argument, the cache
			return cr.res, nil
		}
		cr.wait()
		return cr.answer(), nil
	}
}

// callRun is one call between its start and its answer (callHandler).
type callRun struct {
	h     *Host
	p     *scrapers.Plugin
	t     *scrapers.Tool
	c     caller
	start time.Time
	ctx   context.Context // the call's own: its cancel ends it
	stats *callStats
	res   *mcp.CallToolResult // the answer given without a run

	// What end undoes (and the task's end), in the reverse order.
	ka         *keepAlive
	cancel     context.CancelCauseFunc
	ac         *activeCall
	unregister func()
	threadDone func()
	tr         *taskRun

	// The run it started or joined, and its wait.
	m         *resultcache.Member
	prog      *progress
	deadline  time.Duration // the call's, from its start
	stopWatch func() bool
	// How the wait ended.
	runErr, cause error
	entry         *resultcache.Entry // another replica's answer
}

// newCall is a call of the caller req carries; without one it is answered
// at once (cr.res).
func (h *Host) newCall(ctx context.Context, p *scrapers.Plugin, t *scrapers.Tool, req *mcp.CallToolRequest) *callRun {
	cr := &callRun{h: h, p: p, t: t, start: time.Now()}
	c, ok := callerOfRequest(ctx, req)
	if !ok {
		// Not reachable through the router, which checks the license first.
		cr.res = toolError("the call carried no license")
		return cr
	}
	cr.c = c
	cr.tr = taskRunFrom(ctx)
	cr.ka = keepAliveFrom(ctx)
	return cr
}

// startCall registers the call (in flight, for cancel by request id and by
// thread), reads its question, and answers it from the cache (cr.res) or
// starts (or joins) its run.
func (h *Host) startCall(cr *callRun, ctx context.Context, req *mcp.CallToolRequest) {
	p, t, c := cr.p, cr.t, cr.c
	ctx, cancel := context.WithCancelCause(ctx)
	cr.ctx, cr.cancel = ctx, cancel
	cr.ac = &activeCall{cancelCause: cancel}
	h.track(cr.ac, true)
	// A cancelled call gives its slot back at once (clientcancel.go).
	endCall := func(cause error) {
		cancel(cause)
		freeSlot(ctx)
	}
	cr.unregister = h.registerRequest(ctx, p.ID, c, func() { endCall(errClientCancelled) })
	if cr.tr != nil {
		// A task is cancelled by tasks/cancel, never by its request's id.
		cr.tr.onPromote(cr.unregister)
	}
	if c.Thread != "" {
		done, err := h.stores.Calls.Start(ctx, calls.Key{License: c.LicenseHash, Thread: c.Thread}, func() { endCall(scrapers.ErrCancelled) })
		if err != nil {
			h.log.Warn("call not registered for cancel", "plugin", p.ID, "err", err)
		} else {
			cr.threadDone = done
		}
	}
	cr.stats = &callStats{}
	args, maxAge, key, err := h.question(*p, *t, req.Params.Arguments)
	if err != nil {
		res, outcome := h.shape(ctx, *p, *t, c, scrapers.NewCall(nil), err, nil)
		h.observeCall(ctx, p.ID, t.Name, c, outcome, 0, cr.start, cr.stats)
		cr.res = res
		return
	}
	if e, ok := h.cache.Lookup(ctx, key, maxAge); ok {
		cr.stats.Served = servedCache
		cr.res = cr.cached(e)
		return
	}

	// The call's own deadline is measured from its start and gives what
	// was gathered rather than nothing; the run it starts (or joins)
	// has its own, from its start.
	deadline := h.runDeadline(ctx)
	cr.deadline = deadline
	cr.prog = newProgress(ctx, req)
	cr.stats.Served = servedFresh
	run := t.Run
	runCtx := ctx
	if _, ok := callerFrom(ctx); !ok { // read from the headers (callerOfRequest)
		runCtx = context.WithValue(ctx, ctxCaller, c)
	}
	cr.m = h.cache.Join(resultcache.Start{
		Key: key, MaxAge: maxAge,
		Context:  withCallStats(runCtx, cr.stats),
		Deadline: deadline, DeadlineCause: errDeadline,
		Run: func(runCtx context.Context, call *scrapers.Call) (err error) {
			defer func() {
				if r := recover(); r != nil {
					h.log.Error("tool panicked", "plugin", p.ID, "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					err = fmt.Errorf("the tool failed unexpectedly; the error was logged")
				}
			}()
			return run(runCtx, call, args)
		},
		Progress: cr.prog.report,
	})
	if rc := requestContext(ctx); rc != nil {
		cr.stopWatch = context.AfterFunc(rc, func() { cancel(errClientGone) })
	}
}

// wait waits for the run's answer, the call's deadline or its cancel, and
// sends the progress heartbeat meanwhile to a call that hears progress.
func (cr *callRun) wait() {
	var tick <-chan time.Time
	if cr.prog.beats() {
		t := time.NewTicker(ProgressInterval)
		defer t.Stop()
		tick = t.C
	}
	deadline := time.NewTimer(cr.deadline)
	defer deadline.Stop()
	m := cr.m
	for {
		select {
		case <-m.Done():
			cr.runErr, cr.cause, cr.entry = m.Result()
			return
		case <-tick:
			cr.prog.heartbeat(m.Call().Len())
		case <-deadline.C:
			cr.cause = errDeadline
		case <-cr.ctx.Done():
			cr.cause = context.Cause(cr.ctx)
		}
		if cr.cause != nil {
			// The call stops early: its deadline, a cancel by thread,
			// the drain, or the client leaving. The run stops too
			// unless another identical call still waits for it.
			if m.Leave(cr.cause) {
				select {
				case <-m.Done():
					cr.runErr, _, _ = m.Result()
				case <-time.After(stopGrace + time.Second):
					cr.runErr = cr.cause
				}
			}
			return
		}
	}
}

// answer is the result of a call whose wait ended.
func (cr *callRun) answer() *mcp.CallToolResult {
	h, p, t, c := cr.h, cr.p, cr.t, cr.c
	cause := cr.cause
	if cause == context.Canceled {
		cause = errClientGone // the SDK's own context ended
	}
	if !cr.m.Ran() {
		cr.stats.Served = servedShared
	}
	if cr.entry != nil { // another replica's run answered, through the cache
		cr.stats.Served = servedCache
		return cr.cached(*cr.entry)
	}
	res, outcome := h.shape(cr.ctx, *p, *t, c, cr.m.Call(), cr.runErr, cause)
	h.observeCall(cr.ctx, p.ID, t.Name, c, outcome, cr.m.Call().Len(), cr.start, cr.stats)
	h.check(p.ID, t.Name, res)
	return res
}

// cached is the result of a call answered by a stored answer.
func (cr *callRun) cached(e resultcache.Entry) *mcp.CallToolResult {
	h, p, t := cr.h, cr.p, cr.t
	res, outcome, items := h.shapeCached(cr.ctx, *p, *t, cr.c, e)
	h.observeCall(cr.ctx, p.ID, t.Name, cr.c, outcome, items, cr.start, cr.stats)
	h.check(p.ID, t.Name, res)
	return res
}

// end undoes what startCall registered, in the reverse order, once the call
// has its answer (*res; nil when the handler panicked).
func (cr *callRun) end(res **mcp.CallToolResult) {
	if cr.stopWatch != nil {
		cr.stopWatch()
	}
	if cr.tr != nil {
		// Before the thread's registration ends: POST /cancel answers
		// once the task's end is stored.
		cr.tr.finish(*res)
	}
	if cr.threadDone != nil {
		cr.threadDone()
	}
	if cr.unregister != nil {
		cr.unregister()
	}
	if cr.ac != nil {
		cr.h.track(cr.ac, false)
	}
	if cr.cancel != nil {
		cr.cancel(nil)
	}
	if cr.ka != nil {
		cr.ka.stop()
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

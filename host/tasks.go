package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/tasks"
	"github.com/surfsense/pluginhost/scrapers"
)

// MCP Tasks (the extension io.modelcontextprotocol/tasks of protocol
// 2026-07-28): a long tool call answered with a task its client polls
// (tasks/get, the result inlined once completed) and may cancel
// (tasks/cancel), from any replica. host/tasks keeps the tasks (Redis with
// REDIS_URL, else this replica's memory); tasksmethods.go answers tasks/*.
//
// Which calls become tasks — the rule, also in the README:
//
//  1. The request declares the extension: protocol 2026-07-28 (its
//     MCP-Protocol-Version) and io.modelcontextprotocol/tasks among the
//     extensions of its _meta's io.modelcontextprotocol/clientCapabilities.
//     Declaring it once (server/discover, an earlier call) counts for
//     nothing: every request says it again. Any other request keeps the
//     direct answer, progress, keep-alive and CALL_DEADLINE.
//  2. The tool is one of the plugin's own: get_result, which reads a stored
//     result, never becomes a task.
//  3. The call has not answered within TASK_AFTER (5 s; at most
//     CALL_DEADLINE; 0: at once). What answers at once (a cached answer, bad
//     arguments, one quick page) comes back directly; what goes on (a crawl
//     of many pages, many queries or pages, a channel's comments) becomes a
//     task, whose deadline is TASK_DEADLINE (30 m) rather than
//     CALL_DEADLINE, counted from the call's start.
//  4. The task can be stored where every replica reads it. When it cannot
//     (Redis down), the call goes on as a direct call within CALL_DEADLINE.
//
// A task is the call itself, moved off its request: the same run under the
// same slot of MAX_CONCURRENT_CALLS (kept until the run ends), the same rate
// limit (counted once, at its tools/call), the same result cache, usage
// counted once when it ends, the same metrics (tool_calls_total, with
// pluginhost_tasks_total beside it) and traces (the run's spans stay under
// the tools/call's span, which names the task). A task ends completed with
// the call's result (a tool error included: isError), cancelled (tasks/cancel,
// POST /cancel of its thread, or the drain), or failed when its replica
// stopped before it ended (its lease lapsed: CallTTL, 15 s with Redis).

// tasksExtension is the extension's id, in capabilities and in _meta.
const tasksExtension = "io.modelcontextprotocol/tasks"

// TaskPollInterval is the pollIntervalMs the host asks of its clients.
var TaskPollInterval = 2 * time.Second

// TaskKeep is how long a task is kept after its deadline: its ttlMs is
// TASK_DEADLINE plus this.
const TaskKeep = time.Hour

// taskEndRetry is how long a task's end is retried while the store does not
// answer; past it the task is failed by its lapsed lease.
const taskEndRetry = 30 * time.Second

// taskProgressEvery bounds the writes of a task's statusMessage.
var taskProgressEvery = 500 * time.Millisecond

// errTaskCancelled is the cause of a task's run ended by tasks/cancel.
var errTaskCancelled = errors.New("the task was cancelled (tasks/cancel)")

// errAnsweredAsTask tells directCalls.serve that the call's answer, a
// CreateTaskResult, was sent already.
var errAnsweredAsTask = errors.New("answered with a task")

const ctxTaskRun ctxKey = 204

func taskRunFrom(ctx context.Context) *taskRun {
	tr, _ := ctx.Value(ctxTaskRun).(*taskRun)
	return tr
}

// declaresTasks reports whether a request's _meta declares the extension
// among its client capabilities: an object (today always {}) under
// clientCapabilities.extensions["io.modelcontextprotocol/tasks"].
func declaresTasks(meta map[string]any) bool {
	caps, _ := meta[metaClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[tasksExtension].(map[string]any)
	return ok
}

// offersTask reports whether the call may become a task (rules 1 and 2;
// toolHandler serves only the plugin's own tools). Only a direct call can
// answer with a CreateTaskResult: the SDK's handler cannot.
func offersTask(ctx context.Context, req *mcp.CallToolRequest) bool {
	if directCallFrom(ctx) == nil || taskRunFrom(ctx) != nil || req.Extra == nil || req.Params == nil {
		return false
	}
	if req.Extra.Header.Get("MCP-Protocol-Version") < newProtocol {
		return false
	}
	return declaresTasks(req.Params.Meta)
}

// taskMetrics are the tasks' own series beside tool_calls_total.
type taskMetrics struct {
	total   *prometheus.CounterVec
	running prometheus.Gauge
}

func newTaskMetrics(reg prometheus.Registerer) *taskMetrics {
	m := &taskMetrics{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "pluginhost", Name: "tasks_total",
			Help: "MCP Tasks by plugin, tool and what happened: created, then completed, cancelled or failed (by the replica that ran it; a task lost with its replica is failed by the next read, not counted here).",
		}, []string{"plugin", "tool", "status"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "pluginhost", Name: "tasks_running", Help: "MCP Tasks running on this replica.",
		}),
	}
	reg.MustRegister(m.total, m.running)
	return m
}

// The states of a call that may become a task.
const (
	runRunning  = iota // not answered yet, not a task yet
	runAnswered        // ended before TASK_AFTER: answered directly
	runTask            // a task: its end goes to the store
	runDirect          // could not be stored: answered directly
)

// taskRun is one call that may become a task.
type taskRun struct {
	h      *Host
	plugin scrapers.Plugin
	tool   string
	c      caller
	start  time.Time
	cancel context.CancelCauseFunc // the run's
	// forward sends progress to the request's stream before the call is a
	// task (a client that gave a progress token hears it as ever).
	forward func(context.Context, *mcp.ProgressNotificationParams) error
	done    chan struct{} // the call returned

	mu        sync.Mutex
	state     int
	outcome   string // observeCall's
	message   string // the last progress message
	written   string // the last one stored
	writing   bool
	atPromote []func()
	task      tasks.Task
	lease     tasks.Lease
	slot      *callSlot
	unreg     func() // the task id's cancel registration
	res       *mcp.CallToolResult
	err       error
}

// callAsTask runs the call, answering it directly when it ends within
// TASK_AFTER and with a task otherwise (the rule above).
func (h *Host) callAsTask(ctx context.Context, p scrapers.Plugin, t scrapers.Tool, c caller, req *mcp.CallToolRequest, run mcp.ToolHandler) (*mcp.CallToolResult, error) {
	tr := &taskRun{h: h, plugin: p, tool: t.Name, c: c, start: time.Now(), done: make(chan struct{})}
	dc := directCallFrom(ctx)
	tr.forward = dc.notifyProgress
	if ka := keepAliveFrom(ctx); ka != nil {
		ka.start()
		defer ka.stop()
	}
	// The run outlives the request once it is a task: it keeps the
	// request's values (caller, message, slot, span) but not its end, and
	// writes nothing to the response itself.
	rctx := context.WithoutCancel(ctx)
	rctx = context.WithValue(rctx, ctxKeepAlive, (*keepAlive)(nil))
	rctx = context.WithValue(rctx, ctxRequestDone, nil)
	rctx = context.WithValue(rctx, ctxTaskRun, tr)
	rctx, tr.cancel = context.WithCancelCause(rctx)
	tr.slot = slotFrom(ctx)
	if rc := requestContext(ctx); rc != nil {
		// The client leaving ends the call as long as it is not a task.
		stop := context.AfterFunc(rc, func() {
			if tr.direct() {
				tr.cancel(errClientGone)
			}
		})
		defer stop()
	}
	go func() {
		defer close(tr.done)
		res, err := run(rctx, req)
		tr.mu.Lock()
		tr.res, tr.err = res, err
		tr.mu.Unlock()
	}()
	after := time.NewTimer(min(h.cfg.TaskAfter, h.cfg.CallDeadline))
	defer after.Stop()
	select {
	case <-tr.done:
		return tr.result()
	case <-after.C:
	}
	if tr.promote(ctx) {
		msg, _ := messageFrom(ctx)
		raw, err := tr.createResult()
		if err == nil {
			dc.send(wireMessage{ID: msg.ID, Result: raw})
			noteTask(ctx, tr.task.ID)
			h.log.Info("task created", "request_id", RequestIDFrom(ctx), "plugin", p.ID, "tool", t.Name, "task_id", tr.task.ID, "thread", c.Thread,
				"after_ms", time.Since(tr.start).Milliseconds())
			return nil, errAnsweredAsTask
		}
		dc.send(wireMessage{ID: msg.ID, Error: &wireError{Code: -32603, Message: err.Error()}})
		return nil, errAnsweredAsTask
	}
	// Not a task: a direct call, within CALL_DEADLINE from its start.
	deadline := time.NewTimer(max(h.cfg.CallDeadline-time.Since(tr.start), 0))
	defer deadline.Stop()
	select {
	case <-tr.done:
	case <-deadline.C:
		tr.cancel(errDeadline)
		<-tr.done
	}
	return tr.result()
}

func (tr *taskRun) result() (*mcp.CallToolResult, error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.res, tr.err
}

// direct reports whether the call is (still) answered on its request.
func (tr *taskRun) direct() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.state != runTask
}

// onPromote runs f when the call becomes a task (at once if it is one).
func (tr *taskRun) onPromote(f func()) {
	tr.mu.Lock()
	if tr.state != runTask {
		tr.atPromote = append(tr.atPromote, f)
		f = nil
	}
	tr.mu.Unlock()
	if f != nil {
		f()
	}
}

// promote makes the call a task, stored before it is announced, and
// reports whether it did.
func (tr *taskRun) promote(ctx context.Context) bool {
	h := tr.h
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.state != runRunning {
		return false
	}
	now := h.now().UTC().Truncate(time.Millisecond)
	msg := tr.message
	if msg == "" {
		msg = "working"
	}
	t := tasks.Task{ID: tasks.NewID(), Owner: tr.c.LicenseHash, Plugin: tr.plugin.ID, Tool: tr.tool, Thread: tr.c.Thread,
		Status: tasks.Working, StatusMessage: msg, Created: now, Updated: now, TTL: h.cfg.TaskDeadline + TaskKeep}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lease, err := h.stores.Tasks.Create(cctx, t)
	if err != nil {
		tr.state = runDirect
		h.log.Warn("a call that would become a task is answered directly: the task could not be stored", "request_id", RequestIDFrom(ctx),
			"plugin", tr.plugin.ID, "tool", tr.tool, "err", err)
		return false
	}
	tr.state, tr.task, tr.lease, tr.written = runTask, t, lease, msg
	// The slot under MAX_CONCURRENT_CALLS stays taken until the run ends.
	if tr.slot != nil {
		tr.slot.keep()
	}
	// tasks/cancel reaches the run on whichever replica holds it.
	unreg, err := h.stores.Calls.StartRequest(cctx, calls.Request{License: tr.c.LicenseHash, Plugin: tr.plugin.ID, ID: taskCancelID(t.ID), Thread: tr.c.Thread},
		func() { tr.cancel(errTaskCancelled) })
	if err != nil {
		h.log.Warn("task not registered for tasks/cancel on other replicas", "task_id", t.ID, "err", err)
		unreg = func() {}
	}
	tr.unreg = unreg
	for _, f := range tr.atPromote {
		f()
	}
	tr.atPromote = nil
	h.taskMetrics.total.WithLabelValues(tr.plugin.ID, tr.tool, "created").Inc()
	h.taskMetrics.running.Inc()
	return true
}

// taskCancelID names a task's run in the calls registry: never a JSON-RPC
// id (those are quoted strings or integers), so no client's
// notifications/cancelled reaches it.
func taskCancelID(id string) string { return "task:" + id }

// noteOutcome keeps observeCall's outcome for the task's end.
func (tr *taskRun) noteOutcome(outcome string) {
	tr.mu.Lock()
	tr.outcome = outcome
	tr.mu.Unlock()
}

// progress hears the call's progress: to the request's stream before the
// call is a task, to the task's statusMessage after.
func (tr *taskRun) progress(ctx context.Context, pp *mcp.ProgressNotificationParams) error {
	tr.mu.Lock()
	tr.message = pp.Message
	state := tr.state
	start := state == runTask && !tr.writing && tr.message != tr.written
	if start {
		tr.writing = true
	}
	tr.mu.Unlock()
	if state != runTask {
		if pp.ProgressToken != nil && tr.forward != nil {
			return tr.forward(ctx, pp)
		}
		return nil
	}
	if start {
		go tr.writeProgress()
	}
	return nil
}

// writeProgress stores the latest message, at most every
// taskProgressEvery, until no newer one waits.
func (tr *taskRun) writeProgress() {
	for {
		tr.mu.Lock()
		msg := tr.message
		if msg == tr.written || tr.state != runTask {
			tr.writing = false
			tr.mu.Unlock()
			return
		}
		tr.written = msg
		t := tr.task
		tr.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err := tr.h.stores.Tasks.Progress(ctx, t.Owner, t.ID, msg, tr.h.now().UTC()); err != nil && !errors.Is(err, tasks.ErrNotFound) {
			tr.h.log.Debug("task progress not stored", "task_id", t.ID, "err", err)
		}
		cancel()
		time.Sleep(taskProgressEvery)
	}
}

// finish is the call's end (call.go runs it before the call's thread
// registration ends, so POST /cancel finds the task ended when it
// answers): a task's end goes to the store; a direct call's is its answer.
func (tr *taskRun) finish(res *mcp.CallToolResult) {
	h := tr.h
	tr.mu.Lock()
	if tr.state == runRunning {
		tr.state = runAnswered
	}
	if tr.state != runTask {
		tr.mu.Unlock()
		return
	}
	t, outcome := tr.task, tr.outcome
	tr.mu.Unlock()
	end := tasks.End{At: h.now().UTC().Truncate(time.Millisecond)}
	switch {
	case res == nil:
		end.Status, end.Message = tasks.Failed, "failed: the tool returned no result"
		end.Error = &tasks.RPCError{Code: tasks.CodeInternalError, Message: "the tool returned no result"}
	case outcome == "cancelled":
		end.Status, end.Message = tasks.Cancelled, "cancelled: "+resultText(res)
	default:
		raw, err := completeResult(res, serverImplementation(tr.plugin))
		if err != nil {
			end.Status, end.Message = tasks.Failed, "failed: "+err.Error()
			end.Error = &tasks.RPCError{Code: tasks.CodeInternalError, Message: err.Error()}
			break
		}
		end.Status, end.Result = tasks.Completed, raw
		end.Message = "completed"
		if res.IsError {
			end.Message = "completed with a tool error: " + truncate(resultText(res), 200)
		}
	}
	got, err := h.endTask(t, end)
	if err != nil {
		h.log.Error("task end not stored; its lease lapses and it reads as failed", "task_id", t.ID, "plugin", t.Plugin, "err", err)
	}
	tr.lease.Release()
	tr.unreg()
	if tr.slot != nil {
		tr.slot.release()
	}
	h.taskMetrics.running.Dec()
	status := string(got.Status)
	if err != nil {
		status = "failed"
	}
	h.taskMetrics.total.WithLabelValues(t.Plugin, t.Tool, status).Inc()
	h.log.Info("task ended", "task_id", t.ID, "plugin", t.Plugin, "tool", t.Tool, "thread", t.Thread, "status", status, "outcome", outcome,
		"duration_ms", time.Since(tr.start).Milliseconds())
}

// endTask stores a task's end, retrying while the store does not answer
// (up to taskEndRetry).
func (h *Host) endTask(t tasks.Task, end tasks.End) (tasks.Task, error) {
	deadline := time.Now().Add(taskEndRetry)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := h.stores.Tasks.Finish(ctx, t.Owner, t.ID, end)
		cancel()
		if err == nil || errors.Is(err, tasks.ErrNotFound) || time.Now().After(deadline) {
			return got, err
		}
		time.Sleep(time.Second)
	}
}

// resultText is a result's text, for a statusMessage.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// completeResult is a tool result as a request of 2026-07-28 gets it
// (SEP-2575): never null content, the server named in _meta, and
// resultType "complete". The direct calls answer with it; a completed task
// carries it whole.
func completeResult(res *mcp.CallToolResult, impl *mcp.Implementation) (json.RawMessage, error) {
	res2 := *res
	res = &res2
	if res.Content == nil {
		res.Content = []mcp.Content{} // as the SDK: never "null"
	}
	if _, named := res.Meta[metaServerInfo]; !named {
		m := make(mcp.Meta, len(res.Meta)+1)
		maps.Copy(m, res.Meta)
		m[metaServerInfo] = impl
		res.Meta = m
	}
	raw, err := marshalNoEscape(res)
	if err != nil {
		return nil, err
	}
	// The SDK's resultType is unexported; it is the wire's last member (the
	// host's results ask no input of the client).
	return append(raw[:len(raw)-1], `,"resultType":"complete"}`...), nil
}

// taskWire is a task on the wire: CreateTaskResult, and tasks/get's
// DetailedTask.
type taskWire struct {
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         tasks.Status    `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          int64           `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *tasks.RPCError `json:"error,omitempty"`
	Meta           map[string]any  `json:"_meta,omitempty"`
}

func wireTask(t tasks.Task, resultType string) taskWire {
	w := taskWire{ResultType: resultType, TaskID: t.ID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.Created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs: t.TTL.Milliseconds(), PollIntervalMs: TaskPollInterval.Milliseconds()}
	switch t.Status {
	case tasks.Completed:
		w.Result = t.Result
		if w.Result == nil {
			w.Result = json.RawMessage(`{}`)
		}
	case tasks.Failed:
		w.Error = t.Error
		if w.Error == nil {
			w.Error = &tasks.RPCError{Code: tasks.CodeInternalError, Message: t.StatusMessage}
		}
	}
	return w
}

// createResult is the CreateTaskResult of the task just stored.
func (tr *taskRun) createResult() (json.RawMessage, error) {
	tr.mu.Lock()
	w := wireTask(tr.task, "task")
	tr.mu.Unlock()
	w.Meta = map[string]any{metaServerInfo: serverImplementation(tr.plugin)}
	return marshalNoEscape(w)
}

// runDeadline is the deadline a call's run starts with: TASK_DEADLINE for
// a call that may become a task, else CALL_DEADLINE.
func (h *Host) runDeadline(ctx context.Context) time.Duration {
	if taskRunFrom(ctx) != nil {
		return h.cfg.TaskDeadline
	}
	return h.cfg.CallDeadline
}

// deadlineOf is the deadline the call in ctx answers by: TASK_DEADLINE for a
// task, else CALL_DEADLINE.
func (h *Host) deadlineOf(ctx context.Context) time.Duration {
	if tr := taskRunFrom(ctx); tr != nil && !tr.direct() {
		return h.cfg.TaskDeadline
	}
	return h.cfg.CallDeadline
}

func init() {
	// tasks/* in spans, metrics and logs by name rather than _OTHER.
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		mcpMethods[m] = true
	}
}

// taskCancelledMessage is the tool error of a run ended by tasks/cancel.
func taskCancelledMessage(p scrapers.Plugin) string {
	return fmt.Sprintf("The task was cancelled (tasks/cancel): %s stopped and sent no further requests.", p.Name)
}

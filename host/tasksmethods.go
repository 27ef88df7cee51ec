package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/tasks"
)

// The extension's methods (tasks.go says which calls become tasks):
// tasks/get answers a task's state, its result inlined once completed;
// tasks/cancel stops its run on whichever replica holds it; tasks/update
// acknowledges (the host's tasks never ask their client for input). Each
// reads the task from the store every replica shares, by the license that
// made it: an unknown id, an expired one and another license's answer alike
// (-32602). The request must declare the extension in its _meta (-32021
// otherwise), as in 2026-07-28, and carry the task id in Mcp-Name (-32020
// otherwise) so that an ingress could route it.

// JSON-RPC codes of protocol 2026-07-28 the tasks' methods answer with.
const (
	codeHeaderMismatch     = -32020 // SEP-2243: a header disagrees with the body
	codeMissingCapability  = -32021 // the request does not declare the extension
	codeInternalTasksError = -32603
)

// taskAnswer is one answer of a tasks/* method: a result or an error.
type taskAnswer struct {
	status int
	result any
	code   int
	msg    string
	data   any
	reason string // http_refusals_total's, for an error
}

func taskError(status, code int, reason, msg string) taskAnswer {
	return taskAnswer{status: status, code: code, msg: msg, reason: reason}
}

// serveTaskMethod answers tasks/get, tasks/update and tasks/cancel. It is a
// step of mcpRoute, after the body gate, the span and the license check.
func (h *Host) serveTaskMethod(w http.ResponseWriter, r *http.Request, plugin string, msg *rpcMessage) {
	a := h.taskMethod(r, plugin, msg)
	if a.code != 0 {
		h.metrics.refusals.WithLabelValues(a.reason).Inc()
		noteErrorType(w, strconv.Itoa(a.code))
	}
	jsonOK, _ := acceptsFor(r.Header.Values("Accept"))
	writeRPCAnswer(w, a, msg.ID, !jsonOK)
}

// taskMethod checks one tasks/* request and acts on it.
func (h *Host) taskMethod(r *http.Request, plugin string, msg *rpcMessage) taskAnswer {
	ctx := r.Context()
	hv := r.Header.Get("MCP-Protocol-Version")
	if hv < newProtocol {
		return taskError(http.StatusOK, codeMethodNotFound, "method_not_found",
			"method not found: "+truncate(msg.Method, 32)+" belongs to MCP Tasks (io.modelcontextprotocol/tasks) of protocol 2026-07-28: send MCP-Protocol-Version: 2026-07-28 and declare the extension in _meta")
	}
	if m := r.Header.Get("Mcp-Method"); m != msg.Method {
		return taskError(http.StatusBadRequest, codeHeaderMismatch, "header_mismatch", "header mismatch: Mcp-Method must be "+msg.Method)
	}
	params, ok := uniqueMembers(msg.Params)
	if !ok {
		return taskError(http.StatusBadRequest, codeInvalidParams, "invalid_params", "invalid params: a member is named twice")
	}
	var id string
	if raw, has := params["taskId"]; !has || json.Unmarshal(raw, &id) != nil || id == "" {
		return taskError(http.StatusOK, codeInvalidParams, "invalid_params", "invalid params: "+msg.Method+" needs params.taskId, the taskId its tools/call returned")
	}
	if r.Header.Get("Mcp-Name") != id {
		return taskError(http.StatusBadRequest, codeHeaderMismatch, "header_mismatch", "header mismatch: Mcp-Name must carry params.taskId")
	}
	meta, ok := metaAgrees(params["_meta"], hv, true)
	if !ok {
		return taskError(http.StatusBadRequest, codeInvalidParams, "invalid_params",
			"invalid params: _meta must carry io.modelcontextprotocol/protocolVersion (the MCP-Protocol-Version header's) and io.modelcontextprotocol/clientCapabilities")
	}
	var decoded map[string]any
	if raw, has := meta[metaClientCapabilities]; has {
		var caps map[string]any
		if json.Unmarshal(raw, &caps) == nil {
			decoded = map[string]any{metaClientCapabilities: caps}
		}
	}
	if !declaresTasks(decoded) {
		a := taskError(http.StatusOK, codeMissingCapability, "missing_capability", "missing required client capability: declare io.modelcontextprotocol/tasks in _meta's clientCapabilities.extensions")
		a.data = map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}}
		return a
	}
	if msg.Method == "tasks/update" {
		if raw, has := params["inputResponses"]; !has || len(raw) == 0 || raw[0] != '{' {
			return taskError(http.StatusOK, codeInvalidParams, "invalid_params", "invalid params: tasks/update needs params.inputResponses, an object")
		}
	}
	c, _ := callerFrom(ctx)
	noteTask(ctx, id)
	t, err := h.stores.Tasks.Get(ctx, c.LicenseHash, id)
	if err == nil && t.Plugin != plugin {
		err = tasks.ErrNotFound // another plugin's task is no task here
	}
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return taskError(http.StatusOK, codeInvalidParams, "task_not_found", "invalid params: no such task: it expired, was never made, or belongs to another license")
	case err != nil:
		h.log.Warn("tasks could not be read", "request_id", RequestIDFrom(ctx), "plugin", plugin, "err", err)
		return taskError(http.StatusOK, codeInternalTasksError, "tasks_unavailable", "internal error: the tasks could not be read for a moment; send the request again")
	}
	switch msg.Method {
	case "tasks/get":
		return taskAnswer{status: http.StatusOK, result: wireTask(t, "complete")}
	case "tasks/cancel":
		h.cancelTask(ctx, plugin, c, t)
		return taskAnswer{status: http.StatusOK, result: map[string]string{"resultType": "complete"}}
	case "tasks/update":
		// Nothing of the host's tasks is outstanding: responses to keys
		// never issued are ignored, as the extension asks.
		return taskAnswer{status: http.StatusOK, result: map[string]string{"resultType": "complete"}}
	}
	return taskError(http.StatusOK, codeMethodNotFound, "method_not_found", "method not found: "+truncate(msg.Method, 32)+"; MCP Tasks has tasks/get, tasks/update and tasks/cancel")
}

// cancelTask ends a working task: cancelled in the store at once (so every
// replica reads it so), then its run stopped on whichever replica holds it,
// through the calls registry's cancel by id (clientcancel.go). A task that
// already ended is left as it is.
func (h *Host) cancelTask(ctx context.Context, plugin string, c caller, t tasks.Task) {
	if t.Status.Terminal() {
		return
	}
	start := time.Now()
	end := tasks.End{Status: tasks.Cancelled, Message: "cancelled by tasks/cancel", At: h.now().UTC().Truncate(time.Millisecond)}
	if _, err := h.stores.Tasks.Finish(ctx, c.LicenseHash, t.ID, end); err != nil {
		h.log.Warn("task cancel not stored", "request_id", RequestIDFrom(ctx), "task_id", t.ID, "err", err)
	}
	matched, err := h.stores.Calls.CancelRequest(ctx, calls.Request{License: c.LicenseHash, Plugin: plugin, ID: taskCancelID(t.ID)})
	if err != nil {
		h.log.Warn("tasks/cancel could not reach every replica", "request_id", RequestIDFrom(ctx), "task_id", t.ID, "err", err)
	}
	h.log.Info("task cancelled", "request_id", RequestIDFrom(ctx), "plugin", plugin, "task_id", t.ID, "runs_reached", matched,
		"took_ms", time.Since(start).Milliseconds())
}

// writeRPCAnswer writes a JSON-RPC response: as one JSON body, or as one
// event of an event stream to a client that takes only that.
func writeRPCAnswer(w http.ResponseWriter, a taskAnswer, id json.RawMessage, sse bool) {
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	body := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *rpcErr         `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	if a.code != 0 {
		body.Error = &rpcErr{Code: a.code, Message: a.msg, Data: a.data}
	} else {
		body.Result = a.result
	}
	b, err := marshalNoEscape(body)
	if err != nil {
		a.status, b = http.StatusInternalServerError, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if sse && a.status == http.StatusOK {
		h.Set("Content-Type", "text/event-stream")
		w.WriteHeader(a.status)
		_, _ = w.Write(append(append([]byte("event: message\ndata: "), b...), "\n\n"...))
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write(append(b, '\n'))
}

// noteTask names the task on the request's span (mcp.task.id).
func noteTask(ctx context.Context, id string) {
	r := mcpRequestFrom(ctx)
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.span != nil {
		r.span.SetAttributes(attribute.String("mcp.task.id", id))
	}
	r.mu.Unlock()
}

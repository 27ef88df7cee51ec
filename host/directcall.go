package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Direct calls: a tool call held in flight through the SDK costs a session
// of its own (two more goroutines, a connection, the decoders of its _meta),
// which for a call that waits minutes on a slow site is most of what it
// holds. A tools/call whose every part the SDK reads is known (directShape)
// is run here instead: the same tool handler, the same events in the same
// bytes (each JSON-RPC message an SSE "message" event, encoded as the SDK
// encodes it), the same progress notifications; the keep-alive, cancel,
// deadline, limits, metrics and logs are the host's, as for any call.
// Anything else (an unknown tool, params the SDK would read otherwise, a
// client that takes only JSON) goes to the SDK. TestDirectCallsMatchTheSDK
// compares the two.

// ctxDirectCall was 202, the key of the call's slot (clientcancel.go), which
// it hid: a direct call's cancel could not free its slot at once.
const ctxDirectCall ctxKey = 203

// metaServerInfo names the server in a 2026-07-28 result's _meta.
const metaServerInfo = "io.modelcontextprotocol/serverInfo"

// directCalls runs a plugin's tools/call requests without the SDK.
type directCalls struct {
	impl     *mcp.Implementation // the servers' own, named in 2026-07-28's results
	handlers map[string]mcp.ToolHandler
	fast     *fastAnswers // its shape checks and its switch
	served   atomic.Int64
}

// directCall is one call's response: its events go out one at a time.
type directCall struct {
	mu       sync.Mutex
	w        http.ResponseWriter // the keep-alive writer
	jsonOnly bool                // one JSON body: the result alone, unframed

	ka       *keepAlive
	impl     *mcp.Implementation
	newProto bool // 2026-07-28 or later: the result is marked complete
	handler  mcp.ToolHandler
	req      *mcp.CallToolRequest
}

func directCallFrom(ctx context.Context) *directCall {
	d, _ := ctx.Value(ctxDirectCall).(*directCall)
	return d
}

// callParams are the members of tools/call's params the SDK reads.
type callParams struct {
	name      string
	arguments json.RawMessage
	meta      mcp.Meta
	newProto  bool // 2026-07-28 or later, by MCP-Protocol-Version
}

// serve runs r's tool call and reports whether it did; false leaves the
// request untouched for the SDK. The call waits in handler, under serve's
// frame: the work before and after it is in begin and answer, so that every
// call's stack does not hold their frames (callHandler says why).
func (d *directCalls) serve(w http.ResponseWriter, r *http.Request, msg *rpcMessage) bool {
	dc, ctx := d.begin(w, r, msg)
	if dc == nil {
		return false
	}
	defer dc.ka.close()
	res, err := dc.handler(ctx, dc.req)
	dc.answer(r.Context(), msg, res, err)
	return true
}

// begin reads r's call and starts its response, or returns nil when the
// call is the SDK's.
func (d *directCalls) begin(w http.ResponseWriter, r *http.Request, msg *rpcMessage) (*directCall, context.Context) {
	if msg.Method != "tools/call" || d.fast.off.Load() {
		return nil, nil
	}
	p, ok := d.shape(r, msg)
	if !ok {
		return nil, nil
	}
	// The SDK sets these before it hands the call to its handler, which
	// starts the response at once (keepalive.go). A client that takes only
	// JSON gets one JSON body, after the keep-alive's newlines (JSON allows
	// whitespace before a value), and no progress: the SDK would answer it
	// only at the end, in an array around the result, with nothing before.
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	if msg.JSONOnly {
		h.Set("Content-Type", "application/json")
	} else {
		h.Set("Content-Type", "text/event-stream")
		h.Set("Connection", "keep-alive")
	}
	ka := newKeepAlive(w, !msg.JSONOnly)
	dc := &directCall{w: ka, jsonOnly: msg.JSONOnly, ka: ka, impl: d.impl, newProto: p.newProto, handler: d.handlers[p.name]}
	ctx := context.WithValue(r.Context(), ctxKeepAlive, ka)
	ctx = context.WithValue(ctx, ctxDirectCall, dc)
	dc.req = &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Meta: p.meta, Name: p.name, Arguments: p.arguments},
		Extra:  &mcp.RequestExtra{Header: r.Header},
	}
	d.served.Add(1)
	return dc, ctx
}

// answer sends the handler's answer (ctx is the request's).
func (dc *directCall) answer(ctx context.Context, msg *rpcMessage, res *mcp.CallToolResult, err error) {
	if errors.Is(err, errAnsweredAsTask) {
		return // a CreateTaskResult went out (tasks.go)
	}
	noteMCPResult(ctx, res, err)
	if err != nil || res == nil {
		// The host's handlers answer every failure as a tool error; a Go
		// error here is a bug, answered as the SDK answers one.
		dc.send(wireMessage{ID: msg.ID, Error: &wireError{Code: -32603, Message: errorText(err)}})
		return
	}
	var raw []byte
	var merr error
	if dc.newProto {
		// As the SDK answers a request of 2026-07-28 (SEP-2575): the
		// result says it is complete and names the server in _meta.
		raw, merr = completeResult(res, dc.impl)
	} else {
		res2 := *res
		if res2.Content == nil {
			res2.Content = []mcp.Content{} // as the SDK: never "null"
		}
		raw, merr = marshalNoEscape(&res2)
	}
	if merr != nil {
		dc.send(wireMessage{ID: msg.ID, Error: &wireError{Code: -32603, Message: merr.Error()}})
		return
	}
	dc.send(wireMessage{ID: msg.ID, Result: raw})
}

func errorText(err error) string {
	if err == nil {
		return "the tool returned no result"
	}
	return err.Error()
}

// shape checks r as fastAnswers.shape does for the other methods, and
// reads the call's params: a tool this server has, arguments as an object
// (or none), and _meta with at most a progress token the SDK writes back
// as it came.
func (d *directCalls) shape(r *http.Request, msg *rpcMessage) (callParams, bool) {
	var p callParams
	if msg.ID == nil || !plainID(msg.ID) {
		return p, false
	}
	hv, newProto, ok := d.fast.knownHeaders(r, msg.Method)
	if !ok {
		return p, false
	}
	params, ok := uniqueMembers(msg.Params)
	if !ok || params == nil || !onlyMembers(params, "name", "arguments", "_meta") {
		return p, false
	}
	name, ok := plainString(params["name"])
	if !ok || d.handlers[name] == nil {
		return p, false
	}
	if newProto && r.Header.Get("Mcp-Name") != name {
		return p, false
	}
	if a, ok := params["arguments"]; ok {
		if len(a) == 0 || a[0] != '{' {
			return p, false
		}
		p.arguments = a
	}
	rawMeta := params["_meta"]
	meta, ok := metaAgrees(rawMeta, hv, newProto)
	if !ok {
		return p, false
	}
	if rawMeta != nil {
		if tok, ok := meta["progressToken"]; ok && !plainID(tok) {
			return p, false // the SDK reads a token as any JSON; only plain ones come back the same
		}
		if err := json.Unmarshal(rawMeta, &p.meta); err != nil {
			return p, false
		}
	}
	p.name, p.newProto = name, newProto
	return p, true
}

// plainString is raw's string when it is a JSON string without escapes.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw[1:len(raw)-1], '\\') >= 0 || bytes.IndexByte(raw[1:len(raw)-1], '"') >= 0 {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// notifyProgress sends one progress notification, as the SDK's
// ServerSession.NotifyProgress does.
func (dc *directCall) notifyProgress(_ context.Context, params *mcp.ProgressNotificationParams) error {
	raw, err := marshalNoEscape(params)
	if err != nil {
		return err
	}
	dc.send(wireMessage{Method: "notifications/progress", Params: raw})
	return nil
}

// wireMessage is a JSON-RPC message as the SDK's jsonrpc2 writes one.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// send writes m as one SSE message event and flushes it. A result or a
// notification (the common messages) is framed by hand: its params or
// result are already compact JSON from marshalNoEscape, so encoding/json
// would only scan them again to write the same bytes.
func (dc *directCall) send(m wireMessage) {
	head, tail := "event: message\ndata: ", "\n\n"
	if dc.jsonOnly {
		if m.ID == nil {
			return // a notification: a JSON body carries the result alone
		}
		head, tail = "", ""
	}
	var b []byte
	switch {
	case m.Error == nil && m.Result != nil && m.Method == "":
		b = make([]byte, 0, len(head)+len(m.ID)+len(m.Result)+48)
		b = append(append(append(append(b, head+`{"jsonrpc":"2.0","id":`...), m.ID...), `,"result":`...), m.Result...)
		b = append(b, "}"+tail...)
	case m.Error == nil && m.ID == nil && m.Params != nil:
		b = make([]byte, 0, len(head)+len(m.Method)+len(m.Params)+48)
		b = append(append(append(append(b, head+`{"jsonrpc":"2.0","method":"`...), m.Method...), `","params":`...), m.Params...)
		b = append(b, "}"+tail...)
	default:
		m.JSONRPC = "2.0"
		data, err := marshalNoEscape(&m)
		if err != nil {
			return
		}
		b = append(append([]byte(head), data...), tail...)
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if _, err := dc.w.Write(b); err == nil {
		_ = http.NewResponseController(dc.w).Flush()
	}
}

// marshalNoEscape is json.Marshal without HTML escaping, as the SDK
// encodes its messages.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

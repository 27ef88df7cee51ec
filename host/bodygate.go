package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMCPBodyBytes bounds one MCP request body.
const MaxMCPBodyBytes = 1 << 20

// MaxJSONDepth bounds how deeply an MCP request's JSON nests (objects and
// arrays). No MCP message a client sends nests deeper than a dozen levels; a
// deeper body is refused before it is decoded.
const MaxJSONDepth = 64

// maxIDBytes bounds a request id's JSON text: clients send counters and short
// strings, and the id is matched by notifications/cancelled.
const maxIDBytes = 256

const ctxMessage ctxKey = 200

// rpcMessage is the JSON-RPC message of one MCP request, as the body gate
// read it. The later steps (limits, cancel, traces, the fast answers) read it
// from the context instead of parsing the body again; the SDK gets the body
// whole.
type rpcMessage struct {
	Method string
	ID     json.RawMessage // nil for a notification; else a JSON string or integer
	Params json.RawMessage // nil when absent; else a JSON object
	Body   []byte
	// JSONOnly: the client accepts application/json but not
	// text/event-stream, so the answer is one JSON body (mcp.go).
	JSONOnly bool
}

// IsNotification reports whether the message has no id (nothing answers it).
func (m *rpcMessage) IsNotification() bool { return m.ID == nil }

func messageFrom(ctx context.Context) (*rpcMessage, bool) {
	m, ok := ctx.Value(ctxMessage).(*rpcMessage)
	return m, ok
}

// The JSON-RPC error codes the host answers with (JSON-RPC 2.0, section 5.1).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// rpcError is one refusal of the body gate: the HTTP status, the JSON-RPC
// error and the reason counted in http_refusals_total.
type rpcError struct {
	Status  int
	Code    int
	Message string
	Reason  string
}

func (e *rpcError) Error() string { return e.Message }

func parseError(format string, a ...any) *rpcError {
	return &rpcError{Status: http.StatusBadRequest, Code: codeParseError, Reason: "parse_error",
		Message: "parse error: " + fmt.Sprintf(format, a...)}
}

func invalidRequest(format string, a ...any) *rpcError {
	return &rpcError{Status: http.StatusBadRequest, Code: codeInvalidRequest, Reason: "invalid_request",
		Message: "invalid request: " + fmt.Sprintf(format, a...)}
}

// serverMethods are the methods a client may send this host, a stateless
// server of tools only, with what each needs. Anything else (prompts/*,
// resources/*, logging/setLevel, completion/complete, subscriptions/listen)
// is answered -32601 here, before the SDK or the limits see it: the host
// advertises none of those capabilities.
var serverMethods = map[string]methodRule{
	"initialize":                       {needsParams: true},
	"server/discover":                  {}, // 2026-07-28's initialize
	"ping":                             {},
	"tools/list":                       {},
	"tools/call":                       {needsParams: true},
	"notifications/initialized":        {notification: true},
	"notifications/cancelled":          {notification: true},
	"notifications/progress":           {notification: true, needsParams: true},
	"notifications/roots/list_changed": {notification: true},
	// MCP Tasks (tasksmethods.go), of 2026-07-28.
	"tasks/get":    {needsParams: true},
	"tasks/update": {needsParams: true},
	"tasks/cancel": {needsParams: true},
}

// methodRule is what a method's message must be: a notification (no id) or
// a request (an id), with params or not.
type methodRule struct {
	notification bool
	needsParams  bool
}

// topMembers are the members of a JSON-RPC request object. A body naming
// one of them twice, or in another case ("Method"), is refused: the gate and
// the SDK must read the same message.
var topMembers = []string{"jsonrpc", "id", "method", "params"}

// parseMessage checks that body is exactly one JSON-RPC 2.0 request or
// notification this host serves, and returns it. Any other body (malformed
// JSON, trailing bytes, a second value, a batch, a response, nesting past
// MaxJSONDepth, an unknown method) is an *rpcError saying what is wrong.
func parseMessage(body []byte) (*rpcMessage, *rpcError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalidRequest("the body is empty; send one JSON-RPC request")
	}
	if !utf8.Valid(body) {
		return nil, parseError("the body is not UTF-8")
	}
	if d := jsonDepth(body); d > MaxJSONDepth {
		return nil, parseError("the body nests deeper than %d levels", MaxJSONDepth)
	}
	if !json.Valid(body) {
		// Covers trailing bytes and a second value too: one JSON text is
		// one value.
		return nil, parseError("the body is not one JSON value (%s)", describeInvalid(body))
	}
	switch bytes.TrimLeft(body, " \t\r\n")[0] {
	case '{':
	case '[':
		return nil, invalidRequest("JSON-RPC batches are not supported; send one request per POST")
	default:
		return nil, invalidRequest("a JSON-RPC request is an object")
	}
	members, err := objectMembers(body)
	if err != nil {
		return nil, err
	}
	if string(members["jsonrpc"]) != `"2.0"` {
		return nil, invalidRequest(`"jsonrpc" must be "2.0"`)
	}
	rawMethod, ok := members["method"]
	if !ok {
		// A stateless server sends clients no requests, so a client has
		// no response to send: a message without a method is malformed.
		return nil, invalidRequest("a JSON-RPC request needs a method")
	}
	var method string
	if rawMethod[0] != '"' || json.Unmarshal(rawMethod, &method) != nil || method == "" {
		return nil, invalidRequest(`"method" must be a non-empty string`)
	}
	m := &rpcMessage{Method: method, Body: body}
	if id, ok := members["id"]; ok {
		if e := checkID(id); e != nil {
			return nil, e
		}
		m.ID = id
	}
	if p, ok := members["params"]; ok && string(p) != "null" {
		if p[0] != '{' {
			return nil, invalidRequest(`"params" must be an object`)
		}
		m.Params = p
	}
	rule, known := serverMethods[method]
	switch {
	case !known:
		return m, &rpcError{Status: http.StatusOK, Code: codeMethodNotFound, Reason: "method_not_found",
			Message: fmt.Sprintf("method not found: %q; this server offers initialize, ping, tools/list and tools/call", truncate(method, 64))}
	case rule.notification && m.ID != nil:
		return nil, invalidRequest("%s is a notification: send it without an id", method)
	case !rule.notification && m.ID == nil:
		return nil, invalidRequest("%s is a request: it needs an id", method)
	case rule.needsParams && m.Params == nil:
		return m, &rpcError{Status: http.StatusOK, Code: codeInvalidParams, Reason: "invalid_params",
			Message: fmt.Sprintf("invalid params: %s needs params", method)}
	}
	return m, nil
}

// objectMembers reads the top-level members of the JSON object body (already
// known valid), refusing duplicates and case variants of the request's
// members.
func objectMembers(body []byte) (map[string]json.RawMessage, *rpcError) {
	all, err := scanMembers(body)
	if err != nil {
		return nil, parseError("%v", err)
	}
	members := make(map[string]json.RawMessage, len(topMembers))
	for _, m := range all {
		key := m.Name
		for _, want := range topMembers {
			if key != want && strings.EqualFold(key, want) {
				return nil, invalidRequest("member %q: JSON-RPC members are lower case (%q)", truncate(key, 32), want)
			}
		}
		if !slices.Contains(topMembers, key) {
			continue // JSON-RPC allows nothing else, but tolerating it harms no one
		}
		if _, dup := members[key]; dup {
			return nil, invalidRequest("member %q appears twice", key)
		}
		members[key] = m.Value
	}
	return members, nil
}

// checkID accepts the ids MCP allows: a string or an integer, never null.
func checkID(id json.RawMessage) *rpcError {
	if len(id) > maxIDBytes {
		return invalidRequest(`"id" may be at most %d characters`, maxIDBytes)
	}
	switch c := id[0]; {
	case c == '"':
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(id, ".eE") {
			return invalidRequest(`"id" must be a string or an integer`)
		}
		return nil
	default:
		return invalidRequest(`"id" must be a string or an integer (null is not an id)`)
	}
}

// jsonDepth is the deepest nesting of arrays and objects in body, counted
// without decoding (strings are skipped, escapes honoured). It stops
// counting once past MaxJSONDepth.
func jsonDepth(body []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > MaxJSONDepth {
					return deepest
				}
			}
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// describeInvalid says where body stops being one JSON value.
func describeInvalid(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return "it ends early"
		}
		return err.Error()
	}
	return fmt.Sprintf("more follows the first value, at byte %d", dec.InputOffset())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// writeRPCError answers with a JSON-RPC error response (id null when the
// message had none or could not be read).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	writeJSON(w, status, struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
}

func (h *Host) refuseRPC(w http.ResponseWriter, id json.RawMessage, e *rpcError) {
	h.metrics.refusals.WithLabelValues(e.Reason).Inc()
	noteErrorType(w, strconv.Itoa(e.Code)) // the span's error.type: the JSON-RPC code it answered
	if e.Status == http.StatusOK && id == nil {
		e.Status = http.StatusBadRequest // a notification has no response to carry the error
	}
	writeRPCError(w, e.Status, id, e.Code, e.Message)
}

// acceptsFor reads Accept: whether the client takes an event stream, JSON,
// or (no Accept at all) anything.
func acceptsFor(values []string) (jsonOK, streamOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			switch mt {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// checkProtocolVersion mirrors the SDK's rule for MCP-Protocol-Version (a
// version it negotiates, or one of 2026-07-28 and later, which the SDK
// answers itself with its JSON error), so that a bad header is answered in
// JSON here rather than in the SDK's plain text.
func checkProtocolVersion(v string) *rpcError {
	if v == "" || v >= "2026-07-28" || slices.Contains(mcp.SupportedProtocolVersions(), v) {
		return nil
	}
	return invalidRequest("unsupported MCP-Protocol-Version %q; this server speaks %s", truncate(v, 32), strings.Join(mcp.SupportedProtocolVersions(), ", "))
}

// gateMessage is the body gate, a step of mcpRoute. Before anything runs or
// is counted it checks the request's form (Content-Type, Accept,
// MCP-Protocol-Version) and that its body (bounded by MaxMCPBodyBytes) is
// exactly one JSON-RPC request or notification this host serves; every
// refusal is a JSON-RPC error in application/json (rpcerrors.go turns the
// SDK's own refusals into the same). The message goes in the context it
// returns (ctx, r's steps' context, with the message), for the steps after
// it, which give the SDK the body again (rpcMessage.Body); ok is false when
// it answered the request itself.
func (h *Host) gateMessage(w http.ResponseWriter, r *http.Request, ctx context.Context) (_ context.Context, ok bool) {
	// No Content-Type is taken for JSON; another one is refused.
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			h.refuseRPC(w, nil, &rpcError{Status: http.StatusUnsupportedMediaType, Code: codeInvalidRequest, Reason: "unsupported_media_type",
				Message: "invalid request: send the JSON-RPC message with Content-Type: application/json"})
			return ctx, false
		}
	}
	jsonOK, streamOK := acceptsFor(r.Header.Values("Accept"))
	if !jsonOK && !streamOK {
		h.refuseRPC(w, nil, &rpcError{Status: http.StatusNotAcceptable, Code: codeInvalidRequest, Reason: "not_acceptable",
			Message: "invalid request: accept application/json or text/event-stream (send Accept: application/json, text/event-stream)"})
		return ctx, false
	}
	if e := checkProtocolVersion(r.Header.Get("MCP-Protocol-Version")); e != nil {
		h.refuseRPC(w, nil, e)
		return ctx, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMCPBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.refuseRPC(w, nil, &rpcError{Status: http.StatusRequestEntityTooLarge, Code: codeInvalidRequest, Reason: "request_too_large",
				Message: "invalid request: an MCP request body may be at most " + strconv.Itoa(MaxMCPBodyBytes) + " bytes"})
			return ctx, false
		}
		h.refuseRPC(w, nil, invalidRequest("the request body could not be read"))
		return ctx, false
	}
	msg, perr := parseMessage(body)
	if perr != nil {
		var id json.RawMessage
		if msg != nil {
			id = msg.ID
		}
		perr.Status = statusFor(r.Header.Get("MCP-Protocol-Version"), perr.Code, perr.Status)
		h.refuseRPC(w, id, perr)
		return ctx, false
	}
	msg.JSONOnly = !streamOK
	return context.WithValue(ctx, ctxMessage, msg), true
}

package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// MaxMCPBodyBytes bounds one MCP request body.
const MaxMCPBodyBytes = 1 << 20

const ctxMessage ctxKey = 200

// rpcMessage is the JSON-RPC message of one MCP request, as the body gate
// read it. Later middleware (limits, traces, the fast answers) read it from
// the context instead of parsing the body again; the SDK gets the body whole.
type rpcMessage struct {
	Method string
	ID     json.RawMessage // nil for a notification
	Params json.RawMessage
	Body   []byte
}

func messageFrom(ctx context.Context) (*rpcMessage, bool) {
	m, ok := ctx.Value(ctxMessage).(*rpcMessage)
	return m, ok
}

// readMessage is the body gate: it reads the MCP request's body (bounded by
// MaxMCPBodyBytes), parses its JSON-RPC message and puts it in the context
// for the middleware after it.
func (h *Host) readMessage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMCPBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				h.refuse(w, http.StatusRequestEntityTooLarge, "request_too_large", "an MCP request body may be at most "+strconv.Itoa(MaxMCPBodyBytes)+" bytes", 0)
				return
			}
			h.refuse(w, http.StatusBadRequest, "bad_request", "the request body could not be read", 0)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			next.ServeHTTP(w, r) // the SDK answers a parse error
			return
		}
		if msg.Method == "" {
			// A stateless server sends clients no requests, so a client
			// has no response to send: a message without a method is
			// malformed.
			writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32600, "message": "invalid request: a JSON-RPC request needs a method"}})
			return
		}
		m := &rpcMessage{Method: msg.Method, ID: msg.ID, Params: msg.Params, Body: body}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxMessage, m)))
	})
}

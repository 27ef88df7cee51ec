package host

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// The JSON-RPC codes of 2026-07-28 that carry an HTTP status of their own
// (SEP-2575), beside codeMethodNotFound and codeInvalidParams.
const (
	codeMissingClientCapabilities = -32021
	codeUnsupportedProtocol       = -32022
)

// statusFor is the one place a refusal's JSON-RPC code becomes its HTTP
// status, by the protocol version the request speaks (MCP-Protocol-Version).
// From 2026-07-28 on, as the spec (SEP-2575) and the Go SDK give it: method
// not found is 404; invalid params, an unsupported protocol version and
// missing client capabilities are 400. Before it, and for every other code,
// the refusal keeps the status it was made with (200 for a JSON-RPC error
// the older versions answer in a response, a 4xx for a malformed request).
func statusFor(version string, code, status int) int {
	if version < newProtocol {
		return status
	}
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case codeInvalidParams, codeUnsupportedProtocol, codeMissingClientCapabilities:
		return http.StatusBadRequest
	}
	return status
}

// rpcErrorWriter stands between the MCP SDK and the client so that every
// refusal is a JSON-RPC error in application/json: the SDK answers some
// malformed requests with plain text (http.Error); this writer holds such an
// answer back and sends it as a JSON-RPC error with the same status instead.
// The body gate (bodygate.go) refuses the known cases before the SDK runs;
// this is the net under it.
type rpcErrorWriter struct {
	w        http.ResponseWriter
	id       json.RawMessage
	held     bool // a plain-text error is being held back
	status   int
	buf      bytes.Buffer
	onRefuse func(reason string)
}

const maxHeldError = 4096

func newRPCErrorWriter(w http.ResponseWriter, r *http.Request, onRefuse func(string)) *rpcErrorWriter {
	e := &rpcErrorWriter{w: w, onRefuse: onRefuse}
	if m, ok := messageFrom(r.Context()); ok {
		e.id = m.ID
	}
	return e
}

func (e *rpcErrorWriter) Header() http.Header { return e.w.Header() }

func (e *rpcErrorWriter) WriteHeader(status int) {
	if e.held {
		return
	}
	if status >= 400 && strings.HasPrefix(e.w.Header().Get("Content-Type"), "text/plain") {
		e.held, e.status = true, status
		return
	}
	e.w.WriteHeader(status)
}

func (e *rpcErrorWriter) Write(p []byte) (int, error) {
	if e.held {
		if room := maxHeldError - e.buf.Len(); room > 0 {
			e.buf.Write(p[:min(len(p), room)])
		}
		return len(p), nil
	}
	return e.w.Write(p)
}

func (e *rpcErrorWriter) Flush() {
	if e.held {
		return
	}
	_ = http.NewResponseController(e.w).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (e *rpcErrorWriter) Unwrap() http.ResponseWriter { return e.w }

// finish sends the held error, if any, as a JSON-RPC error.
func (e *rpcErrorWriter) finish() {
	if !e.held {
		return
	}
	msg := strings.TrimSpace(e.buf.String())
	if msg == "" {
		msg = http.StatusText(e.status)
	}
	code, reason := codeInvalidRequest, "invalid_request"
	switch {
	case e.status >= 500:
		code, reason = -32603, "internal_error"
	case strings.Contains(msg, "unsupported") && strings.Contains(msg, "method"):
		code, reason = codeMethodNotFound, "method_not_found"
	case strings.Contains(msg, "malformed"):
		code, reason = codeParseError, "parse_error"
	}
	if e.onRefuse != nil {
		e.onRefuse(reason)
	}
	h := e.w.Header()
	h.Del("Content-Length")
	writeRPCError(e.w, e.status, e.id, code, msg)
}

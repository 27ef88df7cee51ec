package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// MaxMCPBodyBytes bounds one MCP request body.
const MaxMCPBodyBytes = 1 << 20

// limitCalls reads the JSON-RPC body (bounded), and for tools/call applies the
// per-license rate limit of the plugin and the cap on calls in flight.
func (h *Host) limitCalls(plugin string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
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
				JSONRPC string          `json:"jsonrpc"`
				Method  string          `json:"method"`
				ID      json.RawMessage `json:"id"`
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
			if msg.Method != "tools/call" {
				next.ServeHTTP(w, r)
				return
			}
			c, _ := callerFrom(r.Context())
			// The slot first: a call refused for too many in flight does not
			// use up the per-minute budget.
			release, ok, err := h.stores.Limits.Acquire(r.Context(), c.LicenseHash, h.cfg.MaxConcurrentCalls)
			if err != nil {
				h.log.Warn("concurrency limiter failed; letting the call through", "err", err)
			} else if !ok {
				h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls in flight with this license; wait for one to end", 1)
				return
			} else {
				defer release()
			}
			ok, retry, err := h.stores.Limits.Allow(r.Context(), c.LicenseHash, plugin, h.cfg.RateLimitFor(plugin))
			if err != nil {
				h.log.Warn("rate limiter failed; letting the call through", "err", err)
			} else if !ok {
				secs := max(1, int((retry+time.Second-1)/time.Second))
				h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls to "+plugin+" with this license; wait and try again", secs)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/license"
)

// MaxMCPBodyBytes bounds one MCP request body.
const MaxMCPBodyBytes = 1 << 20

// CancelWait is how long POST /cancel waits for the calls it ended.
const CancelWait = 5 * time.Second

func (h *Host) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(requestID, h.accessLog)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, refusal{Reason: "not_found", Message: "no such route; plugins are at /<id>/mcp"})
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusMethodNotAllowed, refusal{Reason: "method_not_allowed"})
	})
	r.Get("/", h.serveIndex)
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		status, body := h.readiness()
		writeJSON(w, status, body)
	})
	r.With(h.requireLicense).Get("/license", h.serveLicense)
	r.With(h.requireLicense).Post("/cancel", h.serveCancel)
	for _, m := range h.plugins {
		path := "/" + m.plugin.ID + "/mcp"
		r.With(h.refuseWhileDraining, h.requireLicense, h.limitCalls(m.plugin.ID)).Post(path, m.handler.ServeHTTP)
		notAllowed := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, refusal{Reason: "method_not_allowed", Message: "this server is stateless: use POST"})
		}
		r.Get(path, notAllowed)
		r.Delete(path, notAllowed)
	}
	for _, p := range h.parts {
		p.Mount(r)
	}
	return r
}

// serveLicense answers GET /license with the verdict.
func (h *Host) serveLicense(w http.ResponseWriter, r *http.Request) {
	c, _ := callerFrom(r.Context())
	checked := c.Result.CheckedAt.UTC()
	writeJSON(w, http.StatusOK, struct {
		Status    license.Status `json:"status"`
		Plan      *string        `json:"plan"`
		ExpiresAt *time.Time     `json:"expires_at"`
		CheckedAt time.Time      `json:"checked_at"`
	}{c.Result.Verdict.Status, c.Result.Verdict.Plan, utcPtr(c.Result.Verdict.ExpiresAt), checked.Truncate(time.Second)})
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// serveCancel answers POST /cancel: it ends every call of the thread made with
// the same license, on every replica, and answers once they ended (at most
// CancelWait).
func (h *Host) serveCancel(w http.ResponseWriter, r *http.Request) {
	c, _ := callerFrom(r.Context())
	var body struct {
		ThreadID *string `json:"thread_id"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	if err := dec.Decode(&body); err != nil || body.ThreadID == nil || !ValidThread(*body.ThreadID) {
		h.refuse(w, http.StatusBadRequest, "bad_request", `send {"thread_id":"<id>"}: 1 to 128 characters from A-Z a-z 0-9 . _ : -`, 0)
		return
	}
	cancelled, running, err := h.stores.Calls.Cancel(r.Context(), calls.Key{License: c.LicenseHash, Thread: *body.ThreadID}, CancelWait)
	if err != nil {
		h.log.Warn("cancel could not reach every replica", "request_id", RequestIDFrom(r.Context()), "err", err)
	}
	h.log.Info("cancel", "request_id", RequestIDFrom(r.Context()), "thread", *body.ThreadID, "cancelled", cancelled, "still_running", running)
	resp := map[string]any{"thread_id": *body.ThreadID, "cancelled": cancelled}
	if running > 0 {
		resp["still_running"] = running
	}
	writeJSON(w, http.StatusOK, resp)
}

// refuseWhileDraining refuses new MCP requests once Drain began.
func (h *Host) refuseWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.draining.Load() {
			h.refuse(w, http.StatusServiceUnavailable, "shutting_down", "this replica is shutting down; send the request again", 1)
			return
		}
		next.ServeHTTP(w, r)
	})
}

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

// serveIndex says what this server is (the OAuth client document's
// client_uri points here).
func (h *Host) serveIndex(w http.ResponseWriter, r *http.Request) {
	plugins := make([]map[string]string, 0, len(h.plugins))
	for _, m := range h.plugins {
		plugins = append(plugins, map[string]string{"id": m.plugin.ID, "name": m.plugin.Name, "mcp": h.cfg.PublicURL + "/" + m.plugin.ID + "/mcp"})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name":        "SurfSense plugin host",
		"description": "SurfSense's own MCP servers (scrapers), license-checked, with the signed plugin registry and the OAuth pages the SurfSense app uses.",
		"homepage":    "https://www.surfsense.com",
		"plugins":     plugins,
		"license":     "send Authorization: License <key> to /<id>/mcp, /license and /cancel",
	})
}

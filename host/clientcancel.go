package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/surfsense/pluginhost/host/calls"
)

// A client's cancel (CONTRACTS.md, "Tool results", Client cancel): an SDK
// client that aborts a call sends notifications/cancelled with the call's
// request id, on a new POST that may reach another replica. The host matches
// it to the call by license, plugin and request id (and thread, when the
// notification carries one) through the calls registry, which reaches every
// replica; the call ends as a cancel by thread ends it, and its slot under
// MAX_CONCURRENT_CALLS is freed at once.

// errClientCancelled is the cause of a call its client cancelled.
var errClientCancelled = errors.New("the client cancelled the call (notifications/cancelled)")

// SlotWait is how long a call refused for too many calls in flight waits for
// a slot before it is answered 429. SDK clients send notifications/cancelled
// without waiting for it to be delivered and may send their next call at the
// same moment; the wait lets the cancelled call's slot come free first.
var SlotWait = time.Second

const ctxSlot ctxKey = 202

// callSlot is a call's slot under MAX_CONCURRENT_CALLS: released when the
// call's request ends, or at once when the call is cancelled. A call that
// becomes a task keeps it past its request, until its run ends (tasks.go).
type callSlot struct {
	release func()
	kept    atomic.Bool
}

// keep holds the slot past the request: its release is the holder's.
func (s *callSlot) keep() { s.kept.Store(true) }

// requestEnded releases the slot unless it is kept.
func (s *callSlot) requestEnded() {
	if !s.kept.Load() {
		s.release()
	}
}

func slotFrom(ctx context.Context) *callSlot {
	s, _ := ctx.Value(ctxSlot).(*callSlot)
	return s
}

// freeSlot releases the call's slot now (releasing is idempotent).
func freeSlot(ctx context.Context) {
	if s := slotFrom(ctx); s != nil && s.release != nil {
		s.release()
	}
}

// canonicalID is a JSON-RPC id as one text whatever its spelling: a string
// re-encoded ("\u0061" is "a"), an integer in decimal without leading
// zeros or sign of zero. ok is false for anything else.
func canonicalID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || len(raw) > maxIDBytes {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		b, _ := json.Marshal(s)
		return string(b), true
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return "", false
		}
		n, ok := new(big.Int).SetString(string(raw), 10)
		if !ok {
			return "", false
		}
		return n.String(), true
	}
	return "", false
}

// cancelRequest answers notifications/cancelled (the SDK would ignore it:
// each stateless POST is a session of its own): it ends the one call of this
// license and plugin with that request id, on whichever replica runs it. It
// is a step of mcpRoute, after the body gate, and answers 202 as the
// transport asks.
func (h *Host) cancelRequest(w http.ResponseWriter, r *http.Request, plugin string, msg *rpcMessage) {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	_ = json.Unmarshal(msg.Params, &params)
	id, ok := canonicalID(params.RequestID)
	if !ok {
		h.refuseRPC(w, nil, &rpcError{Status: http.StatusBadRequest, Code: codeInvalidParams, Reason: "invalid_params",
			Message: "invalid params: notifications/cancelled needs the requestId (a string or an integer) of the call to cancel"})
		return
	}
	c, _ := callerFrom(r.Context())
	req := calls.Request{License: c.LicenseHash, Plugin: plugin, ID: id, Thread: c.Thread}
	matched, err := h.stores.Calls.CancelRequest(r.Context(), req)
	switch {
	case err != nil:
		h.log.Warn("notifications/cancelled could not reach every replica", "request_id", RequestIDFrom(r.Context()), "plugin", plugin, "rpc_id", id, "err", err)
	case matched == 1:
		h.log.Info("call cancelled by its client", "request_id", RequestIDFrom(r.Context()), "plugin", plugin, "rpc_id", id, "thread", c.Thread)
	case matched > 1:
		h.log.Warn("notifications/cancelled matched several calls of this license and none was cancelled: they share the request id and cannot be told apart (send X-SurfSense-Thread to tell them apart)",
			"request_id", RequestIDFrom(r.Context()), "plugin", plugin, "rpc_id", id, "thread", c.Thread, "matched", matched)
	default:
		h.log.Debug("notifications/cancelled for no call in flight", "request_id", RequestIDFrom(r.Context()), "plugin", plugin, "rpc_id", id)
	}
	w.WriteHeader(http.StatusAccepted)
}

// registerRequest registers the call for cancel by request id; done (never
// nil) ends the registration.
func (h *Host) registerRequest(ctx context.Context, plugin string, c caller, onCancel func()) func() {
	msg, ok := messageFrom(ctx)
	if !ok {
		return func() {}
	}
	id, ok := canonicalID(msg.ID)
	if !ok {
		return func() {}
	}
	done, err := h.stores.Calls.StartRequest(ctx, calls.Request{License: c.LicenseHash, Plugin: plugin, ID: id, Thread: c.Thread}, onCancel)
	if err != nil {
		h.log.Warn("call not registered for cancel by request id", "plugin", plugin, "err", err)
		return func() {}
	}
	return done
}

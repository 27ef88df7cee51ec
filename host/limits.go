package host

import (
	"context"
	"net/http"
	"time"
)

// admitCall applies, to tools/call, the per-license rate limit of the
// plugin and the cap on calls in flight (CONTRACTS.md, "Scale"): it takes a
// slot for the call and its place under the rate limit, and returns ctx
// (the request's steps' context) with the slot (released when the request
// ends, unless kept); or it refuses the call (ok false, the answer
// written). A limiter that fails lets the call through. It is a step of
// mcpRoute, after the body gate (bodygate.go), which read the message.
func (h *Host) admitCall(w http.ResponseWriter, ctx context.Context, plugin string, msg *rpcMessage) (_ context.Context, slot *callSlot, ok bool) {
	c, _ := callerFrom(ctx)
	lctx, endSpan := h.childSpan(ctx, "rate limit")
	// The slot first: a call refused for too many in flight does not
	// use up the per-minute budget.
	release, ok, err := h.acquireSlot(lctx, c.LicenseHash)
	if err != nil {
		h.log.Warn("concurrency limiter failed; letting the call through", "err", err)
	} else if !ok {
		h.countRefusal(c, plugin, msg, refusedConcurrency)
		endSpan(nil, rateLimitResult("too_many_in_flight"))
		h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls in flight with this license; wait for one to end", 1)
		return ctx, nil, false
	} else {
		slot = &callSlot{release: release}
		ctx = context.WithValue(ctx, ctxSlot, slot)
	}
	ok, retry, err := h.stores.Limits.Allow(lctx, c.LicenseHash, plugin, h.cfg.RateLimitFor(plugin))
	if err != nil {
		h.log.Warn("rate limiter failed; letting the call through", "err", err)
	} else if !ok {
		h.countRefusal(c, plugin, msg, refusedRateLimited)
		secs := max(1, int((retry+time.Second-1)/time.Second))
		endSpan(nil, rateLimitResult("over_rate"))
		h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls to "+plugin+" with this license; wait and try again", secs)
		if slot != nil {
			slot.requestEnded()
		}
		return ctx, nil, false
	}
	endSpan(nil, rateLimitResult("allowed"))
	return ctx, slot, true
}

// acquireSlot takes a slot under MAX_CONCURRENT_CALLS, waiting up to
// SlotWait for one to come free (clientcancel.go says why).
func (h *Host) acquireSlot(ctx context.Context, license string) (func(), bool, error) {
	deadline := time.Now().Add(SlotWait)
	for {
		release, ok, err := h.stores.Limits.Acquire(ctx, license, h.cfg.MaxConcurrentCalls)
		if ok || err != nil || !time.Now().Before(deadline) {
			return release, ok, err
		}
		select {
		case <-ctx.Done():
			return nil, false, nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

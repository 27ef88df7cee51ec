package host

import (
	"context"
	"net/http"
	"time"
)

// limitCalls applies, to tools/call, the per-license rate limit of the plugin
// and the cap on calls in flight (CONTRACTS.md, "Scale"). It runs after the
// body gate (bodygate.go), which read the message.
func (h *Host) limitCalls(plugin string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			msg, ok := messageFrom(r.Context())
			if !ok || msg.Method != "tools/call" {
				next.ServeHTTP(w, r)
				return
			}
			c, _ := callerFrom(r.Context())
			lctx, endSpan := h.childSpan(r.Context(), "rate limit")
			// The slot first: a call refused for too many in flight does not
			// use up the per-minute budget.
			release, ok, err := h.acquireSlot(lctx, c.LicenseHash)
			if err != nil {
				h.log.Warn("concurrency limiter failed; letting the call through", "err", err)
			} else if !ok {
				h.countRefusal(c, plugin, msg, refusedConcurrency)
				endSpan(nil, rateLimitResult("too_many_in_flight"))
				h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls in flight with this license; wait for one to end", 1)
				return
			} else {
				slot := &callSlot{release: release}
				defer slot.requestEnded()
				r = r.WithContext(context.WithValue(r.Context(), ctxSlot, slot))
			}
			ok, retry, err := h.stores.Limits.Allow(lctx, c.LicenseHash, plugin, h.cfg.RateLimitFor(plugin))
			if err != nil {
				h.log.Warn("rate limiter failed; letting the call through", "err", err)
			} else if !ok {
				h.countRefusal(c, plugin, msg, refusedRateLimited)
				secs := max(1, int((retry+time.Second-1)/time.Second))
				endSpan(nil, rateLimitResult("over_rate"))
				h.refuse(w, http.StatusTooManyRequests, "rate_limited", "too many calls to "+plugin+" with this license; wait and try again", secs)
				return
			}
			endSpan(nil, rateLimitResult("allowed"))
			next.ServeHTTP(w, r)
		})
	}
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

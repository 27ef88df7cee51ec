package host

import (
	"context"
	"net/http"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// Draining reports whether Drain began.
func (h *Host) Draining() bool { return h.draining.Load() }

// Drain stops taking calls (/readyz turns 503 and new calls are refused with
// 503), lets calls in flight finish for up to wait, then cancels the rest with
// a tool error saying the host is shutting down, and waits (briefly) until they
// answered. It returns how many calls had to be cancelled.
func (h *Host) Drain(ctx context.Context, wait time.Duration) int {
	h.draining.Store(true)
	h.log.Info("draining: no new calls are taken", "in_flight", h.InFlight(), "drain", wait.String())
	if h.waitIdle(ctx, wait) {
		return 0
	}
	h.mu.Lock()
	list := make([]*activeCall, 0, len(h.inFlight))
	for c := range h.inFlight {
		list = append(list, c)
	}
	h.mu.Unlock()
	for _, c := range list {
		c.cancel(scrapers.ErrShuttingDown)
	}
	h.log.Warn("drain time ran out: calls in flight were cancelled", "cancelled", len(list))
	h.waitIdle(ctx, 5*time.Second)
	return len(list)
}

func (h *Host) waitIdle(ctx context.Context, wait time.Duration) bool {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if h.InFlight() == 0 {
			return true
		}
		select {
		case <-deadline.C:
			return h.InFlight() == 0
		case <-ctx.Done():
			return h.InFlight() == 0
		case <-tick.C:
		}
	}
}

// refuseWhileDraining refuses new MCP requests once Drain began, and reports
// whether the request goes on (a step of mcpRoute).
func (h *Host) refuseWhileDraining(w http.ResponseWriter) bool {
	if h.draining.Load() {
		h.refuse(w, http.StatusServiceUnavailable, "shutting_down", "this replica is shutting down; send the request again", 1)
		return false
	}
	return true
}

// Close releases what the mounted plugins hold beyond their calls (a
// browser a plugin started), once; call it after Drain, when no call runs.
func (h *Host) Close() {
	h.closeOnce.Do(func() {
		for _, m := range h.plugins {
			if m.plugin.Close != nil {
				m.plugin.Close()
			}
		}
	})
}

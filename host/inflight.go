package host

func (h *Host) track(a *activeCall, add bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if add {
		h.inFlight[a] = struct{}{}
		h.metrics.inFlight.Inc()
		return
	}
	delete(h.inFlight, a)
	h.metrics.inFlight.Dec()
}

// InFlight is the number of tool calls in flight on this replica.
func (h *Host) InFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.inFlight)
}

package host

// Hooks for the external tests of this directory.

// SetSDKOnly turns the fast answers off (on) or back on: the differential
// test's reference host answers every request through the SDK.
func SetSDKOnly(h *Host, on bool) { h.sdkOnly.Store(on) }

// FastAnswered is how many requests the fast answers served.
func FastAnswered(h *Host) int64 {
	var n int64
	for _, m := range h.plugins {
		if s, ok := m.handler.(*mcpServers); ok {
			n += s.fast.served.Load()
		}
	}
	return n
}

// DirectCalls is how many tool calls ran without the SDK.
func DirectCalls(h *Host) int64 {
	var n int64
	for _, m := range h.plugins {
		if s, ok := m.handler.(*mcpServers); ok {
			n += s.direct.served.Load()
		}
	}
	return n
}

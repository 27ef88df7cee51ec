package host

import (
	"fmt"
	"net/http"
	"strings"
)

// readiness is /readyz's body.
type readiness struct {
	Status string            `json:"status"` // ready, draining
	Parts  map[string]string `json:"parts"`
}

func (h *Host) readiness() (int, readiness) {
	r := readiness{Status: "ready", Parts: map[string]string{}}
	r.Parts["license"] = "ok (" + h.checker.Backend.Name() + ")"
	r.Parts["plugins"] = fmt.Sprintf("ok (%d mounted: %s)", len(h.plugins), strings.Join(h.PluginIDs(), ", "))
	if h.stores.Health == nil {
		r.Parts["redis"] = "not configured (memory, one replica)"
	} else if ok, detail := h.stores.Health(); ok {
		r.Parts["redis"] = "ok"
	} else {
		r.Parts["redis"] = "degraded: " + detail + " (serving from this replica's memory)"
	}
	for _, p := range h.parts {
		r.Parts[p.Name()] = p.Status()
	}
	for _, m := range h.plugins {
		if m.plugin.Status != nil {
			part, status := m.plugin.Status()
			r.Parts[part] = status
		}
	}
	if h.draining.Load() {
		r.Status = "draining"
		return http.StatusServiceUnavailable, r
	}
	return http.StatusOK, r
}

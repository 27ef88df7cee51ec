package host

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes is the public router (CONTRACTS.md, "Routes"). Each route's handler
// lives in a file of its own: licenseroute.go, cancel.go, usageroute.go,
// index.go; the MCP servers' middleware in licensecheck.go, limits.go,
// drain.go and tasksmethods.go (MCP Tasks' tasks/*).
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
	r.With(h.requireLicense).Get("/usage", h.serveUsage)
	for _, m := range h.plugins {
		// The license is checked before the method (CONTRACTS.md, "The
		// license"): a bad key on GET is a 401, not a 405.
		mcpRoute := chi.Chain(h.readMessage, h.startMCPSpan, h.cancelByRequest(m.plugin.ID), h.serveTaskMethods(m.plugin.ID), h.limitCalls(m.plugin.ID)).Handler(m.handler)
		r.With(h.observeMCP(m.plugin), h.refuseWhileDraining, h.requireLicense).Handle("/"+m.plugin.ID+"/mcp", onlyPOST(mcpRoute))
	}
	for _, p := range h.parts {
		p.Mount(r)
	}
	return r
}

// onlyPOST answers anything but POST with 405: the MCP servers are stateless,
// so there is no stream to GET and no session to DELETE.
func onlyPOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, refusal{Reason: "method_not_allowed", Message: "this server is stateless: use POST"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

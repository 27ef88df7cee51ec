package host

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surfsense/pluginhost/scrapers"
)

// routes is the public router (CONTRACTS.md, "Routes"). Each route's handler
// lives in a file of its own: licenseroute.go, cancel.go, usageroute.go,
// index.go; the MCP route's steps (mcpRoute) in tracing.go, drain.go,
// licensecheck.go, bodygate.go, clientcancel.go, tasksmethods.go (MCP
// Tasks' tasks/*) and limits.go.
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
		r.Handle("/"+m.plugin.ID+"/mcp", h.mcpRoute(m.plugin, m.handler))
	}
	for _, p := range h.parts {
		p.Mount(r)
	}
	return r
}

// mcpRoute is a plugin's MCP route, servers its MCP servers. A request
// meets these steps in this order, each in the file of its concern, and each
// answers the request itself or lets it go on: observeMCP (tracing.go: the
// span, the duration metric and the one log line, recorded by endMCP at the
// end), refuseWhileDraining (drain.go), checkLicense (licensecheck.go;
// before the method, CONTRACTS.md, "The license": a bad key on GET is a
// 401, not a 405), onlyPOST, gateMessage (bodygate.go: exactly one JSON-RPC
// message, read once), startMCPSpan (tracing.go), cancelRequest for
// notifications/cancelled (clientcancel.go), serveTaskMethod for tasks/*
// (tasksmethods.go), admitCall for tools/call (limits.go: the rate limit and
// the slot), then the servers (mcp.go).
//
// The steps are calls of one handler rather than a chain of middleware: a
// tool call held in flight waits on its request's goroutine under every
// frame of that chain, and the goroutine's stack is the largest part of what
// the call holds (callHandler).
func (h *Host) mcpRoute(p scrapers.Plugin, servers http.Handler) http.Handler {
	tools := map[string]bool{GetResultTool: true}
	for _, t := range p.Tools {
		tools[t.Name] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw, ctx := h.observeMCP(w, r, p.ID, tools)
		h.mcpSteps(rw, r, ctx, p.ID, servers)
		h.endMCP(r, rw.req, rw.status)
	})
}

// mcpSteps are the MCP route's steps after observeMCP (mcpRoute). Each adds
// to ctx, the request's context for the steps after it; the request is
// copied with it once, at the end (a copy per step was 320 bytes that every
// call in flight held).
func (h *Host) mcpSteps(w http.ResponseWriter, r *http.Request, ctx context.Context, plugin string, servers http.Handler) {
	if !h.refuseWhileDraining(w) {
		return
	}
	ctx, ok := h.checkLicense(w, r, ctx)
	if !ok || !onlyPOST(w, r) {
		return
	}
	if ctx, ok = h.gateMessage(w, r, ctx); !ok {
		return
	}
	ctx = h.startMCPSpan(r, ctx)
	msg, _ := messageFrom(ctx)
	if msg.Method == "tools/call" {
		var slot *callSlot
		if ctx, slot, ok = h.admitCall(w, ctx, plugin, msg); !ok {
			return
		}
		if slot != nil {
			defer slot.requestEnded()
		}
	}
	// The SDK reads the body again, from the message the gate read.
	r = r.WithContext(ctx)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(msg.Body)), int64(len(msg.Body))
	switch {
	case msg.Method == "notifications/cancelled":
		h.cancelRequest(w, r, plugin, msg)
	case strings.HasPrefix(msg.Method, "tasks/"):
		h.serveTaskMethod(w, r, plugin, msg)
	default:
		servers.ServeHTTP(w, r)
	}
}

// onlyPOST answers anything but POST with 405, and reports whether the
// request goes on: the MCP servers are stateless, so there is no stream to
// GET and no session to DELETE.
func onlyPOST(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, refusal{Reason: "method_not_allowed", Message: "this server is stateless: use POST"})
		return false
	}
	return true
}

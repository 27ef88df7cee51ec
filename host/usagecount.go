package host

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/license"
)

// Usage per license (CONTRACTS.md, "GET /usage"): every call's end
// (observeCall) and every refusal of a call is an event for the usage
// store; usageroute.go reads it back. Counting is on every call's path:
// one event (a map entry under a lock) and three Prometheus counters
// found once per tool.
//
// What a license refusal counts: only keys the license service knows
// (expired, revoked) are counted, under their hash, as refused by license.
// A missing key has no hash, and an unknown key (invalid) or one that could
// not be checked (license_service_unavailable) is not known to be a
// license: counting it would let anyone grow the store with made-up keys.
// Those are counted, without a license, in http_refusals_total{reason}. The
// license check comes before the body is read (contract 2), so a license
// refusal counts the MCP request (whatever its method) under the plugin and
// the tool usage.UnknownTool.

// The reasons a call is refused, as usage counts them.
const (
	refusedRateLimited = iota
	refusedConcurrency
	refusedLicense
)

var refusedNames = [...]string{refusedRateLimited: "rate_limited", refusedConcurrency: "concurrency", refusedLicense: "license"}

// countCall counts the end of one tool call: answered, with its items,
// upstream requests and bytes, and whether it ended blocked, partial or
// cancelled.
func (h *Host) countCall(plugin, tool string, c caller, outcome string, items int, requests, bytes int64, served string) {
	e := usage.Event{License: c.LicenseHash, Plan: planOf(c.Result), Plugin: plugin, Tool: tool, Time: h.now()}
	e.Counts.Calls = 1
	if served == servedCache {
		e.Counts.Cached = 1
	}
	returned := int64(items)
	switch outcome {
	case "cancelled":
		e.Counts.Cancelled = 1
		returned = 0
	case "shutdown", "client_gone", "bad_arguments", "empty":
		returned = 0 // a tool error: nothing was returned
	case "partial":
		e.Counts.Partial = 1
	case "blocked":
		e.Counts.Blocked = 1
		fallthrough
	case "deadline", "tool_error":
		// With items these are results marked partial; without, errors.
		if returned > 0 {
			e.Counts.Partial = 1
		}
	}
	e.Counts.Items = returned
	e.Counts.UpstreamRequests = requests
	e.Counts.UpstreamBytes = bytes
	h.stores.Usage.Add(e)
	s := h.usage.of(plugin, tool)
	s.items.Add(float64(returned))
	s.requests.Add(float64(requests))
	s.bytes.Add(float64(bytes))
}

// countRefusal counts a tools/call refused by the limits (limits.go).
func (h *Host) countRefusal(c caller, plugin string, msg *rpcMessage, why int) {
	tool := h.toolOf(plugin, msg)
	e := usage.Event{License: c.LicenseHash, Plan: planOf(c.Result), Plugin: plugin, Tool: tool, Time: h.now()}
	switch why {
	case refusedRateLimited:
		e.Counts.Refused.RateLimited = 1
	case refusedConcurrency:
		e.Counts.Refused.Concurrency = 1
	}
	h.stores.Usage.Add(e)
	h.usage.refused.WithLabelValues(plugin, tool, refusedNames[why]).Inc()
}

// countLicenseRefusal counts an MCP request refused by the license check
// when the key is one the license service knows (see above).
func (h *Host) countLicenseRefusal(r *http.Request, c caller, res license.Result) {
	switch res.Reason() {
	case string(license.Expired), string(license.Revoked):
	default:
		return
	}
	plugin, ok := h.pluginOfPath(r.URL.Path)
	if !ok || c.LicenseHash == "" {
		return // /license, /cancel, /usage: not a call
	}
	e := usage.Event{License: c.LicenseHash, Plan: planOf(res), Plugin: plugin, Tool: usage.UnknownTool, Time: h.now()}
	e.Counts.Refused.License = 1
	h.stores.Usage.Add(e)
	h.usage.refused.WithLabelValues(plugin, usage.UnknownTool, refusedNames[refusedLicense]).Inc()
}

// toolOf is the tool a tools/call names, when plugin has it; else
// usage.UnknownTool, so that a caller cannot make up counters.
func (h *Host) toolOf(plugin string, msg *rpcMessage) string {
	if msg == nil {
		return usage.UnknownTool
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return usage.UnknownTool
	}
	if p.Name == GetResultTool {
		return p.Name
	}
	for _, m := range h.plugins {
		if m.plugin.ID != plugin {
			continue
		}
		for _, t := range m.plugin.Tools {
			if t.Name == p.Name {
				return t.Name
			}
		}
	}
	return usage.UnknownTool
}

// pluginOfPath is the mounted plugin whose MCP route path is.
func (h *Host) pluginOfPath(path string) (string, bool) {
	id, rest, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok || rest != "mcp" {
		return "", false
	}
	for _, m := range h.plugins {
		if m.plugin.ID == id {
			return id, true
		}
	}
	return "", false
}

func planOf(r license.Result) string {
	if p := r.Verdict.Plan; p != nil {
		return *p
	}
	return ""
}

// usageSeries are the Prometheus totals of usage, by plugin and tool (calls
// by outcome are pluginhost_tool_calls_total); never by license.
type usageSeries struct {
	items, requests, bytes *prometheus.CounterVec
	refused                *prometheus.CounterVec
	tools                  sync.Map // usage.Tool → *toolSeries
}

type toolSeries struct{ items, requests, bytes prometheus.Counter }

func newUsageSeries(reg *prometheus.Registry) *usageSeries {
	vec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "pluginhost", Name: name, Help: help}, labels)
	}
	u := &usageSeries{
		items:    vec("usage_items_total", "Items returned by tool calls, by plugin and tool.", "plugin", "tool"),
		requests: vec("usage_upstream_requests_total", "Upstream requests made by tool calls (retries and proxies included), by plugin and tool.", "plugin", "tool"),
		bytes:    vec("usage_upstream_bytes_total", "Upstream body bytes read by tool calls, by plugin and tool.", "plugin", "tool"),
		refused:  vec("usage_refused_calls_total", "Tool calls refused before they ran, by plugin, tool and reason (rate_limited, concurrency, license).", "plugin", "tool", "reason"),
	}
	reg.MustRegister(u.items, u.requests, u.bytes, u.refused)
	return u
}

// of is the series of one tool, found once.
func (u *usageSeries) of(plugin, tool string) *toolSeries {
	k := usage.Tool{Plugin: plugin, Tool: tool}
	if s, ok := u.tools.Load(k); ok {
		return s.(*toolSeries)
	}
	s := &toolSeries{items: u.items.WithLabelValues(plugin, tool), requests: u.requests.WithLabelValues(plugin, tool), bytes: u.bytes.WithLabelValues(plugin, tool)}
	actual, _ := u.tools.LoadOrStore(k, s)
	return actual.(*toolSeries)
}

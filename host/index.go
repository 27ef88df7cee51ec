package host

import "net/http"

// serveIndex says what this server is (the OAuth client document's
// client_uri points here).
func (h *Host) serveIndex(w http.ResponseWriter, r *http.Request) {
	plugins := make([]map[string]string, 0, len(h.plugins))
	for _, m := range h.plugins {
		plugins = append(plugins, map[string]string{"id": m.plugin.ID, "name": m.plugin.Name, "mcp": h.cfg.PublicURL + "/" + m.plugin.ID + "/mcp"})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name":        "SurfSense plugin host",
		"description": "SurfSense's own MCP servers (scrapers), license-checked, with the signed plugin registry and the OAuth pages the SurfSense app uses.",
		"homepage":    "https://www.surfsense.com",
		"plugins":     plugins,
		"license":     "send Authorization: License <key> to /<id>/mcp, /license and /cancel",
	})
}

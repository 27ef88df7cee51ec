package host

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/surfsense/pluginhost/host/calls"
)

// CancelWait is how long POST /cancel waits for the calls it ended.
const CancelWait = 5 * time.Second

// serveCancel answers POST /cancel: it ends every call of the thread made with
// the same license, on every replica, and answers once they ended (at most
// CancelWait).
func (h *Host) serveCancel(w http.ResponseWriter, r *http.Request) {
	c, _ := callerFrom(r.Context())
	var body struct {
		ThreadID *string `json:"thread_id"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	if err := dec.Decode(&body); err != nil || body.ThreadID == nil || !ValidThread(*body.ThreadID) {
		h.refuse(w, http.StatusBadRequest, "bad_request", `send {"thread_id":"<id>"}: 1 to 128 characters from A-Z a-z 0-9 . _ : -`, 0)
		return
	}
	cancelled, running, err := h.stores.Calls.Cancel(r.Context(), calls.Key{License: c.LicenseHash, Thread: *body.ThreadID}, CancelWait)
	if err != nil {
		h.log.Warn("cancel could not reach every replica", "request_id", RequestIDFrom(r.Context()), "err", err)
	}
	h.log.Info("cancel", "request_id", RequestIDFrom(r.Context()), "thread", *body.ThreadID, "cancelled", cancelled, "still_running", running)
	resp := map[string]any{"thread_id": *body.ThreadID, "cancelled": cancelled}
	if running > 0 {
		resp["still_running"] = running
	}
	writeJSON(w, http.StatusOK, resp)
}

package host

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// refusal is the JSON body of every refusal: clients read reason.
type refusal struct {
	Reason            string `json:"reason"`
	Message           string `json:"message,omitempty"`
	RetryAfterSeconds int    `json:"retry_after_seconds,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"reason":"internal_error"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func (h *Host) refuse(w http.ResponseWriter, status int, reason, message string, retryAfter int) {
	h.metrics.refusals.WithLabelValues(reason).Inc()
	noteRefusal(w, reason)
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	body := refusal{Reason: reason, Message: message}
	if reason == "rate_limited" {
		body.RetryAfterSeconds = retryAfter
	}
	writeJSON(w, status, body)
}

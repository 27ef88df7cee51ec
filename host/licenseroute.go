package host

import (
	"net/http"
	"time"

	"github.com/surfsense/pluginhost/license"
)

// serveLicense answers GET /license with the verdict.
func (h *Host) serveLicense(w http.ResponseWriter, r *http.Request) {
	c, _ := callerFrom(r.Context())
	checked := c.Result.CheckedAt.UTC()
	writeJSON(w, http.StatusOK, struct {
		Status    license.Status `json:"status"`
		Plan      *string        `json:"plan"`
		ExpiresAt *time.Time     `json:"expires_at"`
		CheckedAt time.Time      `json:"checked_at"`
	}{c.Result.Verdict.Status, c.Result.Verdict.Plan, utcPtr(c.Result.Verdict.ExpiresAt), checked.Truncate(time.Second)})
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

package host

import (
	"context"
	"net/http"
	"regexp"

	"github.com/surfsense/pluginhost/license"
)

type ctxKey int

const (
	ctxCaller ctxKey = iota
	ctxRequestDone
)

// requestContext is the HTTP request's context, carried to the tool handler
// so that a call whose client went away is cancelled: the MCP SDK runs
// handlers on a context that outlives the request.
func requestContext(ctx context.Context) context.Context {
	rc, _ := ctx.Value(ctxRequestDone).(context.Context)
	return rc
}

// caller is who made a request: the license's hash (never the key), its
// verdict, and the thread it belongs to.
type caller struct {
	LicenseHash string
	Result      license.Result
	Thread      string
	TextOnly    bool
}

func callerFrom(ctx context.Context) (caller, bool) {
	c, ok := ctx.Value(ctxCaller).(caller)
	return c, ok
}

// threadPattern is X-SurfSense-Thread's form (CONTRACTS.md).
var threadPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// ValidThread reports whether id is a well-formed thread id.
func ValidThread(id string) bool { return threadPattern.MatchString(id) }

// requireLicense checks Authorization: License <key> (contract 2) and refuses
// with 401, 403 or 503 and a JSON reason. The caller it lets through is in the
// request's context.
func (h *Host) requireLicense(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := license.ParseAuthorization(r.Header.Values("Authorization"))
		if err != nil {
			h.metrics.verdicts.WithLabelValues(license.ReasonMissing).Inc()
			h.refuse(w, http.StatusUnauthorized, license.ReasonMissing, "send Authorization: License <key>", 0)
			return
		}
		res := h.checker.Check(r.Context(), key)
		switch reason := res.Reason(); reason {
		case "":
		case license.ReasonUnavailable:
			h.refuse(w, http.StatusServiceUnavailable, reason, "the license service cannot be reached; try again shortly", 30)
			return
		default:
			h.refuse(w, http.StatusForbidden, reason, licenseMessage(reason), 0)
			return
		}
		c := caller{LicenseHash: license.Hash(key), Result: res, TextOnly: r.Header.Get("x-surfsense-text-only") == "1"}
		if vals := r.Header.Values("X-SurfSense-Thread"); len(vals) > 0 {
			if len(vals) != 1 || !ValidThread(vals[0]) {
				h.refuse(w, http.StatusBadRequest, "bad_request", "X-SurfSense-Thread must be one header of 1 to 128 characters from A-Z a-z 0-9 . _ : -", 0)
				return
			}
			c.Thread = vals[0]
		}
		ctx := context.WithValue(r.Context(), ctxCaller, c)
		ctx = context.WithValue(ctx, ctxRequestDone, r.Context())
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func licenseMessage(reason string) string {
	switch reason {
	case "expired":
		return "the SurfSense license has expired; renew it in SurfSense's License settings"
	case "revoked":
		return "the SurfSense license was revoked or suspended"
	default:
		return "the SurfSense license key is not recognized"
	}
}

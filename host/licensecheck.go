package host

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/surfsense/pluginhost/license"
)

// requireLicense checks Authorization: License <key> (CONTRACTS.md, "The
// license (contract 2, kept exactly)") and refuses with 401, 403 or 503 and a
// JSON reason. The caller it lets through is in the request's context.
func (h *Host) requireLicense(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ctx, ok := h.checkLicense(w, r, r.Context()); ok {
			next.ServeHTTP(w, r.WithContext(ctx))
		}
	})
}

// checkLicense is requireLicense's check, and a step of mcpRoute: ctx (r's
// context, or its steps') with the caller, or ok false with the refusal
// written.
func (h *Host) checkLicense(w http.ResponseWriter, r *http.Request, ctx context.Context) (_ context.Context, ok bool) {
	c, key, err := readCaller(r.Header)
	t0 := time.Now()
	if errors.Is(err, errNoLicense) {
		noteLicense(ctx, t0, license.Result{Verdict: license.Verdict{Status: license.Invalid}}, "none", license.ReasonMissing)
		h.metrics.verdicts.WithLabelValues(license.ReasonMissing).Inc()
		challenge(w, license.ReasonMissing)
		h.refuse(w, http.StatusUnauthorized, license.ReasonMissing, err.Error(), 0)
		return ctx, false
	}
	checkCtx, deferred := h.deferLicenseSpans(ctx)
	res := h.checker.Check(checkCtx, key)
	noteLicense(ctx, t0, res, h.checker.Backend.Name(), "")
	noteLicenseSpans(ctx, deferred)
	switch reason := res.Reason(); reason {
	case "":
	case license.ReasonUnavailable:
		h.refuse(w, http.StatusServiceUnavailable, reason, "the license service cannot be reached; try again shortly", 30)
		return ctx, false
	default:
		h.countLicenseRefusal(r, c, res)
		challenge(w, reason)
		h.refuse(w, http.StatusForbidden, reason, licenseMessage(reason), 0)
		return ctx, false
	}
	if errors.Is(err, errBadThread) {
		h.refuse(w, http.StatusBadRequest, "bad_request", err.Error(), 0)
		return ctx, false
	}
	c.Result = res
	return context.WithValue(context.WithValue(ctx, ctxCaller, c), ctxRequestDone, ctx), true
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

// challenge names the scheme a refused request must use, so that MCP clients
// do not take a missing or refused key for an OAuth server and go looking for
// OAuth metadata (CONTRACTS.md, "The license").
func challenge(w http.ResponseWriter, reason string) {
	w.Header().Set("WWW-Authenticate", `License realm="SurfSense", reason="`+reason+`"`)
}

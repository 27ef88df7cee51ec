package scrapers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// Retry defaults; a Site's fields override them.
const (
	defaultMaxAttempts   = 3
	defaultBaseBackoff   = 500 * time.Millisecond
	maxBackoff           = 10 * time.Second
	defaultMaxRetryAfter = 30 * time.Second
)

// retryableStatus reports whether an HTTP status is worth another try: rate
// limiting and server trouble. 501 and 505 say the request can never work.
func retryableStatus(code int) bool {
	if code == http.StatusTooManyRequests {
		return true
	}
	return code >= 500 && code <= 599 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported
}

// retryableError reports whether a failure without an answer is worth
// another try: connection trouble is; a refused address, an oversized body, a
// refused redirect, a bad certificate and a finished context are not.
func retryableError(err error) bool {
	var (
		certErr  *tls.CertificateVerificationError
		authErr  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		redirErr *redirectError
	)
	switch {
	case err == nil,
		errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, netguard.ErrForbiddenAddress),
		errors.Is(err, ErrTooLarge),
		errors.As(err, &redirErr),
		errors.As(err, &certErr),
		errors.As(err, &authErr),
		errors.As(err, &hostErr):
		return false
	}
	return true
}

// backoff is the wait before try attempt+1 (attempt counts from 1): base
// doubled per try, capped, with "equal jitter" (half fixed, half random) so
// that many callers do not retry in step.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// AsksPause says whether an answer with this status and a Retry-After asks
// its client to pause (and so holds the site for the fleet): 429 Too Many
// Requests and 503 Service Unavailable.
func AsksPause(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// ParseRetryAfter reads a Retry-After header (delay-seconds or an HTTP
// date, at most a day): ok is false when it is absent or unreadable.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) { return parseRetryAfter(v, now) }

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// ok is false when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{8,64}$`)

// requestID gives every request an id (a well-formed incoming X-Request-Id is
// kept), echoes it in the answer and puts it in the context for logs.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, withRequestID(w, r))
	})
}

// withRequestID is r with its id, echoed in w's headers. It is a function
// of its own so that every call's stack does not hold its frame
// (callHandler says why).
func withRequestID(w http.ResponseWriter, r *http.Request) *http.Request {
	id := r.Header.Get("X-Request-Id")
	if !requestIDPattern.MatchString(id) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	w.Header().Set("X-Request-Id", id)
	return r.WithContext(context.WithValue(r.Context(), ctxRequestID, id))
}

// RequestIDFrom returns the request id of ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

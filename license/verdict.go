package license

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"
)

// Status is a verdict's status. The refusal statuses are contract 2's reasons.
type Status string

const (
	Valid   Status = "valid"
	Expired Status = "expired"
	Revoked Status = "revoked"
	Invalid Status = "invalid"
)

// Reasons the host answers with besides the statuses above.
const (
	ReasonMissing     = "missing_license"
	ReasonUnavailable = "license_service_unavailable"
)

// Verdict is what a backend says of a key.
type Verdict struct {
	Status    Status     `json:"status"`
	Plan      *string    `json:"plan"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// ErrUnreachable is wrapped by a backend error when the license service could
// not give an answer (network error, timeout, 408, 429, 5xx).
var ErrUnreachable = errors.New("license service unreachable")

// Backend validates one key. It returns an error wrapping ErrUnreachable when
// it could not learn the verdict; a key it knows to be bad is a Verdict with a
// refusal status and a nil error.
type Backend interface {
	Validate(ctx context.Context, key string) (Verdict, error)
	// Name is the backend's name for logs and /readyz (keygen, file, dev).
	Name() string
}

// Hash is how a key is named anywhere it is kept: caches, Redis keys, the call
// registry, stored results. The key itself is never stored.
func Hash(key string) string {
	sum := sha256.Sum256([]byte("surfsense-license\x00" + key))
	return hex.EncodeToString(sum[:])
}

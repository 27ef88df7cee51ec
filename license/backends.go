package license

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Dev accepts every non-empty key as valid with plan "dev". It is what
// `pluginhost serve --dev` uses; never use it in production.
type Dev struct{}

func (Dev) Name() string { return "dev" }

func (Dev) Validate(_ context.Context, key string) (Verdict, error) {
	if key == "" {
		return Verdict{Status: Invalid}, nil
	}
	plan := "dev"
	return Verdict{Status: Valid, Plan: &plan}, nil
}

// File reads keys and their states from a JSON file (self-hosting, tests):
//
//	{"keys": [
//	  {"sha256": "<hex sha256 of the key>", "status": "valid", "plan": "team", "expires_at": "2027-03-01T00:00:00Z"},
//	  {"key": "<the key in clear>", "status": "revoked"}
//	]}
//
// status is valid, expired, revoked or invalid; a valid key whose expires_at
// has passed is expired. Prefer sha256 (`printf %s KEY | sha256sum`): a key
// written in clear is hashed on load and a warning is logged. The file is read
// again when it changes; a key not in it is invalid.
type File struct {
	Path   string
	Logger *slog.Logger
	Now    func() time.Time

	mu      sync.Mutex
	modTime time.Time
	size    int64
	keys    map[string]fileKey // by hex sha256
}

type fileKey struct {
	SHA256    string     `json:"sha256"`
	Key       string     `json:"key"`
	Status    Status     `json:"status"`
	Plan      *string    `json:"plan"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// NewFile loads path and returns the backend.
func NewFile(path string, logger *slog.Logger) (*File, error) {
	f := &File{Path: path, Logger: logger}
	if err := f.reload(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) Name() string { return "file" }

func (f *File) reload() error {
	st, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("LICENSE_KEYS_FILE: %w", err)
	}
	if f.keys != nil && st.ModTime().Equal(f.modTime) && st.Size() == f.size {
		return nil
	}
	raw, err := os.ReadFile(f.Path)
	if err != nil {
		return fmt.Errorf("LICENSE_KEYS_FILE: %w", err)
	}
	var doc struct {
		Keys []fileKey `json:"keys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("LICENSE_KEYS_FILE %s is not valid JSON of the form {\"keys\":[…]}: %v", f.Path, err)
	}
	keys := make(map[string]fileKey, len(doc.Keys))
	clear := 0
	for i, k := range doc.Keys {
		switch k.Status {
		case Valid, Expired, Revoked, Invalid:
		default:
			return fmt.Errorf("LICENSE_KEYS_FILE %s: keys[%d]: status %q is not valid, expired, revoked or invalid", f.Path, i, k.Status)
		}
		h := strings.ToLower(k.SHA256)
		if k.Key != "" {
			sum := sha256.Sum256([]byte(k.Key))
			h = hex.EncodeToString(sum[:])
			clear++
		}
		if len(h) != 64 {
			return fmt.Errorf("LICENSE_KEYS_FILE %s: keys[%d]: needs sha256 (64 hex digits) or key", f.Path, i)
		}
		k.Key = ""
		keys[h] = k
	}
	if clear > 0 && f.Logger != nil {
		f.Logger.Warn("LICENSE_KEYS_FILE holds keys in clear; write their sha256 instead", "count", clear)
	}
	f.keys, f.modTime, f.size = keys, st.ModTime(), st.Size()
	return nil
}

func (f *File) Validate(_ context.Context, key string) (Verdict, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reload(); err != nil {
		if f.keys == nil {
			return Verdict{}, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		if f.Logger != nil {
			f.Logger.Warn("LICENSE_KEYS_FILE could not be read again; using the last copy", "err", err)
		}
	}
	sum := sha256.Sum256([]byte(key))
	k, ok := f.keys[hex.EncodeToString(sum[:])]
	if !ok {
		return Verdict{Status: Invalid}, nil
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	v := Verdict{Status: k.Status, Plan: k.Plan, ExpiresAt: k.ExpiresAt}
	if v.Status == Valid && k.ExpiresAt != nil && now().After(*k.ExpiresAt) {
		v.Status = Expired
	}
	return v, nil
}

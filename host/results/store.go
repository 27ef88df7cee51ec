// Package results keeps the part of a large tool result that did not fit in
// the call's answer, for 24 hours, so that get_result can page through it.
package results

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// TTL is how long a stored result is kept.
const TTL = 24 * time.Hour

// ErrNotFound is returned for an unknown or expired result id, and for a
// result another license made (an owner never learns others' ids exist).
var ErrNotFound = errors.New("no such result: it expired, was never made, or belongs to another license")

// Stored is the rest of a result.
type Stored struct {
	Plugin  string            `json:"plugin"`
	Tool    string            `json:"tool"`
	Items   []json.RawMessage `json:"items"` // every item of the call, in order
	Partial bool              `json:"partial"`
	Reasons []string          `json:"reasons,omitempty"`
	Meta    map[string]any    `json:"meta,omitempty"`
}

// Store keeps stored results. owner is the license hash.
type Store interface {
	Put(ctx context.Context, owner string, s Stored) (id string, err error)
	Get(ctx context.Context, owner, id string) (Stored, error)
}

// NewID returns a fresh, unguessable result id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "res_" + hex.EncodeToString(b[:])
}

// Memory is a Store in this process's memory. The zero value is ready.
type Memory struct {
	mu sync.Mutex
	m  map[string]memResult
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

type memResult struct {
	owner   string
	s       Stored
	expires time.Time
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Memory) Put(_ context.Context, owner string, s Stored) (string, error) {
	id := NewID()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memResult{}
	}
	now := m.now()
	for k, v := range m.m {
		if now.After(v.expires) {
			delete(m.m, k)
		}
	}
	m.m[id] = memResult{owner: owner, s: s, expires: now.Add(TTL)}
	return id, nil
}

func (m *Memory) Get(_ context.Context, owner, id string) (Stored, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[id]
	if !ok || r.owner != owner || m.now().After(r.expires) {
		return Stored{}, ErrNotFound
	}
	return r.s, nil
}

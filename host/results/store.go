// Package results keeps the part of a large tool result that did not fit in
// the call's answer, for 24 hours, so that get_result can page through it.
package results

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
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
	// Images are the result's pictures (screenshots), each naming its item.
	Images []scrapers.Image `json:"images,omitempty"`
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

// localMark joins a result id to the replica that alone keeps it (LocalID).
const localMark = "-on-"

// LocalID returns a fresh id for a result kept in the memory of replica
// alone, because the store the replicas share refused it: the id names the
// replica ("res_<hex>-on-<replica>"), so that every other replica can say
// where the result is rather than that there is none.
func LocalID(replica string) string {
	return NewID() + localMark + ReplicaName(replica)
}

// ReplicaName is replica as a LocalID spells it: letters, digits and
// dashes, at most 64.
func ReplicaName(replica string) string {
	var b strings.Builder
	for _, c := range replica {
		if b.Len() >= 64 {
			break
		}
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' {
			b.WriteRune(c)
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "replica"
	}
	return name
}

// HeldBy is the replica a LocalID names; false for a shared result's id.
func HeldBy(id string) (replica string, ok bool) {
	_, replica, ok = strings.Cut(id, localMark)
	return replica, ok && replica != ""
}

// HeldElsewhereError is Get's answer on one replica for a result that
// another keeps in its memory alone (HeldBy).
type HeldElsewhereError struct {
	ID      string
	Replica string // the replica that keeps it
	Here    string // the replica asked
}

func (e *HeldElsewhereError) Error() string {
	return fmt.Sprintf("result %s is kept in the memory of replica %s only: the store the replicas share (Redis) refused it when the call was made, and this request reached replica %s. "+
		"Ask again, as a later request may reach %s, or make the call again", e.ID, e.Replica, e.Here, e.Replica)
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

func (m *Memory) Put(ctx context.Context, owner string, s Stored) (string, error) {
	id := NewID()
	m.Keep(owner, id, s)
	return id, nil
}

// Keep stores s under the id given (LocalID's, for a result the shared
// store refused).
func (m *Memory) Keep(owner, id string, s Stored) {
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

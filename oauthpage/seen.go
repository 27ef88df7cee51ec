package oauthpage

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Defaults of MemorySeen.
const (
	// DefaultSeenTTL is how long a used state is remembered. The app forgets
	// a sign-in after ten minutes, so a state older than that is refused by
	// the app itself.
	DefaultSeenTTL = 10 * time.Minute
	// DefaultSeenMax is how many used states MemorySeen keeps at most (about
	// 100 bytes each).
	DefaultSeenMax = 50_000
)

// SeenStates remembers which callback states were already used, so that a
// callback link works once.
//
// FirstUse records state (the decoded "<port>.<nonce>") as used and reports
// whether it was unused until now. It must be atomic: of two concurrent calls
// with the same state, exactly one reports true. An error means the store
// could not answer; the callback then forwards anyway and logs it, since the
// app accepts only a state it issued and only once, and a broken store must
// not stop every sign-in.
//
// A store shared by replicas (Redis: SET <prefix><state> 1 NX EX 600, true
// when it answers OK) makes the refusal hold across replicas; MemorySeen
// holds for one process.
type SeenStates interface {
	FirstUse(ctx context.Context, state string) (first bool, err error)
}

// MemorySeen is a SeenStates in this process's memory. It keeps a state for
// TTL and at most Max states; when full, the oldest is forgotten first, so a
// flood of fresh states can make an old one usable again but never grows
// memory. The zero value is ready and uses DefaultSeenTTL and DefaultSeenMax.
// It keeps SHA-256 digests, not the states themselves.
type MemorySeen struct {
	// TTL is how long a state is remembered; 0 is DefaultSeenTTL.
	TTL time.Duration
	// Max is how many states are kept at most; 0 is DefaultSeenMax.
	Max int
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time

	mu    sync.Mutex
	until map[[sha256.Size]byte]time.Time
	order []seenEntry // in the order added, so oldest first
	head  int         // order[:head] are gone
}

type seenEntry struct {
	key   [sha256.Size]byte
	until time.Time
}

func (m *MemorySeen) FirstUse(_ context.Context, state string) (bool, error) {
	key := sha256.Sum256([]byte(state))
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.until == nil {
		m.until = map[[sha256.Size]byte]time.Time{}
	}
	// Forget what expired, oldest first.
	for m.head < len(m.order) && !now.Before(m.order[m.head].until) {
		m.dropHead()
	}
	if until, ok := m.until[key]; ok && now.Before(until) {
		return false, nil
	}
	for len(m.until) >= m.max() && m.head < len(m.order) {
		m.dropHead()
	}
	until := now.Add(m.ttl())
	m.until[key] = until
	m.order = append(m.order, seenEntry{key: key, until: until})
	return true, nil
}

// Len returns how many states are remembered now, expired ones included
// until the next FirstUse sweeps them.
func (m *MemorySeen) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.until)
}

// dropHead forgets the oldest entry. The map entry goes only when it is the
// same use (a state used again after it expired has a newer entry).
func (m *MemorySeen) dropHead() {
	e := m.order[m.head]
	if u, ok := m.until[e.key]; ok && u.Equal(e.until) {
		delete(m.until, e.key)
	}
	m.order[m.head] = seenEntry{}
	m.head++
	if m.head >= 1024 && m.head*2 >= len(m.order) {
		m.order = append([]seenEntry(nil), m.order[m.head:]...)
		m.head = 0
	}
}

func (m *MemorySeen) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *MemorySeen) ttl() time.Duration {
	if m.TTL > 0 {
		return m.TTL
	}
	return DefaultSeenTTL
}

func (m *MemorySeen) max() int {
	if m.Max > 0 {
		return m.Max
	}
	return DefaultSeenMax
}

package license

import (
	"context"
	"sync"
	"time"
)

// Entry is what is remembered of a key hash.
type Entry struct {
	Verdict   Verdict   `json:"verdict"`
	CheckedAt time.Time `json:"checked_at"` // when the backend last answered
	// LastValidAt is when the backend last said the key was valid; it starts
	// the grace period while the backend is unreachable. Zero when never.
	LastValidAt time.Time `json:"last_valid_at"`
}

// Store keeps entries per key hash, shared by replicas when it is Redis.
// Entries must be kept at least as long as the grace period.
type Store interface {
	Load(ctx context.Context, hash string) (Entry, bool, error)
	Save(ctx context.Context, hash string, e Entry, keep time.Duration) error
	// Lock takes the right to ask the backend about hash, so that replicas
	// make one request between them. ok is false when another holder has it;
	// unlock releases it. An in-memory store always grants it (the checker's
	// own single-flight covers one process).
	Lock(ctx context.Context, hash string, ttl time.Duration) (unlock func(), ok bool, err error)
}

// MemoryStore is a Store in this process's memory. The zero value is ready.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string]memEntry
}

type memEntry struct {
	e       Entry
	expires time.Time
}

func (s *MemoryStore) Load(_ context.Context, hash string) (Entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	me, ok := s.m[hash]
	if !ok || time.Now().After(me.expires) {
		delete(s.m, hash)
		return Entry{}, false, nil
	}
	return me.e, true, nil
}

func (s *MemoryStore) Save(_ context.Context, hash string, e Entry, keep time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]memEntry{}
	}
	if len(s.m) > 100_000 { // bound memory against floods of random keys
		now := time.Now()
		for k, v := range s.m {
			if now.After(v.expires) || len(s.m) > 90_000 {
				delete(s.m, k)
			}
		}
	}
	s.m[hash] = memEntry{e: e, expires: time.Now().Add(keep)}
	return nil
}

func (s *MemoryStore) Lock(context.Context, string, time.Duration) (func(), bool, error) {
	return func() {}, true, nil
}

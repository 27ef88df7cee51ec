package resultcache

import (
	"context"
	"time"
)

// Store keeps answers by key. Implementations are safe for concurrent use
// and bounded; an entry they cannot keep (too large) is dropped silently.
type Store interface {
	// Get returns the entry of key; ok is false when there is none (never
	// stored, expired or evicted).
	Get(ctx context.Context, key string) (e Entry, ok bool, err error)
	// Put keeps e under key for ttl.
	Put(ctx context.Context, key string, e Entry, ttl time.Duration) error
}

// Leases share runs between replicas (host/redisstore): one replica at a time
// holds the lease of a key and runs it; the others wait for its answer.
type Leases interface {
	// Acquire returns the stored entry of key when there is one fetched at
	// or after notBefore (hit); otherwise it makes holder the lease's holder
	// for ttl when nobody holds it (leased). Neither: another replica runs
	// key now.
	Acquire(ctx context.Context, key, holder string, ttl time.Duration, notBefore time.Time) (e Entry, hit, leased bool, err error)
	// Renew extends holder's lease by ttl; false when holder lost it.
	Renew(ctx context.Context, key, holder string, ttl time.Duration) (bool, error)
	// Finish stores e under key for ttl (when e is non-nil), releases
	// holder's lease and wakes the replicas waiting for key.
	Finish(ctx context.Context, key, holder string, e *Entry, ttl time.Duration) error
	// Wait registers waiter as waiting for key on this replica for ttl
	// (renewed by calling it again); done removes it.
	Wait(ctx context.Context, key, waiter string, ttl time.Duration) error
	Done(ctx context.Context, key, waiter string) error
	// Waiting counts the waiters of key registered and not expired.
	Waiting(ctx context.Context, key string) (int, error)
	// Watch returns a channel that receives when key is finished by any
	// replica (best effort: waiters also poll), and a function ending the
	// watch.
	Watch(key string) (<-chan struct{}, func())
}

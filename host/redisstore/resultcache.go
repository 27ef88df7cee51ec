package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/resultcache"
)

// MaxCacheEntryBytes is the largest answer the shared result cache keeps;
// a larger one is answered but not stored.
const MaxCacheEntryBytes = 8 << 20

// ResultCache is the result cache the replicas share (CONTRACTS.md, "Tool
// results": Cache): a [resultcache.Store] and [resultcache.Leases] on this
// Store's client.
//
// An answer is kept under prefix+"cache:"+key as "<fetched at, Unix ms>|<JSON
// entry>" for its TTL. One replica at a time runs a key: the holder of
// prefix+"cache-lease:"+key (SET NX PX), which renews it while the run goes
// on; waiters on other replicas register in the sorted set
// prefix+"cache-wait:"+key (scored by expiry, as the call registry is) so
// that the holder's run outlives its own callers while they wait. Finishing
// stores the answer, frees the lease and publishes the key on
// prefix+"cache-done", which wakes the waiters (they also poll).
//
// While Redis is unreachable every replica works alone: answers are kept in
// this replica's memory, leases are granted at once, no waiter is counted.
type ResultCache struct {
	s   *Store
	mem resultcache.Memory

	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
}

var (
	_ resultcache.Store  = (*ResultCache)(nil)
	_ resultcache.Leases = (*ResultCache)(nil)
)

// ResultCache returns this Store's shared result cache (one per Store; its
// wake-up subscription ends with Close).
func (s *Store) ResultCache() *ResultCache {
	s.rcOnce.Do(func() {
		s.rc = &ResultCache{s: s, watchers: map[string]map[chan struct{}]struct{}{}}
		s.wg.Add(1)
		go s.rc.subscribeLoop()
	})
	return s.rc
}

func (r *ResultCache) entryKey(key string) string { return r.s.key("cache", key) }
func (r *ResultCache) leaseKey(key string) string { return r.s.key("cache-lease", key) }
func (r *ResultCache) waitKey(key string) string  { return r.s.key("cache-wait", key) }
func (r *ResultCache) channel() string            { return r.s.key("cache-done") }

// encodeEntry is the stored form of e; ok is false when it is too large.
func encodeEntry(e resultcache.Entry) (string, bool) {
	b, err := json.Marshal(e)
	if err != nil || len(b) > MaxCacheEntryBytes {
		return "", false
	}
	return strconv.FormatInt(e.FetchedAt.UnixMilli(), 10) + "|" + string(b), true
}

func decodeEntry(v string) (resultcache.Entry, bool) {
	_, js, ok := strings.Cut(v, "|")
	var e resultcache.Entry
	if !ok || json.Unmarshal([]byte(js), &e) != nil {
		return resultcache.Entry{}, false
	}
	return e, true
}

// Get reads the answer of key.
func (r *ResultCache) Get(ctx context.Context, key string) (resultcache.Entry, bool, error) {
	s := r.s
	var v string
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		var err error
		v, err = s.rdb.Get(ctx, r.entryKey(key)).Result()
		return err
	})
	switch {
	case errors.Is(err, redis.Nil):
		return r.mem.Get(ctx, key) // kept here during an outage, perhaps
	case err != nil:
		s.fallback("result_cache")
		return r.mem.Get(ctx, key)
	}
	e, ok := decodeEntry(v)
	return e, ok, nil
}

// Put keeps e under key for ttl (without a lease: Finish is the usual way).
func (r *ResultCache) Put(ctx context.Context, key string, e resultcache.Entry, ttl time.Duration) error {
	s := r.s
	v, ok := encodeEntry(e)
	if !ok || ttl <= 0 {
		return nil
	}
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		return s.rdb.Set(ctx, r.entryKey(key), v, ttl).Err()
	})
	if err != nil {
		s.fallback("result_cache")
		return r.mem.Put(ctx, key, e, ttl)
	}
	return nil
}

// Acquire answers from the store, or takes the lease, or says another
// replica holds it (e then carries the fetch time of the answer stored now,
// if any).
func (r *ResultCache) Acquire(ctx context.Context, key, holder string, ttl time.Duration, notBefore time.Time) (resultcache.Entry, bool, bool, error) {
	s := r.s
	var res []any
	nb := int64(0)
	if !notBefore.IsZero() {
		nb = notBefore.UnixMilli()
	}
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		var err error
		res, err = scriptCacheAcquire.Run(ctx, s.rdb, []string{r.entryKey(key), r.leaseKey(key)}, holder, ttl.Milliseconds(), nb).Slice()
		return err
	})
	if err != nil || len(res) != 2 {
		// Alone: the answer kept here, else run it here.
		s.fallback("result_cache")
		if e, ok, _ := r.mem.Get(ctx, key); ok && !e.FetchedAt.Before(notBefore) {
			return e, true, false, nil
		}
		return resultcache.Entry{}, false, true, nil
	}
	kind, _ := res[0].(string)
	val, _ := res[1].(string)
	switch kind {
	case "hit":
		if e, ok := decodeEntry(val); ok {
			return e, true, false, nil
		}
		return resultcache.Entry{}, false, true, nil // unreadable: run it
	case "lease":
		return resultcache.Entry{}, false, true, nil
	}
	var e resultcache.Entry
	if ms, err := strconv.ParseInt(val, 10, 64); err == nil && ms > 0 {
		e.FetchedAt = time.UnixMilli(ms)
	}
	return e, false, false, nil
}

// Renew extends holder's lease.
func (r *ResultCache) Renew(ctx context.Context, key, holder string, ttl time.Duration) (bool, error) {
	s := r.s
	var n int64
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		n, err = scriptCacheRenew.Run(ctx, s.rdb, []string{r.leaseKey(key)}, holder, ttl.Milliseconds()).Int64()
		return err
	})
	if err != nil {
		return true, nil // alone while Redis is down
	}
	return n == 1, nil
}

// Finish stores e (when non-nil), frees holder's lease and wakes the
// waiters.
func (r *ResultCache) Finish(ctx context.Context, key, holder string, e *resultcache.Entry, ttl time.Duration) error {
	s := r.s
	v := ""
	if e != nil && ttl > 0 {
		if enc, ok := encodeEntry(*e); ok {
			v = enc
		}
	}
	err := s.do(ctx, s.opts.ResultTimeout, func(ctx context.Context) error {
		return scriptCacheFinish.Run(ctx, s.rdb, []string{r.entryKey(key), r.leaseKey(key)}, holder, v, max(ttl.Milliseconds(), 1), r.channel(), key).Err()
	})
	if err != nil {
		s.fallback("result_cache")
		if e != nil {
			_ = r.mem.Put(ctx, key, *e, ttl)
		}
	}
	r.wake(key)
	return nil
}

// Wait registers waiter for key for ttl.
func (r *ResultCache) Wait(ctx context.Context, key, waiter string, ttl time.Duration) error {
	s := r.s
	return s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return scriptRefresh.Run(ctx, s.rdb, []string{r.waitKey(key)}, ttl.Milliseconds(), waiter).Err()
	})
}

// Done removes waiter.
func (r *ResultCache) Done(ctx context.Context, key, waiter string) error {
	s := r.s
	return s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		return s.rdb.ZRem(ctx, r.waitKey(key), waiter).Err()
	})
}

// Waiting counts key's registered waiters.
func (r *ResultCache) Waiting(ctx context.Context, key string) (int, error) {
	s := r.s
	var n int64
	err := s.do(ctx, s.opts.Timeout, func(ctx context.Context) error {
		var err error
		n, err = scriptCount.Run(ctx, s.rdb, []string{r.waitKey(key)}).Int64()
		return err
	})
	return int(n), err
}

// Watch hears the finishes of key, from any replica.
func (r *ResultCache) Watch(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	set := r.watchers[key]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		r.watchers[key] = set
	}
	set[ch] = struct{}{}
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		delete(set, ch)
		if cur, ok := r.watchers[key]; ok && len(cur) == 0 {
			delete(r.watchers, key)
		}
		r.mu.Unlock()
	}
}

func (r *ResultCache) wake(key string) {
	r.mu.Lock()
	for ch := range r.watchers[key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	r.mu.Unlock()
}

// subscribeLoop hears the finishes published by every replica. go-redis
// subscribes again after a fault by itself; a finish missed meanwhile is
// found by the waiters' polls.
func (r *ResultCache) subscribeLoop() {
	s := r.s
	defer s.wg.Done()
	ps := s.rdb.Subscribe(s.ctx, r.channel())
	defer func() { _ = ps.Close() }()
	msgs := ps.Channel()
	for {
		select {
		case <-s.ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			r.wake(m.Payload)
		}
	}
}

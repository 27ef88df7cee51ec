package license

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/singleflight"
)

// Result is the checker's answer for one key: a verdict, or Unavailable when
// the license service could not be reached and the key has no verdict to fall
// back on.
type Result struct {
	Verdict     Verdict
	CheckedAt   time.Time // when the backend gave this verdict
	Unavailable bool      // 503 license_service_unavailable
	FromGrace   bool      // valid only through the grace period
	Cached      bool      // answered from the cache without asking the backend
}

// Reason is the contract-2 reason for a refusal, "" when the key is valid.
func (r Result) Reason() string {
	switch {
	case r.Unavailable:
		return ReasonUnavailable
	case r.Verdict.Status == Valid:
		return ""
	case r.Verdict.Status == Expired, r.Verdict.Status == Revoked:
		return string(r.Verdict.Status)
	default:
		return string(Invalid)
	}
}

// Checker answers whether a key is usable: from the cache while it is fresh
// (TTL), else from the backend, one request per key however many calls wait on
// it, falling back to the last valid verdict for Grace while the backend is
// unreachable.
type Checker struct {
	Backend Backend
	// Store keeps entries; nil is a MemoryStore. A Redis store shares them
	// between replicas.
	Store Store
	// TTL is how long a verdict is used without asking again (default 5m).
	TTL time.Duration
	// Grace is how long a key validated as valid stays valid while the
	// backend is unreachable (default 24h).
	Grace time.Duration
	// Timeout bounds one backend request (default 5s).
	Timeout time.Duration
	// Logger receives verdict logs (never the key). Nil discards.
	Logger *slog.Logger
	// Observe, when set, is told every verdict's reason ("valid" for valid).
	Observe func(reason string)
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time

	flight singleflight.Group
	mem    MemoryStore
}

func (c *Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Checker) store() Store {
	if c.Store != nil {
		return c.Store
	}
	return &c.mem
}

func (c *Checker) ttl() time.Duration {
	if c.TTL > 0 {
		return c.TTL
	}
	return 5 * time.Minute
}

func (c *Checker) grace() time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return 24 * time.Hour
}

func (c *Checker) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 5 * time.Second
}

func (c *Checker) log() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// Check returns the verdict for key. It never returns the key in an error.
func (c *Checker) Check(ctx context.Context, key string) Result {
	r := c.check(ctx, key)
	if c.Observe != nil {
		reason := r.Reason()
		if reason == "" {
			reason = "valid"
		}
		c.Observe(reason)
	}
	return r
}

func (c *Checker) check(ctx context.Context, key string) Result {
	hash := Hash(key)
	if e, ok, err := c.store().Load(ctx, hash); err == nil && ok && c.fresh(e) {
		return Result{Verdict: e.Verdict, CheckedAt: e.CheckedAt, Cached: true}
	}
	ch := c.flight.DoChan(hash, func() (any, error) {
		// Detached from the first caller: its cancel must not fail the
		// others waiting on the same key.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout()+2*time.Second)
		defer cancel()
		return c.refresh(rctx, key, hash), nil
	})
	select {
	case res := <-ch:
		return res.Val.(Result)
	case <-ctx.Done():
		return Result{Unavailable: true}
	}
}

// fresh reports whether e is recent enough to answer without asking.
func (c *Checker) fresh(e Entry) bool {
	age := c.now().Sub(e.CheckedAt)
	return age >= 0 && age < c.ttl()
}

// refresh asks the backend (or waits for another replica asking it) and
// records the answer.
func (c *Checker) refresh(ctx context.Context, key, hash string) Result {
	st := c.store()
	unlock, ok, err := st.Lock(ctx, hash, c.timeout()+time.Second)
	if err == nil && !ok {
		// Another replica is asking: wait for its answer in the store.
		deadline := time.Now().Add(c.timeout() + time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				return c.fallback(ctx, hash, ctx.Err())
			case <-time.After(25 * time.Millisecond):
			}
			if e, ok, err := st.Load(ctx, hash); err == nil && ok && c.fresh(e) {
				return Result{Verdict: e.Verdict, CheckedAt: e.CheckedAt, Cached: true}
			}
		}
		// The holder took too long; ask ourselves.
	}
	if unlock != nil {
		defer unlock()
	}
	if ok && err == nil {
		// Another replica may have asked and saved its answer between our
		// cache miss and taking the lock: use it rather than ask again.
		if e, found, lerr := st.Load(ctx, hash); lerr == nil && found && c.fresh(e) {
			return Result{Verdict: e.Verdict, CheckedAt: e.CheckedAt, Cached: true}
		}
	}
	bctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	v, err := c.Backend.Validate(bctx, key)
	if err != nil {
		if !errors.Is(err, ErrUnreachable) {
			err = fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		return c.fallback(ctx, hash, err)
	}
	now := c.now()
	e := Entry{Verdict: v, CheckedAt: now}
	if v.Status == Valid {
		e.LastValidAt = now // a refusal leaves it zero: it ends the grace
	}
	if err := st.Save(ctx, hash, e, c.grace()); err != nil {
		c.log().Warn("license verdict not saved to the shared store", "err", err)
	}
	c.log().Info("license verdict", "key_hash", hash[:12], "status", v.Status, "backend", c.Backend.Name())
	return Result{Verdict: v, CheckedAt: now}
}

// fallback answers while the backend is unreachable: the last valid verdict
// within the grace period, the last refusal, or Unavailable.
func (c *Checker) fallback(ctx context.Context, hash string, cause error) Result {
	c.log().Warn("license service unreachable", "key_hash", hash[:12], "err", cause)
	e, ok, err := c.store().Load(context.WithoutCancel(ctx), hash)
	if err != nil || !ok {
		return Result{Unavailable: true}
	}
	now := c.now()
	if e.Verdict.Status == Valid && !e.LastValidAt.IsZero() && now.Sub(e.LastValidAt) < c.grace() {
		return Result{Verdict: e.Verdict, CheckedAt: e.CheckedAt, FromGrace: true}
	}
	if e.Verdict.Status != Valid && now.Sub(e.CheckedAt) < c.grace() {
		// A known refusal stays a refusal while we cannot ask again.
		return Result{Verdict: e.Verdict, CheckedAt: e.CheckedAt}
	}
	return Result{Unavailable: true}
}

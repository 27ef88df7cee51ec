package scrapers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Politeness keeps each site's limits: at most Slot.Limit requests in
// flight for a key, starts at least Slot.Interval apart, and holds that keep
// a site (per exit) off after it asked for a pause (429 or 503 with
// Retry-After) or blocked. [LocalPoliteness] keeps them for this process;
// with REDIS_URL the host passes one kept in Redis, so that the limits hold
// for every replica together (host/redisstore).
//
// Implementations are safe for concurrent use. A slow or unreachable shared
// store must never block a caller past its context: such an implementation
// falls back to a local one.
type Politeness interface {
	// Acquire waits for a slot of s.Key and for s.Interval since the key's
	// previous start, then returns the lease the request holds. A hold on
	// s.Key (for s.Exit) that outlasts what the caller can wait is a
	// *HeldError at once, never a wait past ctx.
	Acquire(ctx context.Context, s Slot) (Lease, error)
	// Hold keeps key off, for exit, for d (cut at MaxHold) for every caller:
	// reason says why ("HTTP 429 Retry-After", "captcha"). A shorter hold
	// never shortens a longer one.
	Hold(ctx context.Context, key, exit string, d time.Duration, reason string)
}

// Slot names what a request takes: Key is the site ("site:google",
// "host:example.com"), Exit the way out (ExitDirect or a proxy's label) whose
// holds apply, Limit the requests in flight allowed for the key, Interval
// the least time between two starts.
type Slot struct {
	Key      string
	Exit     string
	Limit    int
	Interval time.Duration
}

// ExitDirect is the exit of requests sent without a proxy.
const ExitDirect = "direct"

// Lease is a slot taken. Release gives it back after the given pause (the
// slot stays taken that long after the request: web-crawl's pause between a
// host's pages); it may be called more than once, only the first counts.
type Lease interface {
	Release(after time.Duration)
}

// Bounds of holds and of waiting on one.
const (
	// MaxHold is the longest hold a site's answer can put on it.
	MaxHold = 10 * time.Minute
	// BlockHold is how long the host has a detected block (captcha, robot
	// check, rate-limit page) hold the exit that met it when the site named
	// no time: BLOCK_HOLD's default (Env.BlockHold).
	BlockHold = 60 * time.Second
	// MaxHeldWait is the longest hold a caller waits out, as it would a
	// pause; a longer one is a *HeldError at once, naming the wait, so that
	// no call hangs on a site that asked to be left alone.
	MaxHeldWait = 2 * time.Second
)

// HeldError is the answer to a request for a site that asked to be left
// alone for longer than the caller may wait.
type HeldError struct {
	Key    string        // the site, as the Slot named it
	Exit   string        // the exit held
	Wait   time.Duration // how long the hold still lasts
	Reason string        // why the site is held
}

func (e *HeldError) Error() string {
	site := e.Key
	for _, p := range []string{"site:", "host:"} {
		if len(site) > len(p) && site[:len(p)] == p {
			site = site[len(p):]
		}
	}
	via := ""
	if e.Exit != "" && e.Exit != ExitDirect {
		via = " through proxy " + e.Exit
	}
	return fmt.Sprintf("%s is held off%s for %s more (%s): the fleet waits before asking it again; retry after that",
		site, via, e.Wait.Round(time.Second), e.Reason)
}

// ErrHeld is matched by every *HeldError (errors.Is).
var ErrHeld = errors.New("site held off")

// Is makes errors.Is(err, ErrHeld) true for a *HeldError.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// HeldWait decides what a caller does about a hold of d: wait it out when it
// is short enough and fits before ctx's deadline, else answer at once.
func HeldWait(ctx context.Context, d time.Duration) bool {
	if d > MaxHeldWait {
		return false
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
		return false
	}
	return true
}

// LocalPoliteness keeps the limits for this process alone. The zero value
// is ready. Keys are forgotten when no request holds or waits for them (and
// their last hold has passed), so memory follows the sites in use.
type LocalPoliteness struct {
	mu    sync.Mutex
	keys  map[string]*localKey
	holds map[string]localHold // by key + "\x00" + exit
}

type localKey struct {
	slots chan struct{}
	users int
	next  time.Time // the earliest start of the next request
}

type localHold struct {
	until  time.Time
	reason string
}

var _ Politeness = (*LocalPoliteness)(nil)

// Acquire implements Politeness.
func (p *LocalPoliteness) Acquire(ctx context.Context, s Slot) (Lease, error) {
	for {
		wait, reason := p.held(s.Key, s.Exit)
		if wait <= 0 {
			break
		}
		if !HeldWait(ctx, wait) {
			return nil, &HeldError{Key: s.Key, Exit: s.Exit, Wait: wait, Reason: reason}
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	limit := max(s.Limit, 1)
	p.mu.Lock()
	if p.keys == nil {
		p.keys = map[string]*localKey{}
	}
	if len(p.keys) > 1024 { // drop idle keys whose pause has passed
		now := time.Now()
		for key, k := range p.keys {
			if k.users == 0 && now.After(k.next) {
				delete(p.keys, key)
			}
		}
	}
	k := p.keys[s.Key]
	if k == nil {
		k = &localKey{slots: make(chan struct{}, limit)}
		p.keys[s.Key] = k
	}
	k.users++
	p.mu.Unlock()
	select {
	case k.slots <- struct{}{}:
	case <-ctx.Done():
		p.done(s.Key, k)
		return nil, ctx.Err()
	}
	l := &localLease{p: p, key: s.Key, k: k}
	if s.Interval > 0 {
		p.mu.Lock()
		now := time.Now()
		at := k.next
		if at.Before(now) {
			at = now
		}
		k.next = at.Add(s.Interval)
		p.mu.Unlock()
		if err := sleep(ctx, time.Until(at)); err != nil {
			l.Release(0)
			return nil, err
		}
	}
	return l, nil
}

// held is how long key is still held for exit, and why.
func (p *LocalPoliteness) held(key, exit string) (time.Duration, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.holds[key+"\x00"+exit]
	if !ok {
		return 0, ""
	}
	d := time.Until(h.until)
	if d <= 0 {
		delete(p.holds, key+"\x00"+exit)
		return 0, ""
	}
	return d, h.reason
}

// Hold implements Politeness.
func (p *LocalPoliteness) Hold(_ context.Context, key, exit string, d time.Duration, reason string) {
	if d <= 0 {
		return
	}
	d = min(d, MaxHold)
	until := time.Now().Add(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holds == nil {
		p.holds = map[string]localHold{}
	}
	// Drop passed holds now and then, so that the map follows live holds.
	if len(p.holds) > 1024 {
		now := time.Now()
		for k, h := range p.holds {
			if h.until.Before(now) {
				delete(p.holds, k)
			}
		}
	}
	if h, ok := p.holds[key+"\x00"+exit]; ok && h.until.After(until) {
		return
	}
	p.holds[key+"\x00"+exit] = localHold{until: until, reason: reason}
}

// done forgets k when nobody uses it any more.
func (p *LocalPoliteness) done(key string, k *localKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k.users--; k.users == 0 && time.Now().After(k.next) {
		delete(p.keys, key)
	}
}

type localLease struct {
	p    *LocalPoliteness
	key  string
	k    *localKey
	once sync.Once
}

func (l *localLease) Release(after time.Duration) {
	l.once.Do(func() {
		free := func() {
			<-l.k.slots
			l.p.done(l.key, l.k)
		}
		if after > 0 {
			time.AfterFunc(after, free)
			return
		}
		free()
	})
}

// Sleep waits d or until ctx ends, whichever is first: nil after d, else
// ctx's error. Politeness implementations wait with it.
func Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// sleep waits d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SharedCache is a small key-value cache the replicas share (Redis), for
// what every replica would otherwise fetch itself (a host's robots.txt). A
// miss is (nil, false, nil); an error means the cache could not answer, and
// the caller goes on without it.
type SharedCache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, val []byte, ttl time.Duration) error
}

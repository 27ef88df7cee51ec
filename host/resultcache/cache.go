package resultcache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// Defaults of [Options].
const (
	DefaultLeaseTTL = 6 * time.Second
	DefaultPoll     = 500 * time.Millisecond
	DefaultGrace    = 2 * time.Second
	// storeTimeout bounds one Store or Leases operation made for a run.
	storeTimeout = 2 * time.Second
)

// Options configure a [Cache].
type Options struct {
	// TTL is how long an answer is kept (RESULT_CACHE_TTL). Zero turns the
	// cache off: every run is private, nothing is looked up or stored.
	TTL time.Duration
	// Store keeps the answers; nil is a new [Memory].
	Store Store
	// Leases share runs between replicas; nil shares them on this replica
	// only.
	Leases Leases
	// Replica names this replica in the lease holders, uniquely among the
	// replicas; "" is a random name.
	Replica string
	// LeaseTTL is how long a lease outlives its holder's last renewal (a
	// replica that died is replaced after at most this); zero is
	// DefaultLeaseTTL. The holder renews it every LeaseTTL/3.
	LeaseTTL time.Duration
	// Poll is how often a replica waiting for another's run looks at the
	// lease, beside the wake-ups of Leases.Watch; zero is DefaultPoll.
	Poll time.Duration
	// Grace is how long a run has to return after its context ended before
	// its members are answered with what it gathered; zero is DefaultGrace.
	Grace time.Duration
	// Logger hears of store faults; nil discards.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Cache shares runs of identical calls and keeps their whole answers.
// Its methods are safe for concurrent use.
type Cache struct {
	o       Options
	mu      sync.Mutex
	flights map[string]*flight // runs in flight here, by key
	seq     atomic.Uint64
}

// New returns a cache with o's settings.
func New(o Options) *Cache {
	if o.Store == nil {
		o.Store = &Memory{}
	}
	if o.Replica == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		o.Replica = "r-" + hex.EncodeToString(b[:])
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Cache{o: o, flights: map[string]*flight{}}
}

// TTL is how long answers are kept; zero when the cache is off.
func (c *Cache) TTL() time.Duration { return c.o.TTL }

// Enabled reports whether the cache stores and shares anything.
func (c *Cache) Enabled() bool { return c.o.TTL > 0 }

// maxAge bounds a caller's max age by the TTL; negative is the TTL.
func (c *Cache) maxAge(maxAge time.Duration) time.Duration {
	if maxAge < 0 || maxAge > c.o.TTL {
		return c.o.TTL
	}
	return maxAge
}

// Lookup returns the stored answer of key when there is one fetched no
// longer than maxAge ago (negative: the TTL; never more than the TTL).
// A store fault is a miss.
func (c *Cache) Lookup(ctx context.Context, key string, maxAge time.Duration) (Entry, bool) {
	limit := c.maxAge(maxAge)
	if key == "" || limit <= 0 {
		return Entry{}, false
	}
	e, ok, err := c.o.Store.Get(ctx, key)
	if err != nil {
		c.o.Logger.Warn("result cache: lookup failed; fetching", "err", err)
		return Entry{}, false
	}
	if !ok || c.o.Now().Sub(e.FetchedAt) > limit {
		return Entry{}, false
	}
	return e, true
}

// Run does a call's work, adding items to call as it goes.
type Run func(ctx context.Context, call *scrapers.Call) error

// Start is what a caller brings to [Cache.Join]: its question and the run
// that answers it, should this caller be the one to start it.
type Start struct {
	// Key is the question; "" is a private run, never shared or stored.
	Key string
	// MaxAge is the oldest answer of another replica's run this caller
	// takes (negative: the TTL); a run in flight when it asked is always
	// fresh enough.
	MaxAge time.Duration
	// Context carries the values the run sees (request id, traces); its
	// cancellation does not reach the run, which belongs to no caller.
	Context context.Context
	// Deadline is the run's, from now; DeadlineCause is the cause its
	// context ends with when it passes.
	Deadline      time.Duration
	DeadlineCause error
	// Run is the work.
	Run Run
	// Progress hears the run's progress reports while this caller waits.
	Progress func(message string, done, total int)
}

// errFinished ends a run's context once its answer is given.
var errFinished = errors.New("the run finished")

// flight is one run of a key on this replica: run here, or waited for while
// another replica runs it.
type flight struct {
	c       *Cache
	key     string
	start   Start // the starter's
	call    *scrapers.Call
	started time.Time
	ctx     context.Context
	cancel  context.CancelCauseFunc
	done    chan struct{}
	endOnce sync.Once
	ran     atomic.Bool // the starter's Run was called here

	// set before done closes
	err, cause error
	entry      *Entry // the answer of another replica's run

	// under c.mu
	members  map[*Member]struct{}
	detached bool // no longer in c.flights: callers start another flight

	// lease, when Leases are set
	holder    string
	leading   atomic.Bool
	orphan    atomic.Pointer[error] // every member here left; remote members wait
	renewStop chan struct{}
}

// Member is one caller waiting for a run.
type Member struct {
	f        *flight
	progress func(message string, done, total int)
	starter  bool
	left     bool // under c.mu
}

// Join makes the caller a member of the run of s.Key on this replica, and
// starts that run (here, or by waiting for another replica's) when there is
// none. The member waits on Done, or leaves early with Leave.
func (c *Cache) Join(s Start) *Member {
	if !c.Enabled() {
		s.Key = ""
	}
	c.mu.Lock()
	if s.Key != "" {
		if f, ok := c.flights[s.Key]; ok {
			m := &Member{f: f, progress: s.Progress}
			f.members[m] = struct{}{}
			c.mu.Unlock()
			return m
		}
	}
	f := c.newFlight(s)
	m := &Member{f: f, progress: s.Progress, starter: true}
	f.members[m] = struct{}{}
	if s.Key != "" {
		c.flights[s.Key] = f
	} else {
		f.detached = true
	}
	c.mu.Unlock()
	go f.lead()
	return m
}

func (c *Cache) newFlight(s Start) *flight {
	base := s.Context
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(base))
	if s.Deadline > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, s.Deadline, s.DeadlineCause)
		_ = stop // released by cancel: the parent's cancel ends it
	}
	f := &flight{c: c, key: s.Key, start: s, started: c.o.Now(), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), members: map[*Member]struct{}{}}
	f.call = scrapers.NewCall(f.progress)
	// A run that does not return within Grace of its context's end is
	// answered without it (it still returns on its own, later).
	context.AfterFunc(ctx, func() {
		select {
		case <-f.done:
			return
		default:
		}
		time.AfterFunc(c.o.Grace, func() { f.end(context.Cause(ctx), false) })
	})
	return f
}

// progress forwards the run's reports to every member waiting.
func (f *flight) progress(message string, done, total int) {
	f.c.mu.Lock()
	fns := make([]func(string, int, int), 0, len(f.members))
	for m := range f.members {
		if m.progress != nil {
			fns = append(fns, m.progress)
		}
	}
	f.c.mu.Unlock()
	for _, fn := range fns {
		fn(message, done, total)
	}
}

// lead runs the flight: here, unless another replica holds the key's
// lease, in which case it waits for that replica's answer and takes the
// lease over when it lapses.
func (f *flight) lead() {
	c := f.c
	if c.o.Leases == nil || f.key == "" {
		f.run()
		return
	}
	f.holder = c.o.Replica + "/" + strconv.FormatUint(c.seq.Add(1), 36)
	notBefore := time.Time{}
	if age := c.maxAge(f.start.MaxAge); age < c.o.TTL {
		notBefore = f.started.Add(-age)
	}
	var watch <-chan struct{}
	var unwatch func()
	waiting := false
	var lastWait time.Time
	defer func() {
		if unwatch != nil {
			unwatch()
		}
		if waiting {
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			_ = c.o.Leases.Done(ctx, f.key, f.holder)
			cancel()
		}
	}()
	for {
		ctx, cancel := context.WithTimeout(f.ctx, storeTimeout)
		e, hit, leased, err := c.o.Leases.Acquire(ctx, f.key, f.holder, c.o.LeaseTTL, notBefore)
		cancel()
		switch {
		case err == nil && hit:
			f.answer(e)
			return
		case err == nil && leased:
			f.leading.Store(true)
			f.renewStop = make(chan struct{})
			f.scheduleRenew()
			f.run() // a cancelled run returns at once, and Finish frees the lease
			return
		case f.ctx.Err() != nil:
			f.end(context.Cause(f.ctx), false)
			return
		case err != nil:
			c.o.Logger.Warn("result cache: the lease could not be taken; running here", "err", err)
			f.run()
			return
		}
		// Another replica runs it. Its answer is fresh enough whatever our
		// max age, as long as it is newer than the one stored now (e, when
		// there is one, which that run will replace).
		if e.FetchedAt.IsZero() {
			notBefore = time.Time{}
		} else {
			notBefore = e.FetchedAt.Add(time.Millisecond)
		}
		if watch == nil {
			watch, unwatch = c.o.Leases.Watch(f.key)
		}
		if !waiting || time.Since(lastWait) > c.o.LeaseTTL/3 {
			ctx, cancel := context.WithTimeout(f.ctx, storeTimeout)
			if err := c.o.Leases.Wait(ctx, f.key, f.holder, c.o.LeaseTTL); err == nil {
				waiting, lastWait = true, time.Now()
			}
			cancel()
		}
		t := time.NewTimer(c.o.Poll)
		select {
		case <-watch:
		case <-t.C:
		case <-f.ctx.Done():
		}
		t.Stop()
	}
}

// run calls the starter's Run here.
func (f *flight) run() {
	f.ran.Store(true)
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the tool failed unexpectedly: %v", r)
			}
		}()
		err = f.start.Run(f.ctx, f.call)
	}()
	f.end(err, true)
}

// answer ends the flight with another replica's stored answer.
func (f *flight) answer(e Entry) {
	f.endOnce.Do(func() {
		f.entry = &e
		f.close()
	})
}

// end gives the run's answer to its members and, when it is whole, stores
// it. returned says the run returned (not its grace lapsing).
func (f *flight) end(runErr error, returned bool) {
	f.endOnce.Do(func() {
		c := f.c
		var cause error
		if f.ctx.Err() != nil {
			cause = context.Cause(f.ctx)
		}
		if !returned {
			runErr = cause
		}
		f.err, f.cause = runErr, cause
		if f.key != "" && f.ran.Load() {
			var stored *Entry
			ttl := c.o.TTL - c.o.Now().Sub(f.started)
			if out := f.call.Snapshot(); Cacheable(out, runErr, cause) && ttl > 0 {
				stored = &Entry{Items: out.Items, Meta: out.Meta, Images: out.Images, FetchedAt: f.started}
			}
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			var err error
			if f.leading.Load() {
				close(f.renewStop)
				err = c.o.Leases.Finish(ctx, f.key, f.holder, stored, ttl)
			} else if stored != nil {
				err = c.o.Store.Put(ctx, f.key, *stored, ttl)
			}
			cancel()
			if err != nil {
				c.o.Logger.Warn("result cache: the answer could not be stored", "err", err)
			}
		}
		f.close()
	})
}

func (f *flight) close() {
	c := f.c
	c.mu.Lock()
	if !f.detached {
		if c.flights[f.key] == f {
			delete(c.flights, f.key)
		}
		f.detached = true
	}
	c.mu.Unlock()
	close(f.done)
	f.cancel(errFinished)
}

// scheduleRenew renews the lease every LeaseTTL/3 while the run goes on,
// and ends an orphaned run once no other replica waits for it.
func (f *flight) scheduleRenew() {
	c := f.c
	var t *time.Timer
	t = time.AfterFunc(c.o.LeaseTTL/3, func() {
		select {
		case <-f.renewStop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		if _, err := c.o.Leases.Renew(ctx, f.key, f.holder, c.o.LeaseTTL); err != nil {
			c.o.Logger.Warn("result cache: the lease could not be renewed", "err", err)
		}
		if cause := f.orphan.Load(); cause != nil {
			if n, err := c.o.Leases.Waiting(ctx, f.key); err != nil || n == 0 {
				f.cancel(*cause)
				return
			}
		}
		t.Reset(c.o.LeaseTTL / 3)
	})
}

// Call is what the run gathered so far (empty while another replica runs
// it).
func (m *Member) Call() *scrapers.Call { return m.f.call }

// Done is closed when the run has answered.
func (m *Member) Done() <-chan struct{} { return m.f.done }

// Result is the run's end, once Done is closed: the error the run returned
// and why its context ended early, if it did; or, when another replica ran
// it, that replica's stored answer (entry non-nil).
func (m *Member) Result() (runErr, cause error, entry *Entry) {
	return m.f.err, m.f.cause, m.f.entry
}

// Ran reports whether this member's own Run did the work, here. A member
// that joined a run, or was answered by another replica's, did none.
func (m *Member) Ran() bool { return m.starter && m.f.ran.Load() }

// Leave stops the member waiting, early. When it was the last member
// waiting for the run anywhere, the run is cancelled with cause, and wait is
// true: Done closes once the run returned (or its grace lapsed). Otherwise
// the run goes on for the others.
func (m *Member) Leave(cause error) (wait bool) {
	f := m.f
	c := f.c
	c.mu.Lock()
	if m.left {
		c.mu.Unlock()
		return false
	}
	m.left = true
	delete(f.members, m)
	n := len(f.members)
	if n == 0 && !f.detached {
		if c.flights[f.key] == f {
			delete(c.flights, f.key)
		}
		f.detached = true
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return false
	default:
	}
	if n > 0 {
		return false
	}
	if f.leading.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		w, err := c.o.Leases.Waiting(ctx, f.key)
		cancel()
		if err == nil && w > 0 {
			// Other replicas wait for this run: it goes on, and ends when
			// they have left too (checked as the lease is renewed).
			f.orphan.Store(&cause)
			return false
		}
	}
	f.cancel(cause)
	return true
}

package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/host/ratelimit"
	"github.com/surfsense/pluginhost/host/results"
	"github.com/surfsense/pluginhost/host/usage"
	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/oauthpage"
	"github.com/surfsense/pluginhost/scrapers"
)

// Defaults of [Options].
const (
	DefaultTimeout       = 250 * time.Millisecond
	DefaultResultTimeout = 2 * time.Second
	DefaultPrefix        = "surfsense:ph:"
	DefaultCallTTL       = 15 * time.Second
	DefaultProbeInterval = 500 * time.Millisecond
)

// Options configure a [Store]. The zero value is ready: every field has a
// default.
type Options struct {
	// Timeout bounds every Redis command but those of large results; zero is
	// DefaultTimeout (250 ms).
	Timeout time.Duration
	// ResultTimeout bounds storing or reading one large result, which may be
	// megabytes; zero is DefaultResultTimeout (2 s).
	ResultTimeout time.Duration
	// Prefix starts every key and pub/sub channel; "" is DefaultPrefix
	// ("surfsense:ph:"). Replicas that share state must share the prefix.
	Prefix string
	// ReplicaID names this replica in the call registry; "" is the host
	// name and a random suffix. It must be unique among the replicas.
	ReplicaID string
	// CallTTL is how long a registered call or a concurrency slot outlives
	// the last heartbeat of its replica, so that a replica that dies leaves
	// nothing behind; zero is DefaultCallTTL (15 s).
	CallTTL time.Duration
	// Heartbeat is how often this replica refreshes its registrations;
	// zero is CallTTL/3.
	Heartbeat time.Duration
	// ProbeInterval is how often Redis is pinged, both to notice a fault
	// without traffic and to notice its recovery; zero is
	// DefaultProbeInterval (500 ms).
	ProbeInterval time.Duration
	// Logger receives the transitions between up and degraded (never a
	// license key, never the Redis password); nil is slog.Default().
	Logger *slog.Logger
	// Registerer, when set, receives the gauge redis_up and the counter
	// redis_fallbacks_total{concern} (and usage's series, usage.go). Close
	// unregisters them.
	Registerer prometheus.Registerer
	// UsageFlushInterval is how often usage counts are written to Redis;
	// zero is DefaultUsageFlushInterval (1 s).
	UsageFlushInterval time.Duration
	// UsageMaxEntries bounds the usage counts held while Redis cannot take
	// them; zero is usage.DefaultMaxEntries.
	UsageMaxEntries int
	// TracerProvider, when set, records a span per command made for a
	// traced request (tracing.go); nil traces nothing.
	TracerProvider trace.TracerProvider
}

// Store is one replica's connection to the Redis the replicas share. It
// offers the host's four stores on one client: [Store.Licenses],
// [Store.Calls], [Store.Results] and [Store.Limiter]. Each falls back to its
// in-memory equivalent while Redis is unreachable (see the package
// documentation). Its methods are safe for concurrent use.
type Store struct {
	rdb     *redis.Client
	opts    Options
	replica string
	log     *slog.Logger

	ctx    context.Context // the Store's lifetime
	stop   context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool

	// health
	up      atomic.Bool
	hmu     sync.Mutex
	lastErr string
	since   time.Time
	beatNow chan struct{} // asks the heartbeat loop to run at once

	// in-memory fallbacks
	licMem license.MemoryStore
	calMem calls.Memory
	// this replica's calls by request id, by their member (requests.go)
	reqCalls requestCalls
	resMem   results.Memory
	rlMem    ratelimit.Memory
	polMem   scrapers.LocalPoliteness
	seenMem  oauthpage.MemorySeen

	// this replica's registrations, refreshed by heartbeats
	regMu   sync.Mutex
	regs    map[string]*reg // by member
	pending []removal       // removals that failed, retried by heartbeats

	// cancellers waiting for calls of a key to end
	waitMu  sync.Mutex
	waiters map[calls.Key]map[chan struct{}]struct{}

	subscribed chan struct{} // closed once the cancel channels are subscribed
	subNow     atomic.Bool   // the subscription is live now
	psMu       sync.Mutex
	ps         *redis.PubSub // the current subscription; Close closes it

	rlWindow time.Duration // one minute; tests shorten it

	rcOnce sync.Once
	rc     *ResultCache // the shared result cache (resultcache.go)

	metrics *metrics

	usage        *usage.Buffer
	usageNow     chan struct{} // asks the usage loop to flush at once
	usageMetrics *usageMetrics
}

// reg is one registration of this replica in a sorted set whose scores are
// expiry times: a call (in the thread registry) or a concurrency slot.
type reg struct {
	rkey      string
	member    string
	key       calls.Key // calls only
	cancelled atomic.Bool
}

// removal is a member to delete from a sorted set.
type removal struct{ rkey, member string }

// New connects to the Redis at url (redis://[user:password@]host:port/db or
// rediss:// for TLS) and starts this replica's background work: the probe,
// the heartbeats and the cancel subscription. An unreachable Redis is not an
// error: the Store starts degraded and recovers by itself. A malformed url is
// an error (which never repeats the url, since it may hold a password).
func New(ctx context.Context, url string, opts Options) (*Store, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		msg := err.Error()
		if url != "" {
			msg = strings.ReplaceAll(msg, url, "<REDIS_URL>")
		}
		return nil, fmt.Errorf("redisstore: REDIS_URL must look like redis://[:password@]host:6379/0 or rediss://… (%s)", msg)
	}
	o := opts
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ResultTimeout <= 0 {
		o.ResultTimeout = DefaultResultTimeout
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.CallTTL <= 0 {
		o.CallTTL = DefaultCallTTL
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = o.CallTTL / 3
	}
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = DefaultProbeInterval
	}
	if o.UsageFlushInterval <= 0 {
		o.UsageFlushInterval = DefaultUsageFlushInterval
	}
	if o.ReplicaID == "" {
		h, _ := os.Hostname()
		if h == "" {
			h = "replica"
		}
		o.ReplicaID = h + "-" + randHex(4)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	longest := max(o.Timeout, o.ResultTimeout)
	ro.DialTimeout = o.Timeout
	ro.ReadTimeout = longest
	ro.WriteTimeout = longest
	ro.PoolTimeout = o.Timeout
	if ro.PoolSize == 0 { // unless the URL says (?pool_size=)
		ro.PoolSize = 64 // calls in flight each make a few short commands
	}
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = 1
	ro.MinRetryBackoff = time.Millisecond
	ro.MaxRetryBackoff = 10 * time.Millisecond
	ro.DisableIdentity = true // CLIENT SETINFO is unknown to some managed Redis

	s := &Store{
		rdb:        redis.NewClient(ro),
		opts:       o,
		replica:    o.ReplicaID,
		log:        log.With("component", "redis"),
		beatNow:    make(chan struct{}, 1),
		regs:       map[string]*reg{},
		waiters:    map[calls.Key]map[chan struct{}]struct{}{},
		subscribed: make(chan struct{}),
		rlWindow:   time.Minute,
		since:      time.Now(),
		usageNow:   make(chan struct{}, 1),
	}
	s.usage = usage.NewBuffer(usageSink{s}, o.UsageMaxEntries, 0)
	if o.TracerProvider != nil {
		s.rdb.AddHook(newTracingHook(o.TracerProvider))
	}
	if o.Registerer != nil {
		m, err := newMetrics(o.Registerer, s)
		if err != nil {
			_ = s.rdb.Close()
			return nil, err
		}
		s.metrics = m
		um, err := newUsageMetrics(o.Registerer, s.usage)
		if err != nil {
			m.unregister()
			_ = s.rdb.Close()
			return nil, err
		}
		s.usageMetrics = um
	}
	s.ctx, s.stop = context.WithCancel(context.Background())

	// First contact, bounded by Timeout: up or degraded from the start.
	pctx, cancel := context.WithTimeout(ctx, o.Timeout)
	err = s.rdb.Ping(pctx).Err()
	cancel()
	if err != nil {
		s.lastErr = err.Error()
		s.log.Warn("redis unreachable at start: working from this replica's memory until it answers (rate limits and each site's politeness are per replica meanwhile)", "error", err.Error())
	} else {
		s.up.Store(true)
	}

	s.wg.Add(4)
	go s.every(s.opts.UsageFlushInterval, s.usageNow, s.flushUsage)
	go s.every(s.opts.ProbeInterval, nil, s.probe)
	go s.every(s.opts.Heartbeat, s.beatNow, s.heartbeat)
	go s.subscribeLoop()

	if s.up.Load() {
		// Wait briefly for the cancel subscription, so that a cancel sent by
		// another replica right after New reaches this one.
		select {
		case <-s.subscribed:
		case <-time.After(4 * o.Timeout):
		case <-ctx.Done():
		}
	}
	return s, nil
}

// Licenses is the license verdict store shared by the replicas.
func (s *Store) Licenses() license.Store { return licenseStore{s} }

// Calls is the thread registry with cancel fan-out to every replica.
func (s *Store) Calls() calls.Registry { return registry{s} }

// Results is the store of large results shared by the replicas.
func (s *Store) Results() results.Store { return resultStore{s} }

// Limiter is the rate and concurrency limiter shared by the replicas.
func (s *Store) Limiter() ratelimit.Limiter { return limiter{s} }

// ReplicaID is this replica's name in the call registry.
func (s *Store) ReplicaID() string { return s.replica }

// Close stops the background work, closes the connection and unregisters the
// metrics. Registrations of calls still in flight expire after CallTTL.
// Close is idempotent.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.stop()
	s.psMu.Lock()
	if s.ps != nil {
		_ = s.ps.Close() // ends a receive in progress
	}
	s.psMu.Unlock()
	s.wg.Wait()
	s.flushUsageAtClose()
	if s.metrics != nil {
		s.metrics.unregister()
		s.usageMetrics.unregister()
	}
	return s.rdb.Close()
}

// Health is the state of Redis as this replica sees it.
type Health struct {
	Up         bool      // the last command or probe succeeded
	Subscribed bool      // cancels from other replicas reach this one
	LastError  string    // the last error from Redis, "" when none yet
	Since      time.Time // when Up last changed
}

// OK reports whether Redis answers and the cancel channel is subscribed.
func (h Health) OK() bool { return h.Up && h.Subscribed }

// Status is "ok" or "degraded", the words /readyz uses.
func (h Health) Status() string {
	if h.OK() {
		return "ok"
	}
	return "degraded"
}

// Health reports whether Redis answers. While it does not, every concern
// works from this replica's memory.
func (s *Store) Health() Health {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	return Health{Up: s.up.Load(), Subscribed: s.subNow.Load(), LastError: s.lastErr, Since: s.since}
}

// errDegraded is returned, wrapped, by commands skipped while Redis is
// known to be unreachable.
var errDegraded = errors.New("redis is unreachable; working from this replica's memory")

// do runs fn with a deadline of d, unless Redis is known to be down, in
// which case it fails at once: a fault costs one timeout, not one per call.
// redis.Nil passes through. An error caused by ctx ending is the caller's,
// and leaves the health alone.
func (s *Store) do(ctx context.Context, d time.Duration, fn func(context.Context) error) error {
	if !s.up.Load() {
		return errDegraded
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := fn(cctx)
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isFault(err) {
		s.setDown(err)
	}
	return err
}

// isFault tells errors that mean Redis cannot serve (network, timeouts,
// loading, read-only) from answers to a bad command and from this replica's
// own pool being busy (which falls back for one command but says nothing of
// Redis). A full Redis (OOM: maxmemory with noeviction) is no fault: it
// still answers reads, so only the write it refused falls back.
func isFault(err error) bool {
	if errors.Is(err, redis.ErrPoolTimeout) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		for _, p := range []string{"LOADING", "READONLY", "MASTERDOWN", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "NOAUTH", "WRONGPASS", "NOPERM", "ERR max number of clients"} {
			if strings.HasPrefix(re.Error(), p) {
				return true
			}
		}
		return false
	}
	return true
}

func (s *Store) setDown(err error) {
	s.hmu.Lock()
	s.lastErr = err.Error()
	changed := s.up.CompareAndSwap(true, false)
	if changed {
		s.since = time.Now()
	}
	s.hmu.Unlock()
	if changed {
		s.log.Warn("redis unreachable: working from this replica's memory until it answers (rate limits and each site's politeness are per replica meanwhile)", "error", err.Error())
	}
}

func (s *Store) setUp() {
	s.hmu.Lock()
	changed := s.up.CompareAndSwap(false, true)
	if changed {
		s.since = time.Now()
	}
	s.hmu.Unlock()
	if changed {
		s.log.Info("redis answers: state is shared with the other replicas again")
		select { // re-register this replica's calls and slots at once
		case s.beatNow <- struct{}{}:
		default:
		}
		select { // and write the usage counted meanwhile
		case s.usageNow <- struct{}{}:
		default:
		}
	}
}

// fallback counts one use of the in-memory equivalent of concern.
func (s *Store) fallback(concern string) {
	if s.metrics != nil {
		s.metrics.fallbacks.WithLabelValues(concern).Inc()
	}
}

// every runs work every interval, and at once when now fires (Redis
// answering again after a fault; nil never fires), until the store closes.
// The store's loops (probe, heartbeat, usage flush) are each one of these.
func (s *Store) every(interval time.Duration, now <-chan struct{}, work func()) {
	defer s.wg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		case <-now:
		}
		work()
	}
}

// probe pings Redis (every ProbeInterval). A failed ping marks it down, a
// good one marks it up again.
func (s *Store) probe() {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.Timeout)
	err := s.rdb.Ping(ctx).Err()
	cancel()
	if s.ctx.Err() != nil {
		return // closing: the failed ping says nothing of Redis
	}
	if err != nil {
		s.setDown(err)
	} else {
		s.setUp()
	}
}

func (s *Store) key(parts ...string) string {
	return s.opts.Prefix + strings.Join(parts, ":")
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sleep waits d or until the Store closes; it reports whether it is still
// open.
func (s *Store) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

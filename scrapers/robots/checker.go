package robots

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// DefaultAgent is the product token the crawler looks for in User-agent
// lines.
const DefaultAgent = "SurfSense"

// Defaults for the zero values of Config.
const (
	DefaultTTL            = 24 * time.Hour   // RFC 9309 2.4: a file is kept no longer than this
	DefaultUnavailableTTL = 5 * time.Minute  // a 5xx or unreachable file is asked again after this
	DefaultMaxBytes       = 500 << 10        // RFC 9309 2.5: at least 500 KiB is parsed
	DefaultMaxCrawlDelay  = 10 * time.Second // longer Crawl-delays are honoured only this far
	DefaultFetchTimeout   = 30 * time.Second // one fetch of robots.txt, redirects included
	DefaultMaxMemoryBytes = 64 << 20         // the process's own copies, all origins together
	DefaultCacheTimeout   = 2 * time.Second  // one Get or Set on the fleet cache
)

// maxRedirects is how many redirects are followed for robots.txt (RFC 9309
// 2.3.1.2: at least five).
const maxRedirects = 5

var errTooManyRedirects = errors.New("more than 5 redirects")

// Cache is the fleet's shared cache (the host adapts Redis to it). Get's ok
// is false for a missing key. Errors are not fatal: the Checker fetches
// robots.txt itself and goes on. Each call gets CacheTimeout. Replicas
// that miss the same origin at the same moment may each fetch it unless
// the Cache is also a Leaser; after that, the fleet shares one copy per
// TTL.
type Cache interface {
	Get(ctx context.Context, key string) (val []byte, ok bool, err error)
	Set(ctx context.Context, key string, val []byte, ttl time.Duration) error
}

// Config sets up a Checker; the zero value of each field takes its default.
type Config struct {
	// Agent is the product token whose group applies, else '*'
	// (DefaultAgent).
	Agent string
	// Client fetches robots.txt: the crawler's own guarded client, whose
	// transport and redirect checks are kept; at most 5 redirects are
	// followed on top of them. nil: a plain client.
	Client *http.Client
	// UserAgent is the User-Agent header sent ("" leaves the client's).
	UserAgent string
	// Cache shares fetched files across replicas; nil keeps them in this
	// process only.
	Cache Cache
	// TTL is how long a file that was read (or a 4xx) is kept (24 h).
	TTL time.Duration
	// UnavailableTTL is how long a 5xx, 429 or unreachable verdict is
	// kept before robots.txt is asked again (5 minutes).
	UnavailableTTL time.Duration
	// MaxBytes is how much of robots.txt is read (500 KiB).
	MaxBytes int64
	// MaxCrawlDelay bounds the Crawl-delay honoured (10 s).
	MaxCrawlDelay time.Duration
	// FetchTimeout bounds one fetch of robots.txt (30 s).
	FetchTimeout time.Duration
	// CacheTimeout bounds one Get or Set on Cache (2 s): a slow cache
	// costs at most that, then robots.txt is fetched as if it were absent.
	CacheTimeout time.Duration
	// MaxMemoryBytes bounds the copies this process keeps (64 MiB); the
	// least recently used origins are dropped first.
	MaxMemoryBytes int64
	// Ignore sets robots.txt aside (ROBOTS_TXT=ignore): every URL is
	// allowed and nothing is fetched by Check.
	Ignore bool
	// Observe, when set, is told of each robots.txt the Checker takes in,
	// from the site or the fleet cache (not of the copies it already
	// keeps): for logs and counters. It must not block.
	Observe func(Event)
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Event is one robots.txt taken in, for Config.Observe.
type Event struct {
	Origin   string        // such as "https://example.com"
	Source   string        // "site" (fetched now) or "cache" (the fleet's copy)
	Outcome  string        // "rules", "allow-all" (4xx, too many redirects) or "unreachable"
	Note     string        // why, or a bound hit: "HTTP 503", "read only its first 512000 bytes (the limit)"
	Duration time.Duration // the fetch's, for Source "site"
}

// Checker answers whether URLs may be fetched. It is safe for concurrent
// use.
type Checker struct {
	cfg    Config
	client *http.Client
	flight singleflight.Group

	mu       sync.Mutex
	mem      map[string]*list.Element // origin -> *memEntry in lru
	lru      *list.List               // front: most recently used
	memBytes int64
}

type memEntry struct {
	origin string
	e      *entry
	size   int64
}

// New returns a Checker for cfg.
func New(cfg Config) *Checker {
	if cfg.Agent == "" {
		cfg.Agent = DefaultAgent
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.UnavailableTTL <= 0 {
		cfg.UnavailableTTL = DefaultUnavailableTTL
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxCrawlDelay <= 0 {
		cfg.MaxCrawlDelay = DefaultMaxCrawlDelay
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.CacheTimeout <= 0 {
		cfg.CacheTimeout = DefaultCacheTimeout
	}
	if cfg.MaxMemoryBytes <= 0 {
		cfg.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	base := cfg.Client
	if base == nil {
		base = &http.Client{}
	}
	cl := *base
	next := base.CheckRedirect
	cl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return errTooManyRedirects
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &Checker{cfg: cfg, client: &cl, mem: map[string]*list.Element{}, lru: list.New()}
}

// Verdict is the answer for one URL.
type Verdict struct {
	// Allowed is true when the URL may be fetched.
	Allowed bool
	// Err says why not: a *DisallowedError ("robots.txt of <host>
	// disallows <path>"), a *ContentSignalError, an *UnreachableError, or
	// the URL's or the caller's context's own error.
	Err error
	// CrawlDelay is the pause to keep between fetches from the host:
	// robots.txt's Crawl-delay, at most MaxCrawlDelay.
	CrawlDelay time.Duration
	// CrawlDelayAsked is the Crawl-delay robots.txt asked for when it is
	// over MaxCrawlDelay (and so not fully honoured); 0 otherwise.
	CrawlDelayAsked time.Duration
	// Sitemaps are the Sitemap URLs robots.txt names. Shared: read only.
	Sitemaps []string
	// Host is the URL's host (and port, when not the scheme's default), as
	// the messages name it.
	Host string
}

// Note says in a sentence what the verdict asks of the crawler beyond
// Allowed: the Crawl-delay bound when it was hit; "" when there is nothing.
func (v Verdict) Note() string {
	if v.CrawlDelayAsked > 0 {
		return fmt.Sprintf("robots.txt of %s asks for a Crawl-delay of %s; %s (the bound) is kept between its pages",
			v.Host, v.CrawlDelayAsked, v.CrawlDelay)
	}
	return ""
}

// Check says whether u may be fetched, fetching robots.txt of u's origin
// (scheme, host and port) when it is not kept: at most one fetch at a time
// per origin in the process, and at most one per TTL for the fleet when
// there is a Cache.
func (c *Checker) Check(ctx context.Context, u *url.URL) Verdict {
	origin, host, path, err := split(u)
	if err != nil {
		return Verdict{Err: err}
	}
	if c.cfg.Ignore || path == "/robots.txt" {
		return Verdict{Allowed: true, Host: host}
	}
	e, err := c.entry(ctx, origin)
	if err != nil {
		return Verdict{Err: err, Host: host}
	}
	switch e.kind {
	case kindUnreachable:
		return Verdict{Err: &UnreachableError{Host: host, Cause: e.note}, Host: host}
	case kindAllowAll:
		return Verdict{Allowed: true, Host: host}
	}
	v := Verdict{Allowed: true, Sitemaps: slices.Clip(e.sitemap), Host: host}
	if d, ok := e.group.CrawlDelay(); ok {
		v.CrawlDelay = d
		if d > c.cfg.MaxCrawlDelay {
			v.CrawlDelay, v.CrawlDelayAsked = c.cfg.MaxCrawlDelay, d
		}
	}
	if ok, rule := e.group.Test(path); !ok {
		v.Allowed, v.Err = false, &DisallowedError{Host: host, Path: path, Rule: rule}
		return v
	}
	if val, ok := e.group.Signal(path, "ai-input"); ok && val == "no" {
		v.Allowed, v.Err = false, &ContentSignalError{Host: host, Path: path, Signal: "ai-input=no"}
	}
	return v
}

// Sitemaps returns the Sitemap URLs named by robots.txt of u's origin. It
// reads robots.txt even when Ignore is set (the sitemaps help find pages;
// they refuse nothing). An unreachable robots.txt is an error; a missing
// one (4xx) names none.
func (c *Checker) Sitemaps(ctx context.Context, u *url.URL) ([]string, error) {
	origin, host, _, err := split(u)
	if err != nil {
		return nil, err
	}
	e, err := c.entry(ctx, origin)
	if err != nil {
		return nil, err
	}
	if e.kind == kindUnreachable {
		return nil, &UnreachableError{Host: host, Cause: e.note}
	}
	return slices.Clone(e.sitemap), nil
}

// split returns u's origin (lower-case scheme and host, the port only when
// not the scheme's default), its host as users know it, and the path and
// query robots.txt rules are matched against.
func split(u *url.URL) (origin, host, path string, err error) {
	if u == nil {
		return "", "", "", errors.New("robots.txt: no URL to check")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", "", "", fmt.Errorf("robots.txt covers http and https URLs; %q is neither", u.Redacted())
	}
	hostname := strings.ToLower(u.Hostname())
	if hostname == "" {
		return "", "", "", fmt.Errorf("%q has no host to read robots.txt from", u.Redacted())
	}
	host = hostname
	if strings.Contains(hostname, ":") {
		host = "[" + hostname + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		path += "?" + u.RawQuery
	}
	return scheme + "://" + host, host, path, nil
}

// expires is when e is to be asked for again.
func (c *Checker) expires(e *entry) time.Time {
	if e.kind == kindUnreachable {
		return e.fetched.Add(c.cfg.UnavailableTTL)
	}
	return e.fetched.Add(c.cfg.TTL)
}

// cacheKey names origin's entry in the fleet cache; the agent is part of
// it, since only the agent's group is kept.
func (c *Checker) cacheKey(origin string) string {
	return "robots:v1:" + strings.ToLower(c.cfg.Agent) + ":" + origin
}

// entry returns origin's robots.txt, from this process, the fleet cache or
// the site, one fetch at a time per origin. The fetch goes on for the
// others if ctx ends; this call then returns ctx's error.
func (c *Checker) entry(ctx context.Context, origin string) (*entry, error) {
	if e := c.fromMemory(origin); e != nil {
		return e, nil
	}
	detached := context.WithoutCancel(ctx)
	ch := c.flight.DoChan(origin, func() (any, error) {
		return c.load(detached, origin), nil
	})
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("robots.txt of %s: %w", strings.SplitN(origin, "://", 2)[1], context.Cause(ctx))
	case r := <-ch:
		return r.Val.(*entry), nil
	}
}

// load finds origin's entry in the fleet cache or fetches it, and keeps it.
func (c *Checker) load(ctx context.Context, origin string) *entry {
	if e := c.fromMemory(origin); e != nil {
		return e
	}
	key := c.cacheKey(origin)
	if e := c.fromCache(ctx, origin, key); e != nil {
		return e
	}
	if l, ok := c.cfg.Cache.(Leaser); ok {
		if e := c.awaitLease(ctx, l, origin, key); e != nil {
			return e
		}
	}
	fctx, cancel := context.WithTimeout(ctx, c.cfg.FetchTimeout)
	start := time.Now()
	e := c.fetch(fctx, origin)
	took := time.Since(start)
	cancel()
	c.observe(Event{Origin: origin, Source: "site", Outcome: kindNames[e.kind], Note: e.note, Duration: took})
	if c.cfg.Cache != nil {
		if ttl := c.expires(e).Sub(c.cfg.Now()); ttl > 0 {
			cctx, cancel := context.WithTimeout(ctx, c.cfg.CacheTimeout)
			_ = c.cfg.Cache.Set(cctx, key, encode(e), ttl)
			cancel()
		}
	}
	c.remember(origin, e)
	return e
}

// fromCache returns origin's entry from the fleet cache while it is fresh,
// keeping it in the process; nil when there is none (or no cache).
func (c *Checker) fromCache(ctx context.Context, origin, key string) *entry {
	if c.cfg.Cache == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.cfg.CacheTimeout)
	v, ok, err := c.cfg.Cache.Get(cctx, key)
	cancel()
	if err != nil || !ok {
		return nil
	}
	e, ok := decode(v, c.cfg.Agent)
	if !ok {
		return nil
	}
	now := c.cfg.Now()
	if e.fetched.After(now) {
		e.fetched = now // another replica's clock is ahead: keep it no longer than a TTL from now
	}
	if !now.Before(c.expires(e)) {
		return nil
	}
	c.remember(origin, e)
	c.observe(Event{Origin: origin, Source: "cache", Outcome: kindNames[e.kind], Note: e.note})
	return e
}

// Leaser is what a Cache may also do so that the fleet fetches each
// robots.txt once, not once per replica that misses it at the same moment:
// set key only when it is absent (Redis's SET NX PX), saying whether it
// did. The replica that takes the lease fetches; the others read the
// cache until the entry appears or the lease runs out, then fetch
// themselves.
type Leaser interface {
	SetIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
}

// leasePoll is how often a replica waiting on another's fetch reads the
// fleet cache.
const leasePoll = 100 * time.Millisecond

// awaitLease takes the fleet's lease on fetching origin's robots.txt and
// returns nil for this replica to fetch, or waits for the replica holding
// it and returns what it stored. The lease lasts as long as one fetch may.
func (c *Checker) awaitLease(ctx context.Context, l Leaser, origin, key string) *entry {
	lease := c.cfg.FetchTimeout + c.cfg.CacheTimeout
	cctx, cancel := context.WithTimeout(ctx, c.cfg.CacheTimeout)
	took, err := l.SetIfAbsent(cctx, key+":fetching", []byte("1"), lease)
	cancel()
	if err != nil || took {
		return nil
	}
	deadline := time.Now().Add(lease)
	t := time.NewTicker(leasePoll)
	defer t.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if e := c.fromCache(ctx, origin, key); e != nil {
			return e
		}
	}
	return nil
}

func (c *Checker) observe(ev Event) {
	if c.cfg.Observe != nil {
		c.cfg.Observe(ev)
	}
}

// fromMemory returns origin's entry kept in this process while it is fresh.
func (c *Checker) fromMemory(origin string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.mem[origin]
	if !ok {
		return nil
	}
	m := el.Value.(*memEntry)
	if !c.cfg.Now().Before(c.expires(m.e)) {
		c.drop(el)
		return nil
	}
	c.lru.MoveToFront(el)
	return m.e
}

// remember keeps e for origin, dropping the least recently used origins
// past MaxMemoryBytes.
func (c *Checker) remember(origin string, e *entry) {
	size := int64(len(e.text) + len(e.note) + len(origin) + 256)
	for _, s := range e.sitemap {
		size += int64(len(s))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.mem[origin]; ok {
		c.drop(el)
	}
	c.mem[origin] = c.lru.PushFront(&memEntry{origin: origin, e: e, size: size})
	c.memBytes += size
	for c.memBytes > c.cfg.MaxMemoryBytes && c.lru.Len() > 1 {
		c.drop(c.lru.Back())
	}
}

func (c *Checker) drop(el *list.Element) {
	m := el.Value.(*memEntry)
	c.lru.Remove(el)
	delete(c.mem, m.origin)
	c.memBytes -= m.size
}

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
)

// maxRedirects is how many redirects are followed for robots.txt (RFC 9309
// 2.3.1.2: at least five).
const maxRedirects = 5

var errTooManyRedirects = errors.New("more than 5 redirects")

// Cache is the fleet's shared cache (the host adapts Redis to it). Get's ok
// is false for a missing key. Errors are not fatal: the Checker fetches
// robots.txt itself and goes on.
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
	// MaxMemoryBytes bounds the copies this process keeps (64 MiB); the
	// least recently used origins are dropped first.
	MaxMemoryBytes int64
	// Ignore sets robots.txt aside (ROBOTS_TXT=ignore): every URL is
	// allowed and nothing is fetched by Check.
	Ignore bool
	// Now is the clock (time.Now).
	Now func() time.Time
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
}

// Note says in a sentence what the verdict asks of the crawler beyond
// Allowed: the Crawl-delay bound when it was hit; "" when there is nothing.
func (v Verdict) Note(host string) string {
	if v.CrawlDelayAsked > 0 {
		return fmt.Sprintf("robots.txt of %s asks for a Crawl-delay of %s; %s (the bound) is kept between its pages",
			host, v.CrawlDelayAsked, v.CrawlDelay)
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
		return Verdict{Allowed: true}
	}
	e, err := c.entry(ctx, origin)
	if err != nil {
		return Verdict{Err: err}
	}
	switch e.kind {
	case kindUnreachable:
		return Verdict{Err: &UnreachableError{Host: host, Cause: e.note}}
	case kindAllowAll:
		return Verdict{Allowed: true}
	}
	v := Verdict{Allowed: true, Sitemaps: slices.Clip(e.sitemap)}
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
	ctx, cancel := context.WithTimeout(ctx, c.cfg.FetchTimeout)
	defer cancel()
	key := c.cacheKey(origin)
	if c.cfg.Cache != nil {
		if v, ok, err := c.cfg.Cache.Get(ctx, key); err == nil && ok {
			if e, ok := decode(v, c.cfg.Agent); ok && c.cfg.Now().Before(c.expires(e)) && !e.fetched.After(c.cfg.Now().Add(time.Minute)) {
				c.remember(origin, e)
				return e
			}
		}
	}
	e := c.fetch(ctx, origin)
	if c.cfg.Cache != nil {
		if ttl := c.expires(e).Sub(c.cfg.Now()); ttl > 0 {
			_ = c.cfg.Cache.Set(ctx, key, encode(e), ttl)
		}
	}
	c.remember(origin, e)
	return e
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

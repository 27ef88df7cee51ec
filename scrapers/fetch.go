package scrapers

// The fetching layer: every request a plugin makes goes through a Fetcher, so
// that <ID>_BASE_URL, proxies, retries, politeness, size caps, block
// detection and the SSRF guard hold for all of them. One attempt is one colly
// collector (fetch_colly.go); retries live in retry.go, proxies in proxy.go,
// browser headers in headers.go, the SSRF checks in guard.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// Site describes one site a plugin scrapes. Zero numeric fields take the
// defaults named on each.
type Site struct {
	// ID is the plugin id; <ID>_BASE_URL and <ID>_PROXY_URLS are read from it.
	ID string
	// Name is how errors name the site ("Amazon", "Google").
	Name string
	// Origin is the site's real origin, e.g. https://www.amazon.com.
	Origin string
	// Domains are the registrable domains that belong to the site (amazon.com,
	// amazon.co.jp, …; a leading dot-less suffix like "amazon." matches every
	// TLD). With <ID>_BASE_URL set, a request to any of them goes to the base
	// URL instead, keeping path and query.
	Domains []string
	// Cookies sent with every request (consent cookies).
	Cookies []*http.Cookie
	// Header added to every request after the browser headers.
	Header http.Header
	// DetectBlock looks at every response and says whether it is a block
	// page. Nil detects nothing. A block is tried again through another proxy
	// when the fetcher has more than one, else returned as the *BlockedError.
	DetectBlock func(r *Response) *BlockedError
	// MaxBytes caps a response body (default 8 MiB); a larger one is an error
	// wrapping ErrTooLarge.
	MaxBytes int64
	// MinInterval is the politeness delay between the starts of requests to
	// the site (default none), kept for the process through Env.Politeness,
	// and for every replica together with REDIS_URL.
	MinInterval time.Duration
	// MaxConcurrent caps requests in flight to the site (default 4), kept
	// as MinInterval is.
	MaxConcurrent int
	// MaxAttempts caps the tries of one request, the first included, on 429,
	// 5xx, network errors and blocks (default 3; 1 never retries).
	MaxAttempts int
	// BaseBackoff is the wait before the first retry, doubled for each
	// further one up to 10 s, with jitter (default 500 ms).
	BaseBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the fetcher waits for; a site
	// asking for more gets its answer returned as an error (default 30 s).
	MaxRetryAfter time.Duration
	// Timeout caps one attempt, body included (default 30 s).
	Timeout time.Duration
}

// Request is one upstream request.
type Request struct {
	Method string // GET when empty
	URL    string
	Header http.Header
	Body   []byte
}

// Response is an upstream answer, body read whole (up to the cap).
type Response struct {
	Request    *Request
	URL        *url.URL // the final URL after redirects
	StatusCode int
	Header     http.Header
	Body       []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// ErrTooLarge is wrapped by the error for a response body over Site.MaxBytes.
var ErrTooLarge = errors.New("the response is larger than the size cap")

// Fetcher fetches pages of one site for one plugin. It is safe for concurrent
// use; a plugin makes one at construction and shares it across calls.
type Fetcher struct {
	site    Site
	base    *url.URL // <ID>_BASE_URL, nil when unset
	allow   bool
	maxBody int64
	log     *slog.Logger

	attempts      int
	baseBackoff   time.Duration
	maxRetryAfter time.Duration
	timeout       time.Duration
	polite        Politeness
	blockHold     time.Duration // Env.BlockHold
	slot          Slot          // Key and the limits; Exit is set per attempt
	pages         *PageBudget   // the process's pages in flight (Env.Pages)

	profile     browserProfile // headers for direct requests
	proxies     *proxyPool     // nil when none
	direct      http.RoundTripper
	proxied     http.RoundTripper
	guardedDial func(ctx context.Context, network, addr string) (net.Conn, error)
	proxyDialer *net.Dialer
	lookup      lookupFunc
	upstream    func(context.Context, Upstream) // Env.Upstream; nil reports nothing
}

// NewFetcher makes the fetcher for site from env: <ID>_BASE_URL, then
// <ID>_PROXY_URLS or PROXY_URLS.
func NewFetcher(env Env, site Site) (*Fetcher, error) {
	if site.Name == "" {
		site.Name = site.ID
	}
	f := &Fetcher{
		site:          site,
		allow:         env.AllowPrivateNetworks,
		maxBody:       orDefault(site.MaxBytes, 8<<20),
		log:           env.Log().With("site", site.ID),
		attempts:      orDefault(site.MaxAttempts, defaultMaxAttempts),
		baseBackoff:   orDefault(site.BaseBackoff, defaultBaseBackoff),
		maxRetryAfter: orDefault(site.MaxRetryAfter, defaultMaxRetryAfter),
		timeout:       orDefault(env.PageTimeout, orDefault(site.Timeout, 30*time.Second)),
		polite:        env.Polite(),
		blockHold:     env.BlockHold,
		slot:          Slot{Key: siteKey(site), Limit: orDefault(site.MaxConcurrent, 4), Interval: site.MinInterval},
		pages:         env.PageBudget(),
		upstream:      env.Upstream,
		profile:       randomProfile(),
		lookup:        net.DefaultResolver.LookupNetIP,
	}
	if b := env.Get(EnvName(site.ID, "BASE_URL")); b != "" {
		u, err := url.Parse(b)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
			return nil, fmt.Errorf("%s: %q is not an http(s) origin such as http://127.0.0.1:8080", EnvName(site.ID, "BASE_URL"), redactedURL(b))
		}
		f.base = u
	}
	proxies, err := parseProxies(env, site.ID)
	if err != nil {
		return nil, err
	}
	f.proxies = proxies
	f.guardedDial = netguard.DialContext(f.allow)
	f.proxyDialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	f.direct = f.newTransport(nil, f.guardedDial)
	if proxies != nil {
		f.proxied = f.newTransport(proxyFromContext, f.dialProxy)
	}
	return f, nil
}

// siteKey is the politeness key of a site: the plugin and the site's name,
// so that two fetchers of one site share its limits.
func siteKey(site Site) string {
	return "site:" + site.ID + ":" + strings.ToLower(site.Name)
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// redactedURL drops credentials from a URL for an error message.
func redactedURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		return "…" + raw[i:]
	}
	return raw
}

// Site returns the site the fetcher was made for.
func (f *Fetcher) Site() Site { return f.site }

// Rewrite returns u with the site's base URL applied when u is on one of the
// site's domains (or is relative), keeping path and query.
func (f *Fetcher) Rewrite(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if !u.IsAbs() {
		if f.site.Origin == "" {
			return nil, fmt.Errorf("%q is not an absolute URL", raw)
		}
		origin, err := url.Parse(f.site.Origin)
		if err != nil {
			return nil, err
		}
		u = origin.ResolveReference(u)
	}
	if f.base != nil && f.OnSite(u) {
		u.Scheme, u.Host = f.base.Scheme, f.base.Host
	}
	return u, nil
}

// OnSite reports whether u's host is one of the site's domains.
func (f *Fetcher) OnSite(u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return false
	}
	if f.base != nil && strings.EqualFold(u.Host, f.base.Host) {
		return true
	}
	for _, d := range append([]string{hostOf(f.site.Origin)}, f.site.Domains...) {
		d = strings.ToLower(d)
		if d == "" {
			continue
		}
		if strings.HasSuffix(d, ".") { // "amazon." matches amazon.<any tld>
			if strings.HasPrefix(host, d) || strings.Contains(host, "."+d) {
				return true
			}
			continue
		}
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func hostOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// Get fetches one URL with GET.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (*Response, error) {
	return f.Do(ctx, &Request{URL: rawURL})
}

// PostJSON posts body as JSON.
func (f *Fetcher) PostJSON(ctx context.Context, rawURL string, body any) (*Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return f.Do(ctx, &Request{Method: http.MethodPost, URL: rawURL, Body: b, Header: http.Header{"Content-Type": {"application/json"}}})
}

// Do performs req: the base URL applied, the SSRF guard checked, through the
// next proxy when there are any, politely, retried with backoff on 429, 5xx
// and network errors (honouring Retry-After up to Site.MaxRetryAfter).
//
// A block page is a *BlockedError (the response is still returned), an HTTP
// error status a *SiteError carrying the status (likewise), a network failure
// or an oversized body (wrapping ErrTooLarge) a *SiteError; a forbidden
// address wraps netguard.ErrForbiddenAddress. Once ctx is done no further
// request is sent and the error wraps ctx.Err() and its cause.
func (f *Fetcher) Do(ctx context.Context, req *Request) (*Response, error) {
	if req == nil {
		return nil, errors.New("scrapers: Fetcher.Do needs a Request")
	}
	u, err := f.target(req.URL)
	if err != nil {
		return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	var (
		lastBlock   *BlockedError // the last block met, answered when every exit is then held
		lastBlocked *Response
	)
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return nil, f.stopped(ctx, req.URL)
		}
		px := f.proxies.pick()
		began := time.Now()
		resp, err := f.attempt(ctx, u, req, method, px)
		rep := f.report(ctx, u, method, attempt, px, began, resp, err)
		if ctx.Err() != nil {
			rep.done(OutcomeCancelled, "")
			return nil, f.stopped(ctx, req.URL)
		}
		last := attempt >= f.attempts
		var held *HeldError
		if errors.As(err, &held) {
			// Not sent: the site asked the fleet to wait. Another proxy is
			// another exit, which may not be held.
			rep.done(OutcomeHeld, "")
			if !last && f.proxies.len() > 1 {
				continue
			}
			if lastBlock != nil { // every exit tried blocked: that is the answer
				return lastBlocked, lastBlock
			}
			return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
		}
		if err != nil {
			rep.done(errorOutcome(err), "")
			if last || !retryableError(err) {
				return nil, &SiteError{Site: f.site.Name, URL: req.URL, Err: err}
			}
			if err := f.pause(ctx, u, attempt, px, err.Error(), backoff(f.baseBackoff, attempt)); err != nil {
				return nil, err
			}
			continue
		}
		if f.site.DetectBlock != nil {
			if be := f.site.DetectBlock(resp); be != nil {
				if be.Site == "" {
					be.Site = f.site.Name
				}
				if be.URL == "" {
					be.URL = req.URL
				}
				f.hold(ctx, rep, resp, px, be.Kind)
				rep.done(OutcomeBlocked, be.Kind)
				lastBlock, lastBlocked = be, resp
				if !last && f.proxies.len() > 1 {
					f.log.Info("blocked; trying another proxy", "url", logURL(u), "kind", be.Kind, "attempt", attempt, "proxy", px.label)
					continue
				}
				return resp, be
			}
		}
		if AsksPause(resp.StatusCode) {
			f.hold(ctx, rep, resp, px, "")
		}
		rep.done(statusOutcome(resp.StatusCode), "")
		if !last && retryableStatus(resp.StatusCode) {
			wait := backoff(f.baseBackoff, attempt)
			if ra, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
				if ra > f.maxRetryAfter {
					return resp, &SiteError{Site: f.site.Name, URL: req.URL, Status: resp.StatusCode}
				}
				wait = max(wait, ra)
			}
			if d, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(d) {
				// Waiting would outlast the call: answer now with what came.
				return resp, &SiteError{Site: f.site.Name, URL: req.URL, Status: resp.StatusCode}
			}
			if err := f.pause(ctx, u, attempt, px, http.StatusText(resp.StatusCode), wait); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode >= 400 {
			return resp, &SiteError{Site: f.site.Name, URL: req.URL, Status: resp.StatusCode}
		}
		return resp, nil
	}
}

// hold keeps the site off, for px's exit and for every caller of the fleet,
// after resp: a 429 or 503 for the Retry-After it names (none: no hold); a
// captcha, robot check or rate-limit page (blockKind) for its Retry-After,
// else Env.BlockHold. The attempt's report carries the hold.
func (f *Fetcher) hold(ctx context.Context, rep *attemptReport, resp *Response, px *proxy, blockKind string) {
	d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	reason := fmt.Sprintf("HTTP %d with Retry-After", resp.StatusCode)
	if blockKind != "" {
		// A captcha, a robot check or a rate-limit page says the site saw
		// too much of this exit; a login or consent wall says nothing of
		// the rate, and holds nothing.
		if blockKind != BlockCaptcha && blockKind != BlockRobotCheck && blockKind != BlockRateLimited {
			return
		}
		reason = blockKind
		if !ok || d <= 0 {
			d = f.blockHold
		}
	}
	if d <= 0 {
		return
	}
	d = min(d, MaxHold)
	f.polite.Hold(ctx, f.slot.Key, exitOf(px), d, reason)
	if rep != nil {
		rep.u.Held = d
	}
	f.log.Info("holding the site off for every replica", "exit", exitOf(px), "for", d, "reason", reason)
}

// pause logs a retry and waits before it; the error is the stop when ctx
// ends first.
func (f *Fetcher) pause(ctx context.Context, u *url.URL, attempt int, px *proxy, reason string, wait time.Duration) error {
	args := []any{"url", logURL(u), "attempt", attempt, "reason", reason, "wait", wait}
	if px != nil {
		args = append(args, "proxy", px.label)
	}
	f.log.Info("retrying", args...)
	if sleep(ctx, wait) != nil {
		return f.stopped(ctx, u.String())
	}
	return nil
}

// stopped is the error for a request that ctx ended: it wraps ctx.Err() and,
// when there is one, the cause (ErrCancelled, ErrShuttingDown).
func (f *Fetcher) stopped(ctx context.Context, raw string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, err) {
		return fmt.Errorf("%s: the request for %s was stopped: %w (%w)", f.site.Name, raw, cause, err)
	}
	return fmt.Errorf("%s: the request for %s was stopped: %w", f.site.Name, raw, err)
}

// logURL is a URL as logs show it: no credentials, no query (search terms
// are the user's).
func logURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

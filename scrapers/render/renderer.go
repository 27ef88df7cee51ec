package render

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of one render, as pluginhost_renders_total counts them.
const (
	OutcomeOK        = "ok"        // rendered and quiet
	OutcomeSlow      = "slow"      // taken at its time limit, still loading
	OutcomeRefused   = "refused"   // the page's address was refused by the guard
	OutcomeFailed    = "failed"    // the page could not be loaded (network, HTTP, not a page)
	OutcomeTimeout   = "timeout"   // no page within the time limit
	OutcomeCancelled = "cancelled" // the call ended
	OutcomeCrashed   = "crashed"   // the browser crashed or hung, also on the retry
	OutcomeBusy      = "no_slot"   // the call ended while waiting for a free tab
)

// ErrRefused wraps a render refused because the page's address is forbidden.
var ErrRefused = errors.New("refused by the address guard")

// Renderer renders pages in a pool of tabs of one browser.
type Renderer struct {
	cfg     Config
	g       guard
	sem     chan struct{}
	renders *prometheus.CounterVec

	mu       sync.Mutex
	cur      *browserProc
	starting chan struct{} // closed when the start in progress ends
	gen      int
	restarts int
	lastErr  string
	lastAt   time.Time
	closed   bool

	inFlight atomic.Int32
}

// New builds a Renderer. The browser starts (or is attached) at the first
// render, not here, so a host that never renders never runs one.
func New(cfg Config) (*Renderer, error) {
	if cfg.URL == "" && cfg.Bin == "" {
		return nil, errors.New("no renderer configured: set RENDERER_URL or CHROMIUM_BIN")
	}
	cfg.fill()
	r := &Renderer{cfg: cfg, g: guard{allowPrivate: cfg.AllowPrivate, allowAddrs: cfg.AllowAddrs}, sem: make(chan struct{}, cfg.Concurrency)}
	r.renders = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "pluginhost", Name: "renders_total",
		Help: "Pages rendered in the browser, by plugin and outcome (ok, slow, refused, failed, timeout, cancelled, crashed, no_slot).",
	}, []string{"plugin", "outcome"})
	if cfg.Metrics != nil {
		if err := cfg.Metrics.Register(r.renders); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("registering pluginhost_renders_total: %w", err)
			}
			r.renders = are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return r, nil
}

// Concurrency is the most pages rendered at once.
func (r *Renderer) Concurrency() int { return r.cfg.Concurrency }

// Where names the configured browser for messages: RENDERER_URL=… or CHROMIUM_BIN=….
func (r *Renderer) Where() string {
	if r.cfg.URL != "" {
		return "RENDERER_URL=" + r.cfg.URL
	}
	return "CHROMIUM_BIN=" + r.cfg.Bin
}

// Status is the renderer's readiness: "ok (…)" or "degraded: …".
func (r *Renderer) Status() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	busy := fmt.Sprintf("%d/%d tabs busy", r.inFlight.Load(), r.cfg.Concurrency)
	switch {
	case r.closed:
		return "degraded: closed"
	case r.lastErr != "" && (r.cur == nil || r.lastAt.After(time.Now().Add(-time.Minute))):
		return fmt.Sprintf("degraded: %s (%s; %s)", r.lastErr, r.lastAt.UTC().Format(time.RFC3339), busy)
	case r.cur == nil:
		return fmt.Sprintf("ok (%s, starts at the first render)", r.Where())
	}
	s := fmt.Sprintf("ok (%s, %s, %s", r.cur.product, r.Where(), busy)
	if r.restarts > 0 {
		s += fmt.Sprintf(", restarted %d times", r.restarts)
	}
	return s + ")"
}

// browser returns the current browser, starting one when there is none.
func (r *Renderer) browser(ctx context.Context) (*browserProc, error) {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, errors.New("the renderer is closed")
		}
		if b := r.cur; b != nil && b.ctx.Err() == nil {
			r.mu.Unlock()
			return b, nil
		}
		if r.cur != nil { // died on its own (crash, lost connection)
			r.dropLocked(r.cur, "the browser exited or its connection was lost")
		}
		if wait := r.starting; wait != nil {
			r.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		r.starting = make(chan struct{})
		r.gen++
		gen := r.gen
		r.mu.Unlock()

		b, err := r.start(gen)

		r.mu.Lock()
		close(r.starting)
		r.starting = nil
		if err != nil {
			r.lastErr, r.lastAt = err.Error(), time.Now()
			r.mu.Unlock()
			r.cfg.Logger.Warn("renderer: browser start failed", "err", err)
			return nil, err
		}
		if r.closed {
			r.mu.Unlock()
			go b.stop()
			return nil, errors.New("the renderer is closed")
		}
		r.cur = b
		r.lastErr = ""
		r.mu.Unlock()
		r.cfg.Logger.Info("renderer: browser ready", "browser", b.product, "where", r.Where(), "generation", gen)
		return b, nil
	}
}

// drop retires b (crashed or hung) so that the next render starts anew.
func (r *Renderer) drop(b *browserProc, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(b, why)
}

func (r *Renderer) dropLocked(b *browserProc, why string) {
	if r.cur != b {
		return
	}
	r.cur = nil
	r.restarts++
	r.lastErr, r.lastAt = why+"; a new browser starts at the next render", time.Now()
	r.cfg.Logger.Warn("renderer: browser dropped", "why", why, "generation", b.gen)
	go b.stop()
}

// Close stops the browser. Renders in flight fail.
func (r *Renderer) Close() {
	r.mu.Lock()
	r.closed = true
	b := r.cur
	r.cur = nil
	r.mu.Unlock()
	if b != nil {
		b.stop()
	}
}

// Render renders one page. It waits for a free tab, under ctx. The page's
// time is Config.PageTimeout, cut to leave a moment before ctx's deadline.
func (r *Renderer) Render(ctx context.Context, pageURL string) (*Page, error) {
	return r.RenderWith(ctx, pageURL, Options{})
}

// RenderWith renders one page as Render does, and takes what opts ask
// beside its HTML (a screenshot).
func (r *Renderer) RenderWith(ctx context.Context, pageURL string, opts Options) (*Page, error) {
	if err := checkPageURL(pageURL); err != nil {
		r.count(OutcomeRefused)
		return nil, err
	}
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		r.count(OutcomeBusy)
		return nil, fmt.Errorf("no free tab to render %s before the call ended (%d pages render at once, RENDER_CONCURRENCY): %w", pageURL, r.cfg.Concurrency, context.Cause(ctx))
	}
	r.inFlight.Add(1)
	defer func() { r.inFlight.Add(-1); <-r.sem }()

	var p *Page
	var err error
	for attempt := 1; attempt <= 2; attempt++ {
		var b *browserProc
		b, err = r.browser(ctx)
		if err != nil {
			break
		}
		p, err = r.renderOn(ctx, b, pageURL, opts)
		if err == nil || ctx.Err() != nil || !errors.Is(err, errBrowserGone) {
			break
		}
		// The browser crashed or hung under this page: the next try
		// starts a new one, if there is time for it.
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 3*time.Second {
			break
		}
	}
	r.count(outcomeOf(p, err, ctx))
	return p, err
}

func (r *Renderer) count(outcome string) {
	r.renders.WithLabelValues(r.cfg.Site, outcome).Inc()
}

func outcomeOf(p *Page, err error, ctx context.Context) string {
	switch {
	case err == nil && p != nil && p.Slow:
		return OutcomeSlow
	case err == nil:
		return OutcomeOK
	case ctx.Err() != nil:
		return OutcomeCancelled
	case errors.Is(err, ErrRefused):
		return OutcomeRefused
	case errors.Is(err, errBrowserGone):
		return OutcomeCrashed
	case errors.Is(err, errPageTimeout):
		return OutcomeTimeout
	}
	return OutcomeFailed
}

// checkPageURL refuses what is not a web page's address before the browser
// sees it: file:, data:, javascript:, chrome: and the rest, and credentials.
// The address itself is judged by the proxy when it is dialled.
func checkPageURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: %w: the renderer opens only http and https pages", raw, ErrRefused)
	}
	if u.User != nil {
		return fmt.Errorf("%q: %w: URLs with credentials are not rendered", u.Redacted(), ErrRefused)
	}
	if u.Host == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	return nil
}

package scrapers

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// Outcomes of one upstream attempt, as Upstream reports them: a small fixed
// set, so that metrics labelled with them stay bounded.
const (
	OutcomeOK           = "ok"
	OutcomeBlocked      = "blocked"       // a block page; Upstream.BlockKind says which
	OutcomeClientError  = "4xx"           // an HTTP 4xx other than 429
	OutcomeRateLimited  = "rate_limited"  // HTTP 429
	OutcomeServerError  = "5xx"           // an HTTP 5xx
	OutcomeTimeout      = "timeout"       // the attempt's own timeout
	OutcomeNetwork      = "network_error" // no answer: refused, reset, DNS
	OutcomeGuardRefused = "guard_refused" // the address guard refused the peer
	OutcomeTooLarge     = "too_large"     // the body passed the size cap
	OutcomeCancelled    = "cancelled"     // the call ended (cancel, deadline, client gone)
	OutcomeHeld         = "held"          // not sent: the site (this exit) is held off after a 429, 503 or block
)

// Upstream is one attempt of one upstream request, reported through
// Env.Upstream once its outcome is known. It never holds a URL's credentials
// or query: Host and Path are what may be shown.
type Upstream struct {
	Site       string        // the plugin id the fetcher was made for
	Host       string        // the host asked (after <ID>_BASE_URL)
	Path       string        // the path asked, without the query
	Method     string        // GET, POST, …
	Attempt    int           // 1 for the first try
	ProxyIndex int           // the proxy's place in the list, -1 when direct
	Status     int           // HTTP status, 0 when none came
	Bytes      int64         // body bytes received
	Began      time.Time     // when the attempt started
	Duration   time.Duration // how long it took, body included
	Outcome    string        // one of the Outcome* constants
	BlockKind  string        // for OutcomeBlocked: one of the Block* kinds
	// Held is the hold this answer put on the site (this exit) for every
	// caller: a 429 or 503's Retry-After, or a block's; 0 when none.
	Held time.Duration
}

// attemptReport is an attempt waiting for its outcome.
type attemptReport struct {
	f   *Fetcher
	ctx context.Context
	u   Upstream
}

// report starts the report of one attempt; done sends it, once.
func (f *Fetcher) report(ctx context.Context, u *url.URL, method string, attempt int, px *proxy, began time.Time, resp *Response, err error) *attemptReport {
	if f.upstream == nil {
		return nil
	}
	r := &attemptReport{f: f, ctx: ctx, u: Upstream{
		Site: f.site.ID, Host: u.Host, Path: u.EscapedPath(), Method: method, Attempt: attempt, ProxyIndex: -1,
		Began: began, Duration: time.Since(began),
	}}
	if px != nil {
		r.u.ProxyIndex = px.index
	}
	if resp != nil {
		r.u.Status = resp.StatusCode
		r.u.Bytes = int64(len(resp.Body))
	}
	return r
}

func (r *attemptReport) done(outcome, blockKind string) {
	if r == nil || r.f == nil {
		return
	}
	r.u.Outcome, r.u.BlockKind = outcome, blockKind
	r.f.upstream(r.ctx, r.u)
	r.f = nil
}

func statusOutcome(code int) string {
	switch {
	case code == 429:
		return OutcomeRateLimited
	case code >= 500:
		return OutcomeServerError
	case code >= 400:
		return OutcomeClientError
	}
	return OutcomeOK
}

func errorOutcome(err error) string {
	var ne interface{ Timeout() bool }
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return OutcomeGuardRefused
	case errors.Is(err, ErrTooLarge):
		return OutcomeTooLarge
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return OutcomeTimeout
	}
	return OutcomeNetwork
}

package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
)

// reporting wraps the crawler's transport so that every upstream attempt
// (each redirect hop is one) is reported through Env.Upstream once its
// outcome is known: at the response's end for a response, at once for an
// error. It reports nothing when report is nil.
//
// A 429 or 503 that names a Retry-After holds its host off for every call
// (and, through Politeness from Redis, every replica) for the time asked.
type reporting struct {
	next   http.RoundTripper
	report func(context.Context, scrapers.Upstream)
	polite scrapers.Politeness
}

func (rt *reporting) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt.report == nil {
		resp, err := rt.next.RoundTrip(req)
		if err == nil {
			rt.hold(req, resp)
		}
		return resp, err
	}
	u := scrapers.Upstream{Site: ID, Host: req.URL.Host, Path: req.URL.EscapedPath(), Method: req.Method, Attempt: 1, ProxyIndex: -1, Began: time.Now()}
	resp, err := rt.next.RoundTrip(req)
	if err == nil {
		u.Held = rt.hold(req, resp)
	}
	if err != nil {
		u.Duration = time.Since(u.Began)
		u.Outcome = errorOutcome(req.Context(), err)
		rt.report(req.Context(), u)
		return nil, err
	}
	u.Status = resp.StatusCode
	resp.Body = &countingBody{ReadCloser: resp.Body, ctx: req.Context(), u: u, report: rt.report}
	return resp, nil
}

// hold holds the request's host off when resp asks for a pause (429 or 503
// with Retry-After), and returns the hold.
func (rt *reporting) hold(req *http.Request, resp *http.Response) time.Duration {
	if rt.polite == nil || !scrapers.AsksPause(resp.StatusCode) {
		return 0
	}
	d, ok := scrapers.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok || d <= 0 {
		return 0
	}
	d = min(d, scrapers.MaxHold)
	rt.polite.Hold(req.Context(), hostKey(req.URL), scrapers.ExitDirect, d, fmt.Sprintf("HTTP %d with Retry-After", resp.StatusCode))
	return d
}

// countingBody counts a response's bytes and reports the attempt when closed.
type countingBody struct {
	io.ReadCloser
	ctx      context.Context
	u        scrapers.Upstream
	report   func(context.Context, scrapers.Upstream)
	tooLarge bool
	readErr  error
	once     sync.Once
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.u.Bytes += int64(n)
	if err != nil && err != io.EOF {
		b.readErr = err
	}
	return n, err
}

func (b *countingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() {
		b.u.Duration = time.Since(b.u.Began)
		switch {
		case b.tooLarge:
			b.u.Outcome = scrapers.OutcomeTooLarge
		case b.readErr != nil:
			b.u.Outcome = errorOutcome(b.ctx, b.readErr)
		default:
			b.u.Outcome = statusOutcome(b.u.Status)
		}
		b.report(b.ctx, b.u)
	})
	return err
}

// markTooLarge records, on a reported response, that its body passed the cap.
func markTooLarge(resp *http.Response) {
	if b, ok := resp.Body.(*countingBody); ok {
		b.tooLarge = true
	}
}

func statusOutcome(code int) string {
	switch {
	case code == 429:
		return scrapers.OutcomeRateLimited
	case code >= 500:
		return scrapers.OutcomeServerError
	case code >= 400:
		return scrapers.OutcomeClientError
	}
	return scrapers.OutcomeOK
}

func errorOutcome(ctx context.Context, err error) string {
	var ne interface{ Timeout() bool }
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return scrapers.OutcomeGuardRefused
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return scrapers.OutcomeCancelled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return scrapers.OutcomeTimeout
	}
	return scrapers.OutcomeNetwork
}

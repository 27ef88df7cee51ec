package scrapers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"time"

	"github.com/gocolly/colly/v2"
)

// newTransport is one of the fetcher's two transports: direct (proxy nil,
// the guarded dialer) or proxied. Bodies are capped at the transport, so that
// an oversized page is an error rather than a silently cut one.
func (f *Fetcher) newTransport(proxy func(*http.Request) (*url.URL, error), dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper {
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dial,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: f.timeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}
	return &capTransport{next: tr, max: f.maxBody}
}

// attempt is one try of req at u, through px when it is not nil: a colly
// collector made for this request, its context the call's.
func (f *Fetcher) attempt(ctx context.Context, u *url.URL, req *Request, method string, px *proxy) (*Response, error) {
	slot := f.slot
	slot.Exit = exitOf(px)
	lease, err := f.polite.Acquire(ctx, slot)
	if err != nil {
		return nil, err
	}
	defer lease.Release(0)
	// A place among the process's pages in flight, for a first guess of
	// the body; the body's reading grows it (capBody). It is given back
	// when the attempt ends: the body is the caller's from then on.
	hold, err := f.pages.Acquire(ctx, min(firstPageGuess, f.maxBody))
	if err != nil {
		return nil, err
	}
	defer hold.Release()
	ctx = WithPageHold(ctx, hold)

	tr, profile, actx := f.direct, f.profile, ctx
	if px != nil {
		if err := f.checkProxied(ctx, u); err != nil {
			return nil, err
		}
		tr, profile, actx = f.proxied, px.profile, context.WithValue(ctx, proxyKey{}, px)
	}

	c := colly.NewCollector()
	// Set every setting explicitly: NewCollector also reads COLLY_*
	// variables, which must not change how the host fetches.
	c.UserAgent = profile.userAgent
	c.Headers = nil
	c.MaxDepth, c.MaxRequests = 0, 0
	c.AllowedDomains, c.DisallowedDomains = nil, nil
	c.URLFilters, c.DisallowedURLFilters = nil, nil
	c.AllowURLRevisit = true
	c.MaxBodySize = int(f.maxBody + 1) // the transport's cap reports the overflow
	c.CacheDir = ""
	c.IgnoreRobotsTxt = true
	c.Async = false
	c.ParseHTTPErrorResponse = true
	c.DetectCharset = false
	c.CheckHead = false
	c.TraceHTTP = false
	c.Context = actx
	jar, _ := cookiejar.New(nil)
	c.SetClient(&http.Client{Transport: tr, Jar: jar, Timeout: f.timeout})
	c.SetRedirectHandler(f.checkRedirect(ctx, px != nil))

	var got *colly.Response
	c.OnResponse(func(r *colly.Response) { got = r })

	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	if err := c.Request(method, u.String(), body, nil, f.header(profile, method, req)); err != nil {
		return nil, err
	}
	if got == nil {
		return nil, errors.New("no response came")
	}
	if int64(len(got.Body)) > f.maxBody {
		return nil, tooLarge(f.maxBody)
	}
	final := u
	if got.Request != nil && got.Request.URL != nil {
		final = got.Request.URL
	}
	var h http.Header
	if got.Headers != nil {
		h = *got.Headers
	}
	return &Response{Request: req, URL: final, StatusCode: got.StatusCode, Header: h, Body: got.Body}, nil
}

// header is what one attempt sends: the browser's headers, then the site's,
// then the request's own, and the site's cookies.
func (f *Fetcher) header(p browserProfile, method string, req *Request) http.Header {
	h := p.header(method)
	for k, vs := range f.site.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	for k, vs := range req.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	if len(f.site.Cookies) > 0 {
		r := &http.Request{Header: h}
		for _, c := range f.site.Cookies {
			r.AddCookie(c)
		}
	}
	return h
}

func tooLarge(limit int64) error {
	return fmt.Errorf("the page is larger than %d bytes: %w", limit, ErrTooLarge)
}

// firstPageGuess is what a page holds of the page budget before its body
// says more: a typical page.
const firstPageGuess = 64 << 10

// capTransport fails a response whose body passes max bytes, before reading
// it when Content-Length says so, and grows the attempt's hold on the page
// budget as the body comes (to Content-Length at once when it is known).
type capTransport struct {
	next http.RoundTripper
	max  int64
}

func (t *capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, tooLarge(t.max)
	}
	hold := PageHoldFrom(r.Context())
	if resp.ContentLength > 0 {
		if err := hold.Grow(r.Context(), resp.ContentLength); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	resp.Body = &capBody{ReadCloser: resp.Body, max: t.max, ctx: r.Context(), hold: hold}
	return resp, nil
}

type capBody struct {
	io.ReadCloser
	max, n int64
	ctx    context.Context
	hold   *PageHold // nil: not counted
	held   int64     // what hold was last grown to
}

func (b *capBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n, tooLarge(b.max)
	}
	if b.hold != nil && b.n > b.held {
		// Grown in doublings, so that a page asks the budget a few times.
		b.held = min(max(2*b.held, b.n, firstPageGuess), b.max)
		if gerr := b.hold.Grow(b.ctx, b.held); gerr != nil {
			return n, gerr
		}
	}
	return n, err
}

// CloseIdleConnections closes the fetcher's idle connections (tests, shutdown).
func (f *Fetcher) CloseIdleConnections() {
	for _, rt := range []http.RoundTripper{f.direct, f.proxied} {
		if ct, ok := rt.(*capTransport); ok {
			if tr, ok := ct.next.(*http.Transport); ok {
				tr.CloseIdleConnections()
			}
		}
	}
}

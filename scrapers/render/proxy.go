package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
	"github.com/surfsense/pluginhost/scrapers"
)

// guardHeader marks an answer of the proxy itself (a refusal), so that the
// renderer can tell it from the site's own answer.
const guardHeader = "X-Surfsense-Render-Guard"

// proxy is the forward proxy one render's browser context sends everything
// through: the page, its redirects, subresources, fetch/XHR and WebSockets
// (CONNECT tunnels for https and ws). It dials through the guard, counts
// what passes, and is closed with every tunnel when the render ends, so that
// nothing the page started outlives it.
type proxy struct {
	ctx    context.Context
	g      guard
	limits Limits
	site   string
	report func(context.Context, scrapers.Upstream)

	ln  net.Listener
	srv *http.Server
	tr  *http.Transport
	rp  *httputil.ReverseProxy

	requests atomic.Int64
	bytes    atomic.Int64
	refused  atomic.Int64
	overReqs atomic.Bool
	overSize atomic.Bool

	mu       sync.Mutex
	tunnels  map[net.Conn]struct{}
	refusals map[string]string // host:port → why, the first few
	closed   bool
}

// Limits bound what one page may make the browser do.
type Limits struct {
	MaxRequests int   // requests (and tunnels) per page; more are refused
	MaxBytes    int64 // bytes received from the network per page; then connections are cut
}

// startProxy listens on a loopback port of its own for one render.
func startProxy(ctx context.Context, g guard, lim Limits, site string, report func(context.Context, scrapers.Upstream)) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the renderer's proxy cannot listen: %w", err)
	}
	p := &proxy{ctx: ctx, g: g, limits: lim, site: site, report: report, ln: ln,
		tunnels: map[net.Conn]struct{}{}, refusals: map[string]string{}}
	p.tr = &http.Transport{
		Proxy:                 nil, // the guard judges the real peer
		DialContext:           g.dial,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       10 * time.Second,
		DisableCompression:    true, // the browser asked for its own encodings
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Header.Del("Proxy-Authorization")
			pr.Out.Header.Del("Proxy-Connection")
		},
		Transport:      p.tr,
		FlushInterval:  -1,
		ModifyResponse: p.countResponse,
		ErrorHandler:   p.proxyError,
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the proxy's address, as a browser context's proxyServer.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

// close stops the proxy and cuts every connection and tunnel it holds.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.srv.Close()
	p.tr.CloseIdleConnections()
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.Close()
		return false
	}
	p.tunnels[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.tunnels, c)
	p.mu.Unlock()
	_ = c.Close()
}

// refusal records why host:port was refused (the first few hosts).
func (p *proxy) refusal(hostport string, err error) {
	p.refused.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.refusals[hostport]; !ok && len(p.refusals) < 20 {
		p.refusals[hostport] = err.Error()
	}
}

// refusalFor says why hostport was refused, or "".
func (p *proxy) refusalFor(hostport string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refusals[hostport]
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := p.requests.Add(1); p.limits.MaxRequests > 0 && n > int64(p.limits.MaxRequests) {
		p.overReqs.Store(true)
		refuse(w, http.StatusTooManyRequests, fmt.Sprintf("the page made more than %d requests", p.limits.MaxRequests))
		return
	}
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if r.URL == nil || !r.URL.IsAbs() || r.URL.Scheme != "http" {
		refuse(w, http.StatusBadRequest, "the renderer's proxy forwards absolute http URLs and CONNECT only")
		return
	}
	if err := netguard.CheckURL(r.URL, true); err != nil {
		refuse(w, http.StatusForbidden, err.Error())
		return
	}
	began := time.Now()
	ctx := context.WithValue(r.Context(), beganKey{}, began)
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

type beganKey struct{}

// countResponse caps the bytes of one forwarded answer and reports it.
func (p *proxy) countResponse(resp *http.Response) error {
	req := resp.Request
	began, _ := req.Context().Value(beganKey{}).(time.Time)
	body := &countingBody{rc: resp.Body, p: p}
	body.done = func(n int64, err error) {
		outcome := statusOutcome(resp.StatusCode)
		if err != nil && !errors.Is(err, io.EOF) {
			outcome = scrapers.OutcomeNetwork
			if errors.Is(err, errTooLarge) {
				outcome = scrapers.OutcomeTooLarge
			}
		}
		p.emit(scrapers.Upstream{Host: req.URL.Host, Path: req.URL.EscapedPath(), Method: req.Method, Status: resp.StatusCode,
			Bytes: n, Began: began, Duration: time.Since(began), Outcome: outcome})
	}
	resp.Body = body
	return nil
}

// proxyError answers a request the proxy could not forward.
func (p *proxy) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	began, _ := r.Context().Value(beganKey{}).(time.Time)
	u := scrapers.Upstream{Host: r.URL.Host, Path: r.URL.EscapedPath(), Method: r.Method, Began: began, Duration: time.Since(began), Outcome: errorOutcome(err)}
	if p.ctx.Err() != nil {
		u.Outcome = scrapers.OutcomeCancelled
	}
	p.emit(u)
	if errors.Is(err, netguard.ErrForbiddenAddress) {
		p.refusal(hostPort(r.URL), err)
		refuse(w, http.StatusForbidden, err.Error())
		return
	}
	refuse(w, http.StatusBadGateway, err.Error())
}

// connect opens a tunnel (https, wss, ws) through the guard.
func (p *proxy) connect(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	target := r.Host
	host, port, err := net.SplitHostPort(target)
	if err != nil || host == "" || port == "" {
		refuse(w, http.StatusBadRequest, "CONNECT needs host:port")
		return
	}
	dctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	upstream, err := p.g.dial(dctx, "tcp", target)
	cancel()
	if err != nil {
		u := scrapers.Upstream{Host: target, Method: http.MethodConnect, Began: began, Duration: time.Since(began), Outcome: errorOutcome(err)}
		if p.ctx.Err() != nil {
			u.Outcome = scrapers.OutcomeCancelled
		}
		p.emit(u)
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			p.refusal(target, err)
			refuse(w, http.StatusForbidden, err.Error())
			return
		}
		refuse(w, http.StatusBadGateway, err.Error())
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = upstream.Close()
		refuse(w, http.StatusInternalServerError, "cannot tunnel")
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		_ = upstream.Close()
		return
	}
	if !p.track(client) {
		_ = upstream.Close()
		return
	}
	defer p.untrack(client)
	if !p.track(upstream) {
		return
	}
	defer p.untrack(upstream)
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	var in atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// What the browser sends: buffered bytes first.
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			if _, err := upstream.Write(b); err != nil {
				return
			}
		}
		_, _ = io.Copy(upstream, client)
		if tc, ok := upstream.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	n, err := io.Copy(client, &countingReader{r: upstream, p: p, n: &in})
	_ = client.Close()
	_ = upstream.Close()
	wg.Wait()
	// A tunnel lasts until one side closes it, often the render's end: it
	// did its work when bytes came through it.
	outcome := scrapers.OutcomeOK
	switch {
	case errors.Is(err, errTooLarge):
		outcome = scrapers.OutcomeTooLarge
	case n == 0 && p.ctx.Err() != nil:
		outcome = scrapers.OutcomeCancelled
	}
	p.emit(scrapers.Upstream{Host: target, Method: http.MethodConnect, Bytes: n, Began: began, Duration: time.Since(began), Outcome: outcome})
}

func (p *proxy) emit(u scrapers.Upstream) {
	if p.report == nil {
		return
	}
	u.Site, u.Attempt, u.ProxyIndex = p.site, 1, -1
	p.report(p.ctx, u)
}

// refuse answers with the proxy's own refusal, marked as such.
func refuse(w http.ResponseWriter, status int, why string) {
	w.Header().Set(guardHeader, "refused")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "refused by SurfSense's renderer: "+why+"\n")
}

var errTooLarge = errors.New("the page received more bytes than the renderer allows")

// add counts n bytes received; false once the page is over its budget.
func (p *proxy) add(n int) bool {
	total := p.bytes.Add(int64(n))
	if p.limits.MaxBytes > 0 && total > p.limits.MaxBytes {
		p.overSize.Store(true)
		return false
	}
	return true
}

type countingReader struct {
	r io.Reader
	p *proxy
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	if !c.p.add(n) {
		return n, errTooLarge
	}
	return n, err
}

type countingBody struct {
	rc   io.ReadCloser
	p    *proxy
	n    int64
	err  error
	once sync.Once
	done func(n int64, err error)
}

func (c *countingBody) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.n += int64(n)
	if !c.p.add(n) {
		err = errTooLarge
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *countingBody) Close() error {
	c.once.Do(func() { c.done(c.n, c.err) })
	return c.rc.Close()
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if strings.EqualFold(u.Scheme, "https") {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
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

func errorOutcome(err error) string {
	var ne interface{ Timeout() bool }
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return scrapers.OutcomeGuardRefused
	case errors.Is(err, errTooLarge):
		return scrapers.OutcomeTooLarge
	case errors.Is(err, context.Canceled):
		return scrapers.OutcomeCancelled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return scrapers.OutcomeTimeout
	}
	return scrapers.OutcomeNetwork
}

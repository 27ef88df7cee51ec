package scrapers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"

	whatwg "github.com/nlnwa/whatwg-url/url"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// urlParser is the parser colly sends requests with; the fetcher judges a URL
// in the form it will really be sent in.
var urlParser = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// canonicalURL returns u as a WHATWG URL parser spells it (hosts such as
// 0x7f.1 become 127.0.0.1), so that the SSRF checks see what goes out.
func canonicalURL(u *url.URL) (*url.URL, error) {
	w, err := urlParser.Parse(u.String())
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL", u.Redacted())
	}
	return url.Parse(w.Href(false))
}

// target turns a request's URL into the one to send: the site's base URL
// applied, canonical, and checked by the SSRF guard.
func (f *Fetcher) target(raw string) (*url.URL, error) {
	u, err := f.Rewrite(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL: %w", raw, err)
	}
	if err := netguard.CheckURL(u, f.allow); err != nil {
		return nil, err
	}
	c, err := canonicalURL(u)
	if err != nil {
		return nil, err
	}
	if err := netguard.CheckURL(c, f.allow); err != nil {
		return nil, err
	}
	return c, nil
}

// checkProxied checks a target that a proxy will dial. The guard on our own
// dialer never sees that connection, so the host's addresses are looked up
// and judged here, before anything is sent.
func (f *Fetcher) checkProxied(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if f.allow { // stand-ins: a metadata address written as such is refused
		if a, ok := netguard.ParseHostIP(host); ok {
			return netguard.CheckMetadata(a)
		}
		return nil
	}
	if a, ok := netguard.ParseHostIP(host); ok {
		return netguard.CheckAddr(a)
	}
	addrs, err := f.lookup(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("cannot check %s before sending it through a proxy: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("cannot check %s before sending it through a proxy: no addresses", host)
	}
	for _, a := range addrs {
		if err := netguard.CheckAddr(a); err != nil {
			return fmt.Errorf("%s resolves to %w", host, err)
		}
	}
	return nil
}

// redirectError is a redirect the fetcher refused to follow.
type redirectError struct {
	to  string
	err error
}

func (e *redirectError) Error() string {
	if e.to == "" {
		return e.err.Error()
	}
	return fmt.Sprintf("refused to follow a redirect to %s: %v", e.to, e.err)
}

func (e *redirectError) Unwrap() error { return e.err }

// checkRedirect follows at most 10 redirects, sends redirects to the site's
// domains to its base URL too, and checks every hop like the first.
func (f *Fetcher) checkRedirect(ctx context.Context, viaProxy bool) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return &redirectError{err: errors.New("stopped after 10 redirects")}
		}
		if f.base != nil && f.OnSite(req.URL) && req.URL.Host != f.base.Host {
			req.URL.Scheme, req.URL.Host = f.base.Scheme, f.base.Host
			req.Host = ""
		}
		if err := netguard.CheckURL(req.URL, f.allow); err != nil {
			return &redirectError{to: req.URL.Redacted(), err: err}
		}
		if viaProxy {
			if err := f.checkProxied(ctx, req.URL); err != nil {
				return &redirectError{to: req.URL.Redacted(), err: err}
			}
		}
		return nil
	}
}

// lookupFunc resolves a host name; tests replace net.DefaultResolver's.
type lookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

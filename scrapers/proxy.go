package scrapers

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// proxy is one outgoing proxy from PROXY_URLS or <ID>_PROXY_URLS. Its URL may
// carry credentials, so only label is ever logged or put in an error.
type proxy struct {
	url     *url.URL
	label   string // scheme://host:port, without credentials
	addr    string // host:port the transport dials
	index   int    // its place in the list, from 0
	profile browserProfile
}

// proxyPool rotates a site's proxies round robin. A nil pool means requests
// go direct.
type proxyPool struct {
	list  []*proxy
	next  atomic.Uint64
	addrs map[string]bool
}

var proxyDefaultPorts = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}

// parseProxies reads <ID>_PROXY_URLS, or PROXY_URLS when the site has no list
// of its own: comma-separated http://, https:// or socks5:// URLs, optionally
// with user:password@. A bad entry is named by its place in the list, never
// by its text, since it may hold a password.
func parseProxies(env Env, id string) (*proxyPool, error) {
	name := EnvName(id, "PROXY_URLS")
	raw := env.Get(name)
	if raw == "" {
		name = "PROXY_URLS"
		raw = env.Get(name)
	}
	if raw == "" {
		return nil, nil
	}
	pool := &proxyPool{addrs: map[string]bool{}}
	for i, entry := range strings.Split(raw, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		u, err := url.Parse(entry)
		if err != nil || u.Hostname() == "" || u.Opaque != "" {
			return nil, fmt.Errorf("%s: entry %d is not a proxy URL; write scheme://[user:password@]host:port", name, i+1)
		}
		u.Scheme = strings.ToLower(u.Scheme)
		port, ok := proxyDefaultPorts[u.Scheme]
		if !ok {
			return nil, fmt.Errorf("%s: entry %d has scheme %q; use http, https or socks5", name, i+1, u.Scheme)
		}
		if p := u.Port(); p != "" {
			port = p
		}
		p := &proxy{
			url:     u,
			label:   u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port),
			addr:    net.JoinHostPort(u.Hostname(), port),
			index:   len(pool.list),
			profile: browserProfiles[len(pool.list)%len(browserProfiles)],
		}
		pool.list = append(pool.list, p)
		pool.addrs[p.addr] = true
	}
	if len(pool.list) == 0 {
		return nil, nil
	}
	return pool, nil
}

// pick returns the next proxy, or nil for a nil pool.
func (p *proxyPool) pick() *proxy {
	if p == nil {
		return nil
	}
	n := p.next.Add(1) - 1
	return p.list[n%uint64(len(p.list))]
}

// len is how many proxies the pool holds.
func (p *proxyPool) len() int {
	if p == nil {
		return 0
	}
	return len(p.list)
}

type proxyKey struct{}

// proxyFromContext is the proxied transport's Proxy function: the proxy an
// attempt chose travels in the request's context.
func proxyFromContext(r *http.Request) (*url.URL, error) {
	px, _ := r.Context().Value(proxyKey{}).(*proxy)
	if px == nil {
		return nil, fmt.Errorf("no proxy was chosen for %s", r.URL.Redacted())
	}
	return px.url, nil
}

// dialProxy is the proxied transport's dial function. The only connections
// it makes are to configured proxies, which the operator chose and which may
// live on a private network; anything else goes through the guard.
func (f *Fetcher) dialProxy(ctx context.Context, network, addr string) (net.Conn, error) {
	if f.proxies.addrs[addr] {
		return f.proxyDialer.DialContext(ctx, network, addr)
	}
	return f.guardedDial(ctx, network, addr)
}

// exitOf is the politeness exit of a request through px: ExitDirect, or the
// proxy's place in the list ("proxy-0").
func exitOf(px *proxy) string {
	if px == nil {
		return ExitDirect
	}
	return "proxy-" + strconv.Itoa(px.index)
}

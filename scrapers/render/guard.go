package render

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/surfsense/pluginhost/internal/netguard"
)

// guard is the address guard of the browser's traffic: the fetchers' guard
// (internal/netguard), judged when the proxy dials, on the address really
// dialled, so that no spelling, redirect or DNS answer gets around it.
type guard struct {
	// allowPrivate lifts the guard but for the cloud's metadata addresses
	// (ALLOW_PRIVATE_NETWORKS, stand-ins).
	allowPrivate bool
	// allowAddrs are exact ip:port pairs that may be reached although
	// netguard refuses them (RENDER_ALLOW_ADDRS, tests only). When set, they
	// replace allowPrivate: everything else private stays refused.
	allowAddrs map[netip.AddrPort]bool
}

// check judges one address about to be dialled.
func (g guard) check(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("render guard: cannot judge %q: %w", address, err)
	}
	if len(g.allowAddrs) > 0 {
		if g.allowAddrs[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())] {
			return nil
		}
		return netguard.CheckAddr(ap.Addr())
	}
	if g.allowPrivate {
		return netguard.CheckMetadata(ap.Addr())
	}
	return netguard.CheckAddr(ap.Addr())
}

// dialer dials what the browser asks for, refusing forbidden addresses at
// connect time, for every address a name resolves to.
func (g guard) dialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			return g.check(address)
		},
	}
}

// dial is the guarded dial function.
func (g guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return g.dialer().DialContext(ctx, network, addr)
}

// ParseAllowAddrs reads RENDER_ALLOW_ADDRS: comma-separated ip:port pairs
// ("127.0.0.1:8080,[::1]:8080").
func ParseAllowAddrs(s string) (map[netip.AddrPort]bool, error) {
	out := map[netip.AddrPort]bool{}
	for _, f := range splitList(s) {
		ap, err := netip.ParseAddrPort(f)
		if err != nil {
			return nil, fmt.Errorf("RENDER_ALLOW_ADDRS: %q is not an ip:port pair such as 127.0.0.1:8080 or [::1]:8080", f)
		}
		out[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())] = true
	}
	return out, nil
}

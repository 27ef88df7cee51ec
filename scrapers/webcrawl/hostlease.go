package webcrawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/surfsense/pluginhost/scrapers"
)

// A page's fetch holds a politeness slot of its host (PerHost pages in
// flight, spaced by robots.txt's Crawl-delay). When the page redirects to
// another host, the request that follows goes there: the slot moves with
// it, the first host's given back (its answer is in) before the next
// host's is taken, so that a fetch holds one slot at a time and two
// fetches redirecting each to the other's host never wait on each other.
// Without it, start URLs on many hosts that redirect to one (a shortener,
// example.com to www.example.com) would put many pages in flight there.

// hostLease is the slot a page's fetch holds, moved by its redirects. One
// fetch uses it, on one goroutine: the client asks its redirects one after
// the other, and the slot is given back once the fetch has returned.
type hostLease struct {
	cr    *crawler
	key   string
	lease scrapers.Lease // nil once given back and none taken
}

type hostLeaseKey struct{}

func withHostLease(ctx context.Context, l *hostLease) context.Context {
	return context.WithValue(ctx, hostLeaseKey{}, l)
}

func hostLeaseFrom(ctx context.Context) *hostLease {
	l, _ := ctx.Value(hostLeaseKey{}).(*hostLease)
	return l
}

// move takes u's host's slot for the redirect to u, after giving back the
// one held when it is another host's. crawlDelay is robots.txt's for u's
// host.
func (l *hostLease) move(ctx context.Context, u *url.URL, crawlDelay time.Duration) error {
	key := hostKey(u)
	if key == l.key && l.lease != nil {
		return nil
	}
	if l.lease != nil {
		l.lease.Release(l.cr.s.PerHostDelay)
		l.lease = nil
	}
	lease, err := l.cr.s.Politeness.Acquire(ctx, scrapers.Slot{Key: key, Exit: scrapers.ExitDirect, Limit: l.cr.s.PerHost, Interval: crawlDelay})
	if err != nil {
		if errors.Is(err, scrapers.ErrHeld) {
			return fmt.Errorf("the page redirects to %s, which is not fetched now: %w", u.Redacted(), err)
		}
		return err
	}
	l.key, l.lease = key, lease
	return nil
}

// release gives back the slot held, after the host's pause.
func (l *hostLease) release(after time.Duration) {
	if l.lease != nil {
		l.lease.Release(after)
		l.lease = nil
	}
}

package scrapers

import (
	"context"
	"sync"
	"time"
)

// limiter keeps a fetcher polite to its site: at most cap requests in flight,
// and starts spaced at least interval apart. Waiting ends at once when the
// context does.
type limiter struct {
	slots    chan struct{}
	interval time.Duration

	mu   sync.Mutex
	next time.Time // earliest start of the next request
}

func newLimiter(concurrent int, interval time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, concurrent), interval: interval}
}

// acquire waits for a slot and for the interval; release must be called
// once the request is done.
func (l *limiter) acquire(ctx context.Context) (release func(), err error) {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release = func() { <-l.slots }
	if l.interval <= 0 {
		return release, nil
	}
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	if err := sleep(ctx, time.Until(at)); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// sleep waits d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

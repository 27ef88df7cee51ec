// Package ratelimit limits tool calls per license: a rate per plugin per
// minute, and a number of calls in flight.
package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Limiter decides whether a license may make another call.
type Limiter interface {
	// Allow counts one call of license on plugin against perMinute. When it is
	// over, ok is false and retryAfter says when one will be allowed.
	Allow(ctx context.Context, license, plugin string, perMinute int) (ok bool, retryAfter time.Duration, err error)
	// Acquire takes one of max slots for calls in flight of license; release
	// gives it back. ok is false when all are taken.
	Acquire(ctx context.Context, license string, max int) (release func(), ok bool, err error)
}

// Memory is a Limiter for one process: a sliding one-minute window per
// license and plugin, and a counter of calls in flight. The zero value is ready.
type Memory struct {
	mu       sync.Mutex
	windows  map[string][]time.Time
	inFlight map[string]int
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Memory) Allow(_ context.Context, license, plugin string, perMinute int) (bool, time.Duration, error) {
	if perMinute <= 0 {
		return true, 0, nil
	}
	now := m.now()
	k := license + "\x00" + plugin
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.windows == nil {
		m.windows = map[string][]time.Time{}
	}
	w := m.windows[k]
	cut := 0
	for cut < len(w) && now.Sub(w[cut]) >= time.Minute {
		cut++
	}
	w = w[cut:]
	if len(w) >= perMinute {
		m.windows[k] = w
		return false, w[0].Add(time.Minute).Sub(now), nil
	}
	m.windows[k] = append(w, now)
	return true, 0, nil
}

func (m *Memory) Acquire(_ context.Context, license string, max int) (func(), bool, error) {
	if max <= 0 {
		return func() {}, true, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inFlight == nil {
		m.inFlight = map[string]int{}
	}
	if m.inFlight[license] >= max {
		return nil, false, nil
	}
	m.inFlight[license]++
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.inFlight[license]--; m.inFlight[license] <= 0 {
				delete(m.inFlight, license)
			}
		})
	}, true, nil
}

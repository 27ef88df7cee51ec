package webcrawl

import (
	"context"
	"sync"
)

// gate is a counting semaphore that gives up when the call ends.
type gate chan struct{}

func (g gate) acquire(ctx context.Context) error {
	select {
	case g <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g gate) release() { <-g }

// hostGates bound the pages fetched at once from one host, across all the
// calls of this plugin: each host has its own gate, dropped when idle.
type hostGates struct {
	per   int
	mu    sync.Mutex
	hosts map[string]*hostGate
}

type hostGate struct {
	g     gate
	users int
}

func newHostGates(per int) *hostGates {
	return &hostGates{per: max(per, 1), hosts: map[string]*hostGate{}}
}

// acquire waits for a place for host; release gives it back.
func (h *hostGates) acquire(ctx context.Context, host string) (release func(), err error) {
	h.mu.Lock()
	hg := h.hosts[host]
	if hg == nil {
		hg = &hostGate{g: make(gate, h.per)}
		h.hosts[host] = hg
	}
	hg.users++
	h.mu.Unlock()
	done := func() {
		h.mu.Lock()
		if hg.users--; hg.users == 0 {
			delete(h.hosts, host)
		}
		h.mu.Unlock()
	}
	if err := hg.g.acquire(ctx); err != nil {
		done()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			hg.g.release()
			done()
		})
	}, nil
}

// Package calls keeps the registry of tool calls in flight, keyed by license
// (hash) and thread, so that POST /cancel can end a thread's calls, and by
// license, plugin and request id, so that a client's notifications/cancelled
// ends the call it names.
package calls

import (
	"context"
	"sync"
	"time"
)

// Key names the calls one cancel ends: the same license and thread.
type Key struct {
	License string // license.Hash of the key, never the key
	Thread  string
}

// Registry tracks calls in flight. The in-memory one serves one replica; the
// Redis one fans cancels out to every replica.
type Registry interface {
	// Start registers a call. cancel is invoked (once) when the call's thread
	// is cancelled, on any replica. done must be called when the call ended.
	Start(ctx context.Context, key Key, cancel func()) (done func(), err error)
	// Cancel ends every call of key on every replica and waits until they have
	// ended or wait has passed. It returns how many calls it cancelled and how
	// many of those still ran when it stopped waiting.
	Cancel(ctx context.Context, key Key, wait time.Duration) (cancelled, stillRunning int, err error)
	RequestRegistry
}

// Memory is a Registry for one process. The zero value is ready.
type Memory struct {
	mu       sync.Mutex
	calls    map[Key]map[*entry]struct{}
	requests map[requestKey]map[*requestEntry]struct{}
}

type entry struct {
	cancel func()
	once   sync.Once
	ended  chan struct{}
}

func (m *Memory) Start(_ context.Context, key Key, cancel func()) (func(), error) {
	e := &entry{cancel: cancel, ended: make(chan struct{})}
	m.mu.Lock()
	if m.calls == nil {
		m.calls = map[Key]map[*entry]struct{}{}
	}
	set := m.calls[key]
	if set == nil {
		set = map[*entry]struct{}{}
		m.calls[key] = set
	}
	set[e] = struct{}{}
	m.mu.Unlock()
	var doneOnce sync.Once
	return func() {
		doneOnce.Do(func() {
			m.mu.Lock()
			if set := m.calls[key]; set != nil {
				delete(set, e)
				if len(set) == 0 {
					delete(m.calls, key)
				}
			}
			m.mu.Unlock()
			close(e.ended)
		})
	}, nil
}

// CancelLocal cancels key's calls in this process and returns the channels
// that close when each ended. The Redis registry uses it for its own replica.
func (m *Memory) CancelLocal(key Key) []<-chan struct{} {
	m.mu.Lock()
	var list []*entry
	for e := range m.calls[key] {
		list = append(list, e)
	}
	m.mu.Unlock()
	ends := make([]<-chan struct{}, 0, len(list))
	for _, e := range list {
		e.once.Do(e.cancel)
		ends = append(ends, e.ended)
	}
	return ends
}

// Running is the number of calls of key in flight in this process.
func (m *Memory) Running(key Key) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls[key])
}

func (m *Memory) Cancel(ctx context.Context, key Key, wait time.Duration) (int, int, error) {
	ends := m.CancelLocal(key)
	return len(ends), WaitEnded(ctx, ends, wait), nil
}

// WaitEnded waits until every channel closed, wait passed or ctx ended, and
// returns how many had not closed.
func WaitEnded(ctx context.Context, ends []<-chan struct{}, wait time.Duration) int {
	t := time.NewTimer(wait)
	defer t.Stop()
	for i, ch := range ends {
		select {
		case <-ch:
		case <-t.C:
			return CountOpen(ends[i:])
		case <-ctx.Done():
			return CountOpen(ends[i:])
		}
	}
	return 0
}

// CountOpen is how many of ends have not closed yet.
func CountOpen(ends []<-chan struct{}) int {
	n := 0
	for _, ch := range ends {
		select {
		case <-ch:
		default:
			n++
		}
	}
	return n
}

// Request names one call the way its client does: the license (hash), the
// plugin it was made to, its JSON-RPC request id (canonical JSON text: 7 or
// "abc") and its thread ("" when it carried none). notifications/cancelled
// ends a call by it.
type Request struct {
	License string
	Plugin  string
	ID      string
	Thread  string
}

// RequestRegistry tracks calls by request id so that a client's
// notifications/cancelled, which may reach another replica, ends the call.
// Request ids are the client's own counters: two sessions of one license may
// use the same id at once, so a cancel ends a call only when it is the only
// one that matches.
type RequestRegistry interface {
	// StartRequest registers a call; cancel is invoked (once) when a
	// CancelRequest matches it alone, on any replica. done must be called
	// when the call ended.
	StartRequest(ctx context.Context, req Request, cancel func()) (done func(), err error)
	// CancelRequest ends the call of req.License and req.Plugin with request
	// id req.ID (and thread req.Thread, when set) on whichever replica runs
	// it, when exactly one matches. It returns how many matched: 1 when it
	// cancelled it, 0 when none runs, more when it cancelled none because
	// they cannot be told apart.
	CancelRequest(ctx context.Context, req Request) (matched int, err error)
}

// requestKey is what every call a cancel may match shares.
type requestKey struct{ license, plugin, id string }

type requestEntry struct {
	thread string
	cancel func()
	once   sync.Once
}

func (m *Memory) StartRequest(_ context.Context, req Request, cancel func()) (func(), error) {
	k := requestKey{req.License, req.Plugin, req.ID}
	e := &requestEntry{thread: req.Thread, cancel: cancel}
	m.mu.Lock()
	if m.requests == nil {
		m.requests = map[requestKey]map[*requestEntry]struct{}{}
	}
	set := m.requests[k]
	if set == nil {
		set = map[*requestEntry]struct{}{}
		m.requests[k] = set
	}
	set[e] = struct{}{}
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			if set := m.requests[k]; set != nil {
				delete(set, e)
				if len(set) == 0 {
					delete(m.requests, k)
				}
			}
			m.mu.Unlock()
		})
	}, nil
}

func (m *Memory) CancelRequest(_ context.Context, req Request) (int, error) {
	m.mu.Lock()
	var match []*requestEntry
	for e := range m.requests[requestKey{req.License, req.Plugin, req.ID}] {
		if req.Thread == "" || e.thread == req.Thread {
			match = append(match, e)
		}
	}
	m.mu.Unlock()
	if len(match) == 1 {
		match[0].once.Do(match[0].cancel)
	}
	return len(match), nil
}

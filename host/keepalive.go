package host

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// KeepAliveInterval is the longest a tool call's response goes without
// bytes while the call runs (CONTRACTS.md, "Tool results", Keep-alive: at
// least every 15 s), so that no proxy or ingress with an idle timeout (Azure
// Container Apps cuts idle requests at about 240 s) drops a long call.
var KeepAliveInterval = 10 * time.Second

const ctxKeepAlive ctxKey = 201

// keepAlive is the response writer of one tool call's POST, shared by the
// SDK (which owns it and writes the call's events) and the host (which
// starts the response as soon as the call runs and fills silences). Every
// write and flush holds mu, so that the two never interleave: the SDK writes
// each event in one Write, and the host's SSE comment lines (": …") go
// between events. For a client that takes only JSON the filler is
// whitespace before the one JSON body, which JSON allows.
type keepAlive struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	sse     bool
	started bool      // the status line and headers are out
	closed  bool      // the SDK returned: nothing may be written any more
	last    time.Time // the last write, by either side
	stopped chan struct{}
	once    sync.Once
	timer   *time.Timer // fills silences (tick); a timer, not a goroutine per call
}

func newKeepAlive(w http.ResponseWriter, sse bool) *keepAlive {
	return &keepAlive{w: w, sse: sse, stopped: make(chan struct{})}
}

func keepAliveFrom(ctx context.Context) *keepAlive {
	k, _ := ctx.Value(ctxKeepAlive).(*keepAlive)
	return k
}

func (k *keepAlive) Header() http.Header { return k.w.Header() }

func (k *keepAlive) WriteHeader(status int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started || k.closed {
		return
	}
	k.started = true
	k.w.WriteHeader(status)
}

func (k *keepAlive) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return 0, http.ErrHandlerTimeout
	}
	k.started = true
	k.last = time.Now()
	return k.w.Write(p)
}

func (k *keepAlive) Flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		_ = http.NewResponseController(k.w).Flush()
	}
}

func (k *keepAlive) Unwrap() http.ResponseWriter { return k.w }

// filler is what the host writes to say it is still there.
func (k *keepAlive) filler(first bool) []byte {
	switch {
	case !k.sse:
		return []byte("\n")
	case first:
		return []byte(": the call is running\n\n")
	default:
		return []byte(": still working\n\n")
	}
}

// start sends the response's first bytes now (the SDK set the headers before
// it handed the call to its handler) and keeps the response from going
// silent until stop. Only the first start counts.
func (k *keepAlive) start() {
	k.mu.Lock()
	if !k.closed && !k.started {
		k.started = true
		k.w.WriteHeader(http.StatusOK)
		_, _ = k.w.Write(k.filler(true))
		_ = http.NewResponseController(k.w).Flush()
		k.last = time.Now()
		k.timer = time.AfterFunc(KeepAliveInterval/4, k.tick)
	}
	k.mu.Unlock()
}

// tick fills a silence of three quarters of KeepAliveInterval, and comes
// back every quarter until the call ends.
func (k *keepAlive) tick() {
	select {
	case <-k.stopped:
		return
	default:
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	if time.Since(k.last) >= KeepAliveInterval*3/4 {
		_, _ = k.w.Write(k.filler(false))
		_ = http.NewResponseController(k.w).Flush()
		k.last = time.Now()
	}
	k.timer.Reset(KeepAliveInterval / 4)
}

func (k *keepAlive) stop() {
	k.once.Do(func() {
		close(k.stopped)
		k.mu.Lock()
		if k.timer != nil {
			k.timer.Stop()
		}
		k.mu.Unlock()
	})
}

// close is called when the SDK's handler returned: the writer is dead.
func (k *keepAlive) close() {
	k.stop()
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
}

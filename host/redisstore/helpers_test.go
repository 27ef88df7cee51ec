package redisstore

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/surfsense/pluginhost/host/calls"
	"github.com/surfsense/pluginhost/internal/redistest"
)

// testPrefix keeps each test's keys apart when tests share a REDIS_URL.
func testPrefix() string { return "surfsense:ph:test:" + randHex(6) + ":" }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// replicas opens n Stores on url sharing one prefix, closed when t ends.
func replicas(t testing.TB, url string, n int, o Options) []*Store {
	t.Helper()
	if o.Prefix == "" {
		o.Prefix = testPrefix()
	}
	if o.Timeout == 0 {
		// Generous on a loaded test machine: a slow answer must not look
		// like a fault here. The fault tests set their own.
		o.Timeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = quiet
	}
	out := make([]*Store, n)
	for i := range out {
		oo := o
		oo.ReplicaID = ""
		s, err := New(context.Background(), url, oo)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		out[i] = s
	}
	return out
}

// raw is a plain client to look at what the stores wrote.
func raw(t testing.TB, url string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// slowCall starts a call on reg that runs until cancelled (then takes
// endAfter to end) or forever when endAfter < 0. ended closes when done was
// called.
type slowCall struct {
	cancelled chan struct{}
	ended     chan struct{}
	at        atomic.Int64 // when cancel was invoked, unix ns
}

func startSlow(t testing.TB, r interface {
	Start(context.Context, calls.Key, func()) (func(), error)
}, k calls.Key, endAfter time.Duration) *slowCall {
	t.Helper()
	c := &slowCall{cancelled: make(chan struct{}), ended: make(chan struct{})}
	var once sync.Once
	done, err := r.Start(context.Background(), k, func() {
		once.Do(func() { c.at.Store(time.Now().UnixNano()); close(c.cancelled) })
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	go func() {
		<-c.cancelled
		if endAfter < 0 {
			return
		}
		time.Sleep(endAfter)
		close(c.ended)
		done()
	}()
	return c
}

// freezer is a TCP proxy to a Redis that can stop forwarding (as a network
// partition would: connections stay open, nothing answers).
type freezer struct {
	ln     net.Listener
	target string
	frozen atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func newFreezer(t testing.TB, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target}
	t.Cleanup(func() {
		_ = ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return f
}

func (f *freezer) url() string { return "redis://" + f.ln.Addr().String() + "/0" }

func (f *freezer) serve(c net.Conn) {
	u, err := net.Dial("tcp", f.target)
	if err != nil {
		_ = c.Close()
		return
	}
	f.mu.Lock()
	f.conns = append(f.conns, c, u)
	f.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if err != nil {
				_ = dst.Close()
				return
			}
			for f.frozen.Load() { // hold the bytes: nothing answers
				time.Sleep(5 * time.Millisecond)
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				_ = src.Close()
				return
			}
		}
	}
	go pipe(u, c)
	go pipe(c, u)
}

var _ = redistest.Start

// Package redistest gives tests a real Redis.
//
// [Start] picks, in order: the server named by REDIS_URL; a Redis container
// started with testcontainers-go when a Docker engine answers; a redis-server
// process on a free loopback port. It skips the test, saying why, only when
// none of these is possible (no REDIS_URL, no Docker engine and no
// redis-server binary: `apt-get install -y redis-server` brings one).
//
// [StartProcess] always starts a private redis-server process, which a test
// may [Server.Kill] and [Server.Restart] on the same port to exercise faults.
package redistest

import (
	"errors"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redisproc"
)

// Kinds of [Server].
const (
	KindEnv       = "env"       // REDIS_URL
	KindContainer = "container" // testcontainers-go
	KindProcess   = "process"   // a redis-server child process
)

// Server is a Redis a test can use. Its URL has the form
// redis://host:port/0. Only a server of KindProcess can be killed and
// restarted.
type Server struct {
	URL  string
	Addr string // host:port
	Kind string

	proc *redisproc.Process // KindProcess only
}

// Start returns a Redis for t: REDIS_URL when set, else a container when a
// Docker engine answers, else a redis-server process. Whatever it started is
// stopped when t ends. Tests sharing one REDIS_URL must keep their keys apart
// (a prefix per test).
func Start(t testing.TB) *Server {
	t.Helper()
	if u := os.Getenv("REDIS_URL"); u != "" {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "redis" && pu.Scheme != "rediss") || pu.Host == "" {
			t.Fatalf("redistest: REDIS_URL is not a redis:// or rediss:// URL with a host")
		}
		return &Server{URL: u, Addr: pu.Host, Kind: KindEnv}
	}
	if s := startContainer(t); s != nil {
		return s
	}
	return StartProcess(t)
}

// URL is Start(t).URL.
func URL(t testing.TB) string {
	t.Helper()
	return Start(t).URL
}

// Binary is the path of the redis-server binary, or "" when there is none
// (see redisproc.Binary).
func Binary() string { return redisproc.Binary() }

// StartProcess starts a private redis-server on a free loopback port, with no
// persistence, in a temporary folder, waits until it answers PING, and stops
// it when t ends. It skips t when no redis-server binary exists.
func StartProcess(t testing.TB) *Server {
	t.Helper()
	p, err := redisproc.Start(t.TempDir())
	if errors.Is(err, redisproc.ErrNoBinary) {
		t.Skip("redistest: no Redis for this test: REDIS_URL is unset, no Docker engine answers, and no redis-server binary is installed (apt-get install -y redis-server)")
	}
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(p.Stop)
	return &Server{URL: p.URL, Addr: p.Addr, Kind: KindProcess, proc: p}
}

// Kill stops the redis-server at once (SIGKILL), as a crash would. It fails
// t for a server that is not a process of its own.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if s.Kind != KindProcess {
		t.Fatalf("redistest: Kill needs a server from StartProcess, not %s", s.Kind)
	}
	s.proc.Stop()
}

// Restart starts the redis-server again on the same port, empty (as a Redis
// without persistence comes back), and waits until it answers PING.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.Kind != KindProcess {
		t.Fatalf("redistest: Restart needs a server from StartProcess, not %s", s.Kind)
	}
	s.proc.Stop()
	var err error
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err = s.proc.Launch(); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // the port may linger briefly
	}
	if err != nil {
		t.Fatalf("redistest: restarting redis-server on port %d: %v", s.proc.Port(), err)
	}
}

// Running reports whether the process is up (always true for other kinds).
func (s *Server) Running() bool {
	if s.Kind != KindProcess {
		return true
	}
	return s.proc.Running()
}

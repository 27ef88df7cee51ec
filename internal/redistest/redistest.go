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
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

	mu   sync.Mutex
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has been waited for
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

// Binary is the path of the redis-server binary (REDIS_SERVER_BIN, else
// redis-server on PATH, else /usr/bin/redis-server), or "" when there is none.
func Binary() string {
	if b := os.Getenv("REDIS_SERVER_BIN"); b != "" {
		return b
	}
	if b, err := exec.LookPath("redis-server"); err == nil {
		return b
	}
	for _, b := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server"} {
		if fi, err := os.Stat(b); err == nil && !fi.IsDir() {
			return b
		}
	}
	return ""
}

// StartProcess starts a private redis-server on a free loopback port, with no
// persistence, in a temporary folder, waits until it answers PING, and stops
// it when t ends. It skips t when no redis-server binary exists.
func StartProcess(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("redistest: no Redis for this test: REDIS_URL is unset, no Docker engine answers, and no redis-server binary is installed (apt-get install -y redis-server)")
	}
	s := &Server{Kind: KindProcess, bin: bin, dir: t.TempDir()}
	var lastErr error
	for range 5 { // a free port may be taken between finding and binding it
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: finding a free port: %v", err)
		}
		s.port = port
		if lastErr = s.launch(); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("redistest: starting redis-server: %v", lastErr)
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.URL = "redis://" + s.Addr + "/0"
	t.Cleanup(func() { s.stop() })
	return s
}

// Kill stops the redis-server at once (SIGKILL), as a crash would. It fails
// t for a server that is not a process of its own.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if s.Kind != KindProcess {
		t.Fatalf("redistest: Kill needs a server from StartProcess, not %s", s.Kind)
	}
	s.stop()
}

// Restart starts the redis-server again on the same port, empty (as a Redis
// without persistence comes back), and waits until it answers PING.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.Kind != KindProcess {
		t.Fatalf("redistest: Restart needs a server from StartProcess, not %s", s.Kind)
	}
	s.stop()
	var err error
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err = s.launch(); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // the port may linger briefly
	}
	if err != nil {
		t.Fatalf("redistest: restarting redis-server on port %d: %v", s.port, err)
	}
}

// Running reports whether the process is up (always true for other kinds).
func (s *Server) Running() bool {
	if s.Kind != KindProcess {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

func (s *Server) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	logPath := filepath.Join(s.dir, "redis.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--protected-mode", "yes",
	)
	cmd.Dir = s.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exit) }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err = ping(addr); err == nil {
			break
		}
		select {
		case <-exit:
			return fmt.Errorf("redis-server exited at start: %s", tail(logPath))
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exit
			return fmt.Errorf("redis-server did not answer PING within 10s (%v): %s", err, tail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.cmd, s.exit = cmd, exit
	return nil
}

func (s *Server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exit
	s.cmd, s.exit = nil, nil
}

// ping sends PING on a fresh connection and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return strings.TrimSpace(string(b))
}

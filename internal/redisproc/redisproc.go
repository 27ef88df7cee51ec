// Package redisproc runs a private redis-server process on a free loopback
// port, without persistence: the Redis of the test harness
// (internal/redistest) and of `pluginhost bench`.
package redisproc

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

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

// ErrNoBinary says no redis-server binary is installed.
var ErrNoBinary = errors.New("no redis-server binary is installed (apt-get install -y redis-server)")

// Process is a redis-server child process. Its URL has the form
// redis://127.0.0.1:port/0.
type Process struct {
	URL  string
	Addr string // 127.0.0.1:port

	mu   sync.Mutex
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan struct{} // closed when cmd has been waited for
}

// Start runs redis-server from Binary() on a free loopback port, with dir as
// its working folder and log, and waits until it answers PING.
func Start(dir string) (*Process, error) {
	bin := Binary()
	if bin == "" {
		return nil, ErrNoBinary
	}
	p := &Process{bin: bin, dir: dir}
	var lastErr error
	for range 5 { // a free port may be taken between finding and binding it
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		p.port = port
		if lastErr = p.Launch(); lastErr == nil {
			p.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			p.URL = "redis://" + p.Addr + "/0"
			return p, nil
		}
	}
	return nil, fmt.Errorf("starting redis-server: %w", lastErr)
}

// Port is the process's port.
func (p *Process) Port() int { return p.port }

// Launch starts the process on its port (again, after Stop) and waits until
// it answers PING.
func (p *Process) Launch() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	logPath := filepath.Join(p.dir, "redis.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(p.bin,
		"--port", strconv.Itoa(p.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", p.dir,
		"--daemonize", "no",
		"--protected-mode", "yes",
	)
	cmd.Dir = p.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exit) }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err = Ping(addr); err == nil {
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
	p.cmd, p.exit = cmd, exit
	return nil
}

// Stop kills the process at once (SIGKILL), as a crash would.
func (p *Process) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exit
	p.cmd, p.exit = nil, nil
}

// Running reports whether the process is up.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// Ping sends PING on a fresh connection and expects +PONG.
func Ping(addr string) error {
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

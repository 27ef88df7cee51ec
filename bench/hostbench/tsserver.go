package hostbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tsServer is the official TypeScript SDK's stateless Streamable HTTP server
// (host/tsclient/bench-server.mjs) run with node, listing the host's tools.
type tsServer struct {
	cmd  *exec.Cmd
	addr string // host:port
	tmp  string
}

// findTSDir finds host/tsclient with its SDK installed: dir when given,
// else host/tsclient under the module root found from the working
// directory. The reason is why the TypeScript server cannot run here.
func findTSDir(dir string) (string, string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not installed"
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err.Error()
		}
		for d := wd; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/surfsense/pluginhost\n") {
				dir = filepath.Join(d, "host", "tsclient")
				break
			}
			if filepath.Dir(d) == d {
				return "", "host/tsclient not found above " + wd + " (run from the repository or pass -ts-dir)"
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bench-server.mjs")); err != nil {
		return "", dir + " has no bench-server.mjs"
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		return "", dir + "/node_modules is missing (run npm ci there)"
	}
	return dir, ""
}

// startTSServer writes listing (the JSON bench-server.mjs reads) to a
// temporary file and starts the server from dir, waiting for its port.
func startTSServer(ctx context.Context, dir string, listing []byte) (*tsServer, error) {
	tmp, err := os.MkdirTemp("", "pluginhost-bench-ts")
	if err != nil {
		return nil, err
	}
	file := filepath.Join(tmp, "listing.json")
	if err := os.WriteFile(file, listing, 0o600); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", "bench-server.mjs", file)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("starting node: %w", err)
	}
	s := &tsServer{cmd: cmd, tmp: tmp}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "port "); ok {
				port <- p
			}
		}
		close(port)
	}()
	select {
	case p, ok := <-port:
		if !ok {
			s.stop()
			return nil, errors.New("the TypeScript bench server ended without printing its port")
		}
		s.addr = "127.0.0.1:" + p
		return s, nil
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("the TypeScript bench server printed no port within 30 s")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

func (s *tsServer) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	_ = os.RemoveAll(s.tmp)
}

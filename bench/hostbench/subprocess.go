package hostbench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hostProcess is a host started as its own process.
type hostProcess struct {
	cmd     *exec.Cmd
	url     string
	metrics string // the host's /metrics URL
}

// startHost runs command (a pluginhost binary with "serve") on a free
// loopback port with the dev license, no call limits, and private networks
// allowed (the stand-in site is on loopback), and waits until it is ready.
func startHost(ctx context.Context, command []string, env ...string) (*hostProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	maddr := mln.Addr().String()
	mln.Close()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "LICENSE_BACKEND=dev", "ALLOW_PRIVATE_NETWORKS=true",
		"MAX_CONCURRENT_CALLS=0", "RATE_LIMIT_PER_MINUTE=0", "LOG_LEVEL=error", "REDIS_URL=", "METRICS_ADDR="+maddr)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the host process: %w", err)
	}
	hp := &hostProcess{cmd: cmd, url: "http://" + addr, metrics: "http://" + maddr + "/metrics"}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(hp.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return hp, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	hp.stop()
	return nil, fmt.Errorf("the host process did not become ready on %s", addr)
}

func (hp *hostProcess) stop() {
	_ = hp.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = hp.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = hp.cmd.Process.Kill()
	}
}

// runtimeFigures reads the host's goroutine count and Go heap and stack in
// use from its metrics.
func (hp *hostProcess) runtimeFigures() string {
	resp, err := http.Get(hp.metrics)
	if err != nil {
		return "metrics unavailable: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	want := map[string]string{"go_goroutines": "goroutines", "go_memstats_heap_inuse_bytes": "heap in use", "go_memstats_stack_inuse_bytes": "stacks"}
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		name, ok := want[f[0]]
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		if strings.HasSuffix(f[0], "_bytes") {
			parts = append(parts, fmt.Sprintf("%s %.1f MB", name, v/(1<<20)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.0f", name, v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// saveProfiles writes the host's heap profile (heap.pprof, from the metrics
// listener's /debug/pprof/heap) and its goroutines grouped by stack
// (goroutines.txt) into dir.
func (hp *hostProcess) saveProfiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, path := range map[string]string{"heap.pprof": "/debug/pprof/heap", "goroutines.txt": "/debug/pprof/goroutine?debug=1"} {
		resp, err := http.Get(strings.TrimSuffix(hp.metrics, "/metrics") + path)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("the host answered %s for %s", resp.Status, path)
		}
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// metric reads one unlabelled series from the host's metrics; -1 when it
// cannot be read.
func (hp *hostProcess) metric(name string) float64 {
	resp, err := http.Get(hp.metrics)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	return -1
}

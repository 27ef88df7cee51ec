package hostbench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// hostProcess is a host started as its own process.
type hostProcess struct {
	cmd *exec.Cmd
	url string
}

// startHost runs command (a pluginhost binary with "serve") on a free
// loopback port with the dev license, no call limits, and private networks
// allowed (the stand-in site is on loopback), and waits until it is ready.
func startHost(ctx context.Context, command []string) (*hostProcess, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "LICENSE_BACKEND=dev", "ALLOW_PRIVATE_NETWORKS=true",
		"MAX_CONCURRENT_CALLS=0", "RATE_LIMIT_PER_MINUTE=0", "LOG_LEVEL=error", "REDIS_URL=", "METRICS_ADDR=")
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the host process: %w", err)
	}
	hp := &hostProcess{cmd: cmd, url: "http://" + addr}
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

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/internal/redistest"
)

// The test binary doubles as the pluginhost binary when this is set.
func TestMain(m *testing.M) {
	if os.Getenv("PLUGINHOST_RUN_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func command(t *testing.T, env []string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(append(os.Environ(), "PLUGINHOST_RUN_MAIN=1"), env...)
	return cmd
}

func TestServeRefusesWithoutLicenseBackend(t *testing.T) {
	var out bytes.Buffer
	cmd := command(t, []string{"LICENSE_BACKEND=", "ADDR=127.0.0.1:0"}, "serve")
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("serve without LICENSE_BACKEND: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "LICENSE_BACKEND is not set") || !strings.Contains(out.String(), "--dev") {
		t.Fatalf("the refusal does not say what to do:\n%s", out.String())
	}
}

func TestUnknownCommandAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"nope"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("unknown command: %d %q", code, errb.String())
	}
	if code := run(nil, &out, &errb); code != 2 {
		t.Fatalf("no command: %d", code)
	}
	if code := run([]string{"doctor"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--license") {
		t.Fatalf("doctor without a key: %d %q", code, errb.String())
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestServeDevDrainsOnSIGTERM runs `pluginhost serve --dev`, holds a crawl
// call in flight against a slow site, sends SIGTERM and checks: /readyz turns
// 503, the call ends with a tool error saying the host is shutting down once
// SHUTDOWN_DRAIN passed, the process exits 0, and the key is in no log line.
func TestServeDevDrainsOnSIGTERM(t *testing.T) {
	var held atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer site.Close()
	addr := freeAddr(t)
	var logs syncBuffer
	cmd := command(t, []string{"ADDR=" + addr, "SHUTDOWN_DRAIN=1s", "ALLOW_PRIVATE_NETWORKS=true", "LICENSE_BACKEND="}, "serve", "--dev")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	base := "http://" + addr
	waitReady(t, base)
	const key = "DEV-SECRET-KEY-42"
	cs, err := mcpdial.Connect(context.Background(), base+"/web-crawl/mcp", key, http.Header{"X-Surfsense-Thread": {"t1"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "crawl", Arguments: map[string]any{"start_urls": []string{site.URL + "/slow"}}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "transport: " + err.Error()}}}
		}
		result <- res
	}()
	for held.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	resp, err := http.Get(base + "/readyz")
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("readyz during the drain: %v %v", resp, err)
	}
	resp.Body.Close()
	res := <-result
	text := fmt.Sprint(res.Content[0].(*mcp.TextContent).Text)
	if !res.IsError || !strings.Contains(text, "shutting down") {
		t.Fatalf("the call in flight ended with %q", text)
	}
	if waited := time.Since(sent); waited < 900*time.Millisecond {
		t.Fatalf("the call was cancelled after %s, before SHUTDOWN_DRAIN (1s)", waited)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the process did not exit after SIGTERM")
	}
	l := logs.String()
	if strings.Contains(l, key) {
		t.Fatalf("the license key is in the logs:\n%s", l)
	}
	for _, want := range []string{"dev", "draining", "stopped"} {
		if !strings.Contains(l, want) {
			t.Errorf("logs lack %q:\n%s", want, l)
		}
	}
}

func waitReady(t *testing.T, base string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never became ready", base)
}

// TestServeWithRedis runs serve with REDIS_URL: /readyz names Redis as ok,
// and the metrics listener serves the host's and Redis's series.
func TestServeWithRedis(t *testing.T) {
	url := redistest.URL(t)
	addr, maddr := freeAddr(t), freeAddr(t)
	var logs syncBuffer
	cmd := command(t, []string{"ADDR=" + addr, "METRICS_ADDR=" + maddr, "REDIS_URL=" + url, "LICENSE_BACKEND=dev"}, "serve")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	waitReady(t, "http://"+addr)
	var hout, herr bytes.Buffer
	if code := run([]string{"health", "--addr", addr, "--path", "/readyz"}, &hout, &herr); code != 0 {
		t.Fatalf("health: %d %s %s", code, hout.String(), herr.String())
	}
	if code := run([]string{"health", "--addr", freeAddr(t)}, &hout, &herr); code != 1 {
		t.Fatalf("health of nothing listening: %d", code)
	}
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"redis":"ok"`) {
		t.Fatalf("readyz with Redis: %s\n%s", body, logs.String())
	}
	resp, err = http.Get("http://" + maddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"redis_up 1", "pluginhost_tool_calls_in_flight"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

package host_test

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/internal/redistest"
)

// TestTasksOfficialRequester runs the official MCP Tasks requester
// (@modelcontextprotocol/ext-tasks in 2026-07-28 mode on the v2 TypeScript
// client @modelcontextprotocol/client; host/tasksclient, installed by
// `npm ci` there, as .ci/run does) against two replicas on one
// redis-server: server/discover lists the extension; a task created on A
// is polled on B to completion with its result; a task cancelled from B
// stops its run on A (the time from tasks/cancel to the run's end is
// logged); a client that does not declare the extension gets a direct
// answer; A killed mid-task leaves its task failed, read on B.
func TestTasksOfficialRequester(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP Tasks requester's checks are skipped")
	}
	dir, _ := filepath.Abs("tasksclient")
	for _, m := range []string{"ext-tasks", "client"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", m)); err != nil {
			t.Skip("host/tasksclient/node_modules is missing (run npm ci in host/tasksclient): the MCP Tasks requester's checks are skipped")
		}
	}
	const lease = time.Second
	rs := startTaskReplicas(t, redistest.URL(t), 2, lease, nil)
	a, b := rs[0], rs[1]
	for _, r := range rs {
		go func() { // runs tell the plugin they started; nobody else listens here
			for range r.plugin.started {
			}
		}()
	}
	var killOnce sync.Once
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/kill-a" {
			http.NotFound(w, r)
			return
		}
		killOnce.Do(func() {
			// A dies: no more answers, no heartbeats; its run never reports.
			a.Server.CloseClientConnections()
			a.Server.Close()
			_ = a.store.Close()
		})
		w.WriteHeader(http.StatusNoContent)
	}))
	defer control.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "run.mjs", a.URL, b.URL, control.URL)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	seen := map[string]bool{}
	marks := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ok "):
			name, detail, _ := strings.Cut(strings.TrimPrefix(line, "ok "), " ")
			seen[name] = true
			t.Logf("MCP Tasks requester: %s %s", name, detail)
		case strings.HasPrefix(line, "fail "):
			t.Errorf("MCP Tasks requester: %s", strings.TrimPrefix(line, "fail "))
		case strings.HasPrefix(line, "mark "):
			f := strings.Fields(line)
			if len(f) == 3 {
				v, _ := strconv.ParseFloat(f[2], 64)
				marks[f[1]] = v
			}
		}
	}
	for _, name := range []string{"discover-lists-extension", "created-on-a-completed-on-b", "cancelled-from-b", "undeclared-gets-direct-answer", "replica-killed-mid-task"} {
		if !seen[name] {
			t.Errorf("the requester's check %s did not pass (node: %v; stderr: %s)", name, runErr, stderr.String())
		}
	}
	// The cancelled run on A saw its end; measured from B's tasks/cancel.
	select {
	case ended := <-a.plugin.ended:
		if sent, ok := marks["cancel-sent"]; ok {
			ms := float64(ended.UnixNano())/1e6 - sent
			t.Logf("tasks/cancel sent to B → the run on A ended: %.1f ms", math.Round(ms*10)/10)
		}
	default:
		if seen["cancelled-from-b"] {
			t.Error("the run on A cancelled from B did not report its end")
		}
	}
	if got := metricValue(t, &replica{Host: b.Host}, `pluginhost_tasks_total{plugin="long",status="created",tool="crawl"}`); got != 0 {
		t.Errorf("B created %v tasks; every task was created on A", got)
	}
}

package host_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/internal/redistest"
)

// TestTypeScriptSDKClient runs the official TypeScript MCP SDK client
// (@modelcontextprotocol/sdk, host/tsclient, installed by `npm ci` there;
// .ci/run does it) against two replicas on one redis-server with
// MAX_CONCURRENT_CALLS=1: output schemas it validates itself, text-only,
// -32601, honest capabilities, the 401, and an AbortSignal's cancel reaching
// the other replica and freeing the slot for the next call at once.
func TestTypeScriptSDKClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client's checks are skipped")
	}
	dir, _ := filepath.Abs("tsclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("host/tsclient/node_modules is missing (run npm ci in host/tsclient): the TypeScript SDK client's checks are skipped")
	}
	rs := startReplicas(t, redistest.URL(t), 2, nil, time.Second, func(c *host.Config) { c.MaxConcurrentCalls, c.CallDeadline = 1, 10*time.Second })
	a, b := rs[0], rs[1]
	go func() { // the waiting calls tell the plugin they started; nobody else listens here
		for range a.plugin.started {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "run.mjs", a.URL, b.URL)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ok "):
			name, detail, _ := strings.Cut(strings.TrimPrefix(line, "ok "), " ")
			seen[name] = true
			t.Logf("TypeScript SDK: %s %s", name, detail)
		case strings.HasPrefix(line, "fail "):
			t.Errorf("TypeScript SDK: %s", strings.TrimPrefix(line, "fail "))
		}
	}
	for _, name := range []string{"tools-list-output-schema", "structured-result-validated", "text-only", "unknown-method", "capabilities", "missing-license", "abort-frees-slot"} {
		if !seen[name] {
			t.Errorf("the TypeScript check %s did not pass (node: %v; stderr: %s)", name, runErr, stderr.String())
		}
	}
	if got := metricValue(t, a, `pluginhost_tool_calls_total{outcome="cancelled",plugin="slow",tool="work"}`); got != 3 {
		t.Errorf("A counts %v calls cancelled by their client, want the 3 the script aborted", got)
	}
}

package main

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/surfsense/pluginhost/host/mcpdial"
	"github.com/surfsense/pluginhost/host/telemetry/otlptest"
)

// TestServeFlushesTracesAtExit runs serve with OTEL_EXPORTER_OTLP_ENDPOINT
// and batching slower than the test: the MCP requests' spans and the
// mcp.server.operation.duration histogram reach the receiver only because
// the exit after SIGTERM flushes them.
func TestServeFlushesTracesAtExit(t *testing.T) {
	recv := otlptest.Start(t)
	addr := freeAddr(t)
	var logs syncBuffer
	cmd := command(t, []string{"ADDR=" + addr, "LICENSE_BACKEND=", "OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.URL,
		"OTEL_BSP_SCHEDULE_DELAY=600000", "OTEL_METRIC_EXPORT_INTERVAL=600000", "OTEL_SERVICE_NAME=pluginhost-test"}, "serve", "--dev")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitReady(t, "http://"+addr)
	cs, err := mcpdial.Connect(context.Background(), "http://"+addr+"/web-crawl/mcp", "DEV-KEY-FOR-TRACES", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	if _, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Meta: mcp.Meta{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	time.Sleep(100 * time.Millisecond) // the request's span ends once its response has gone
	if n := len(recv.Spans()); n != 0 {
		t.Fatalf("%d spans arrived before the exit; the batch delay should have held them", n)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("serve exited %d:\n%s", ee.ExitCode(), logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	var list *otlptest.Span
	for _, s := range recv.Spans() {
		if s.GetName() == "tools/list" && s.TraceID() == traceID {
			list = &s
		}
	}
	if list == nil {
		t.Fatalf("no tools/list span in the client's trace after the exit:\n%s\nlogs:\n%s", otlptest.Describe(recv.Spans()), logs.String())
	}
	if list.ParentID() != "b7ad6b7169203331" || list.Resource["service.name"] != "pluginhost-test" {
		t.Errorf("tools/list span: parent %s, resource %v", list.ParentID(), list.Resource)
	}
	var sawMetric bool
	for _, m := range recv.Metrics() {
		if m.GetName() == "mcp.server.operation.duration" {
			sawMetric = true
		}
	}
	if !sawMetric {
		t.Error("mcp.server.operation.duration was not flushed at exit")
	}
	if l := logs.String(); !strings.Contains(l, `"otlp_endpoint":"`+recv.URL) || strings.Contains(l, "DEV-KEY-FOR-TRACES") {
		t.Errorf("the start line should name the OTLP endpoint and no log the key:\n%s", l)
	}
}

package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/surfsense/pluginhost/host"
	"github.com/surfsense/pluginhost/host/hosttest"
	"github.com/surfsense/pluginhost/host/telemetry"
	"github.com/surfsense/pluginhost/host/telemetry/otlptest"
	"github.com/surfsense/pluginhost/scrapers"
)

// Traces name tasks: the tools/call that became a task and every tasks/*
// request about it carry mcp.task.id, and tasks/get is its own method.
func TestTraceOfATask(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	prov, err := telemetry.Setup(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL}[k]
	}, host.Version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prov.Shutdown(context.Background()) })
	p := newTaskPlugin()
	h := hosttest.Start(t, hosttest.Options{Plugins: []scrapers.Constructor{p.ctor}, TracerProvider: prov.Tracer, MeterProvider: prov.Meter,
		Config: func(c *host.Config) { c.ResultCacheTTL, c.TaskAfter = 0, 0 }})
	id := mustTask(t, callLong(t, h.URL, taskKey, `{"pages":1}`, tasksDeclared, nil), h.Config())
	waitStarted(t, p)
	if g := waitStatus(t, h.URL, taskKey, id, 5*time.Second); g.Result["status"] != "completed" {
		t.Fatalf("the task: %s", g.raw)
	}
	recv.WaitSpans(t, 10*time.Second, "the task's spans did not arrive", func(spans []otlptest.Span) bool {
		call, get := false, false
		for _, s := range spans {
			if v, _ := s.Attr("mcp.task.id"); v == id {
				call = call || s.GetName() == "tools/call crawl"
				get = get || s.GetName() == "tasks/get"
			}
		}
		return call && get
	})
}

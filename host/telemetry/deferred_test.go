package telemetry

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A Deferred keeps at most MaxDeferred spans, emits them under the span of
// the context it is given with their own times, and says how many it left
// out.
func TestDeferredBoundedAndEmittedUnderItsParent(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	tracer := tp.Tracer("test")
	var d Deferred
	if DeferredFrom(WithDeferred(context.Background(), &d)) != &d || DeferredFrom(context.Background()) != nil {
		t.Fatal("WithDeferred and DeferredFrom do not agree")
	}
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range MaxDeferred + 4 {
		errType := ""
		if i == 0 {
			errType = "timeout"
		}
		d.Add(DeferredSpan{Name: "GET", Start: start.Add(time.Duration(i) * time.Millisecond), End: start.Add(time.Duration(i)*time.Millisecond + 100*time.Microsecond), ErrorType: errType})
	}
	ctx, parent := tracer.Start(context.Background(), "license check")
	d.Emit(ctx, tracer)
	parent.End()
	spans := mem.GetSpans()
	if len(spans) != MaxDeferred+1 {
		t.Fatalf("%d spans, want %d and their parent", len(spans), MaxDeferred)
	}
	for _, s := range spans[:MaxDeferred] {
		if s.Parent.SpanID() != parent.SpanContext().SpanID() || s.EndTime.Sub(s.StartTime) != 100*time.Microsecond || s.StartTime.Before(start) {
			t.Fatalf("span %s: parent %s, %s to %s", s.Name, s.Parent.SpanID(), s.StartTime, s.EndTime)
		}
	}
	if spans[0].Status.Description != "timeout" {
		t.Errorf("the failed command's status: %+v", spans[0].Status)
	}
	var dropped bool
	for _, a := range spans[MaxDeferred].Attributes {
		if a.Key == "surfsense.spans_dropped" && a.Value.AsInt64() == 4 {
			dropped = true
		}
	}
	if !dropped {
		t.Errorf("the parent does not say 4 spans were left out: %v", spans[MaxDeferred].Attributes)
	}
	var none *Deferred
	none.Emit(ctx, tracer) // nothing noted: nothing to do
}

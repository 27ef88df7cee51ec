package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Deferred holds the client spans of work done before the span they belong
// under exists: the license check runs before the MCP request's span, which
// waits for the body (its parent may be in params._meta), so the Redis
// commands of the check are noted here as they run and emitted under the
// check's span, with their own times, once it is recorded. It keeps at
// most MaxDeferred; the zero value is ready to use.
type Deferred struct {
	mu      sync.Mutex
	spans   []DeferredSpan
	dropped int
}

// MaxDeferred bounds the spans a Deferred keeps.
const MaxDeferred = 16

// DeferredSpan is one client span noted for later.
type DeferredSpan struct {
	Name       string
	Start, End time.Time
	Attrs      []attribute.KeyValue
	ErrorType  string // "" when it succeeded
}

type deferredKey struct{}

// WithDeferred returns ctx carrying d: work that would trace itself and
// finds no span in ctx notes its span in d instead.
func WithDeferred(ctx context.Context, d *Deferred) context.Context {
	return context.WithValue(ctx, deferredKey{}, d)
}

// DeferredFrom is ctx's Deferred, or nil.
func DeferredFrom(ctx context.Context) *Deferred {
	d, _ := ctx.Value(deferredKey{}).(*Deferred)
	return d
}

// Add notes s, unless MaxDeferred are noted already.
func (d *Deferred) Add(s DeferredSpan) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.spans) >= MaxDeferred {
		d.dropped++
		return
	}
	d.spans = append(d.spans, s)
}

// Emit records the noted spans under ctx's span, as client spans with
// their own start and end.
func (d *Deferred) Emit(ctx context.Context, tracer trace.Tracer) {
	if d == nil {
		return
	}
	d.mu.Lock()
	spans, dropped := d.spans, d.dropped
	d.spans, d.dropped = nil, 0
	d.mu.Unlock()
	for _, s := range spans {
		_, span := tracer.Start(ctx, s.Name, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(s.Start), trace.WithAttributes(s.Attrs...))
		if s.ErrorType != "" {
			span.SetAttributes(semconv.ErrorTypeKey.String(s.ErrorType))
			span.SetStatus(codes.Error, s.ErrorType)
		}
		span.End(trace.WithTimestamp(s.End))
	}
	if dropped > 0 {
		trace.SpanFromContext(ctx).SetAttributes(attribute.Int("surfsense.spans_dropped", dropped))
	}
}

package redisstore

import (
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/surfsense/pluginhost/host/telemetry"
)

// tracingHook records a client span per Redis command (or pipeline) made
// on behalf of a traced request: those whose context carries a sampled
// span. The store's own background work (probe, heartbeats) has none and
// is not traced. A span names the command, never its keys or values (keys
// hold license hashes, values verdicts and results).
type tracingHook struct {
	tracer trace.Tracer
}

func newTracingHook(tp trace.TracerProvider) tracingHook {
	return tracingHook{tracer: tp.Tracer("github.com/surfsense/pluginhost/host/redisstore")}
}

func (tracingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func traced(ctx context.Context) bool {
	sc := trace.SpanContextFromContext(ctx)
	return sc.IsValid() && sc.IsSampled()
}

func (h tracingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !traced(ctx) {
			if d := telemetry.DeferredFrom(ctx); d != nil {
				// A span for later (the license check's): see telemetry.Deferred.
				op, start := commandName(cmd), time.Now()
				err := next(ctx, cmd)
				d.Add(telemetry.DeferredSpan{Name: op, Start: start, End: time.Now(), ErrorType: errorKind(err),
					Attrs: []attribute.KeyValue{semconv.DBSystemNameRedis, semconv.DBOperationName(op)}})
				return err
			}
			return next(ctx, cmd)
		}
		op := commandName(cmd)
		ctx, span := h.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(semconv.DBSystemNameRedis, semconv.DBOperationName(op)))
		err := next(ctx, cmd)
		end(span, err)
		return err
	}
}

func (h tracingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !traced(ctx) {
			return next(ctx, cmds)
		}
		names := make([]string, 0, len(cmds))
		for _, c := range cmds {
			if n := commandName(c); len(names) == 0 || names[len(names)-1] != n {
				names = append(names, n)
			}
		}
		op := "PIPELINE " + strings.Join(names, " ")
		if len(op) > 120 {
			op = op[:120]
		}
		ctx, span := h.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(semconv.DBSystemNameRedis, semconv.DBOperationName("PIPELINE"), semconv.DBOperationBatchSize(len(cmds))))
		err := next(ctx, cmds)
		end(span, err)
		return err
	}
}

// commandName is a command's name in upper case: EVALSHA, GET, SET.
func commandName(cmd redis.Cmder) string { return strings.ToUpper(cmd.Name()) }

func end(span trace.Span, err error) {
	if kind := errorKind(err); kind != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, kind)
	}
	span.End()
}

// errorKind is a command's error as a span's error.type ("" when it
// succeeded or found nothing): timeout, network_error or redis_error.
func errorKind(err error) string {
	if err == nil || errors.Is(err, redis.Nil) {
		return ""
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &ne):
		return "network_error"
	}
	return "redis_error"
}

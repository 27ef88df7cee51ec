// Package telemetry builds the host's OpenTelemetry providers from the
// standard OTEL_* variables: traces and the mcp.server.operation.duration
// metric, exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, nothing otherwise.
//
// OTEL_EXPORTER_OTLP_PROTOCOL (or the per-signal one) picks http/protobuf,
// the default, or grpc. The exporters read the other standard variables
// themselves: OTEL_EXPORTER_OTLP_HEADERS (an Authorization for a managed
// endpoint), timeouts, compression, certificates. OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service; OTEL_TRACES_SAMPLER picks the
// sampler (parent-based always-on by default, so a client's unsampled
// traceparent is not recorded); OTEL_BSP_* pace the batches;
// OTEL_METRICS_EXPORTER=none keeps metrics on Prometheus only and
// OTEL_METRIC_EXPORT_INTERVAL paces them (60 s); OTEL_SDK_DISABLED=true
// turns everything off.
//
// Every span passes through [Redacting] on its way out: whatever reached
// an attribute, no license key, URL credentials or query values leave the
// process.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// DefaultServiceName is service.name unless OTEL_SERVICE_NAME says otherwise.
const DefaultServiceName = "surfsense-pluginhost"

// Providers are what [Setup] built. With telemetry off, both are nil (the
// host then traces nothing) and Shutdown does nothing.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	// Endpoint is where spans go, for the start-up log line ("" when off).
	Endpoint string
	shutdown []func(context.Context) error
}

// Enabled reports whether spans are exported.
func (p *Providers) Enabled() bool { return p != nil && p.Tracer != nil }

// Shutdown flushes what is buffered and stops the exporters, within ctx.
func (p *Providers) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	var errs []error
	for _, f := range p.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// Setup reads the OTEL_* variables through getenv and builds the
// providers. The exporters read the process's environment themselves, so
// getenv should be os.Getenv (tests set the variables with t.Setenv).
func Setup(ctx context.Context, getenv func(string) string, version string) (*Providers, error) {
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if endpoint == "" {
		endpoint = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	if endpoint == "" || strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return &Providers{}, nil
	}
	traceProto, err := protocol(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if err != nil {
		return nil, err
	}
	metricProto, err := protocol(getenv, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(DefaultServiceName), semconv.ServiceVersion(version)),
		resource.WithFromEnv(), resource.WithHost(), resource.WithProcessPID())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	var exp sdktrace.SpanExporter
	if traceProto == "grpc" {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: the trace exporter cannot be built: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(Redacting(exp)),
		sdktrace.WithResource(res),
	)
	p := &Providers{Tracer: tp, Endpoint: redactURL(endpoint)}
	p.shutdown = append(p.shutdown, tp.Shutdown)
	if !strings.EqualFold(getenv("OTEL_METRICS_EXPORTER"), "none") {
		var mexp sdkmetric.Exporter
		if metricProto == "grpc" {
			mexp, err = otlpmetricgrpc.New(ctx)
		} else {
			mexp, err = otlpmetrichttp.New(ctx)
		}
		if err != nil {
			_ = tp.Shutdown(ctx)
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: the metric exporter cannot be built: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)))
		p.Meter = mp
		p.shutdown = append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}

// protocol is the OTLP protocol for one signal: its own variable, else
// OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf. grpc is taken too (the
// protocol some managed agents inject); http/json is not.
func protocol(getenv func(string) string, signalVar string) (string, error) {
	name, p := signalVar, getenv(signalVar)
	if p == "" {
		name, p = "OTEL_EXPORTER_OTLP_PROTOCOL", getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch p {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("%s=%q: the host exports OTLP over http/protobuf (the default) or grpc; set one of them", name, p)
}

package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/surfsense/pluginhost/host/telemetry/otlptest"
)

func TestSetupIsOffWithoutAnEndpoint(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, e := range []map[string]string{
		nil,
		{"OTEL_SERVICE_NAME": "x"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"},
	} {
		p, err := Setup(context.Background(), env(e), "1")
		if err != nil {
			t.Fatal(err)
		}
		if p.Enabled() || p.Tracer != nil || p.Meter != nil {
			t.Errorf("telemetry on with %v", e)
		}
		if err := p.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}
	if _, err := Setup(context.Background(), env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}), "1"); err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("http/json was not refused naming the variable: %v", err)
	}
	p, err := Setup(context.Background(), env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://u:secret@127.0.0.1:4318/v1/traces"}), "1")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	if !p.Enabled() || p.Endpoint != "http://127.0.0.1:4318/v1/traces" {
		t.Errorf("with a traces endpoint: enabled %v, endpoint %q (shown without its credentials)", p.Enabled(), p.Endpoint)
	}
}

// TestSetupExportsOverBothProtocols: spans and metrics reach a receiver over
// http/protobuf (the default) and over grpc, redacted on the way.
func TestSetupExportsOverBothProtocols(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(proto, "/", "_"), func(t *testing.T) {
			var recv *otlptest.Receiver
			if proto == "grpc" {
				recv = otlptest.StartGRPC(t)
			} else {
				recv = otlptest.Start(t)
			}
			vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": proto}
			for k, v := range vars {
				t.Setenv(k, v)
			}
			p, err := Setup(context.Background(), func(k string) string { return vars[k] }, "1.2.3")
			if err != nil {
				t.Fatal(err)
			}
			_, span := p.Tracer.Tracer("t").Start(context.Background(), "work")
			span.SetAttributes(attribute.String("url.full", "https://u:secret@x.example/?q=jane"))
			span.End()
			h, _ := p.Meter.Meter("t").Int64Counter("things")
			h.Add(context.Background(), 1)
			if err := p.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans := recv.Spans()
			if len(spans) != 1 || spans[0].GetName() != "work" || spans[0].Resource["service.name"] != DefaultServiceName || spans[0].Resource["service.version"] != "1.2.3" {
				t.Fatalf("spans: %s", otlptest.Describe(spans))
			}
			if u, _ := spans[0].Attr("url.full"); u != "https://x.example/?q=[redacted]" {
				t.Errorf("url.full arrived as %q", u)
			}
			if len(recv.Metrics()) == 0 {
				t.Error("no metric arrived")
			}
		})
	}
}

package telemetry

import (
	"context"
	"testing"
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
	if _, err := Setup(context.Background(), env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}), "1"); err == nil {
		t.Error("grpc was accepted; the host exports over http/protobuf only")
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

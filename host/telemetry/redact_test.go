package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestRedactString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"license check", "license check"},
		{"GET amazon", "GET amazon"},
		{"License LK-7f3a9c21-secret-license-key", "License [redacted]"},
		{"sent Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig to it", "sent Bearer [redacted] to it"},
		{"Authorization: License abc", "authorization: [redacted]"},
		{"http://user:pa55@proxy.example:8080", "http://proxy.example:8080"},
		{"https://www.amazon.com/s?k=jane+doe&ref=nb", "https://www.amazon.com/s?k=[redacted]&ref=[redacted]"},
		{"fetching https://example.com/p#frag now", "fetching https://example.com/p now"},
		{"rediss://:accesskey@cache.example:6380/0 down", "rediss://cache.example:6380/0 down"},
	} {
		if got := RedactString(c.in); got != c.want {
			t.Errorf("RedactString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactAttribute(t *testing.T) {
	for _, c := range []struct {
		in   attribute.KeyValue
		want string
	}{
		{attribute.String("http.request.header.authorization", "License k"), Redacted},
		{attribute.String("surfsense.license_key", "k"), Redacted},
		{attribute.String("license", "k"), Redacted},
		{attribute.String("url.query", "q=jane"), Redacted},
		{attribute.String("proxy_url", "http://p"), Redacted},
		{attribute.String("url.full", "https://u:p@x.example/a?q=jane"), "https://x.example/a?q=[redacted]"},
		{attribute.String("surfsense.license.verdict", "valid"), "valid"},
		{attribute.String("surfsense.license.source", "cache"), "cache"},
	} {
		if got := RedactAttribute(c.in).Value.Emit(); got != c.want {
			t.Errorf("%s=%q became %q, want %q", c.in.Key, c.in.Value.Emit(), got, c.want)
		}
	}
	s := RedactAttribute(attribute.StringSlice("urls", []string{"http://a:b@x/", "plain"})).Value.AsStringSlice()
	if s[0] != "http://x/" || s[1] != "plain" {
		t.Errorf("string slice: %v", s)
	}
	if kv := RedactAttribute(attribute.Int("surfsense.items", 3)); kv.Value.AsInt64() != 3 {
		t.Errorf("an int changed: %v", kv)
	}
}

// TestRedactingExporter: whatever a span was given (attributes, event
// attributes, its name, its status), what the wrapped exporter receives has
// been redacted.
func TestRedactingExporter(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(Redacting(mem)))
	_, span := tp.Tracer("t").Start(context.Background(), "GET https://user:pw@site.example/s?q=jane")
	span.SetAttributes(attribute.String("authorization", "License LK-secret-key-123456"), attribute.String("note", "via http://u:pw@proxy:1"))
	span.AddEvent("retry", sdktraceEventAttrs("url", "https://site.example/p?who=jane")...)
	span.SetStatus(codes.Error, "License LK-secret-key-123456 refused")
	span.End()
	got := mem.GetSpans() // before Shutdown, which empties it
	if len(got) != 1 {
		t.Fatalf("%d spans", len(got))
	}
	all := got[0].Name + " " + got[0].Status.Description
	for _, kv := range got[0].Attributes {
		all += " " + kv.Value.Emit()
	}
	for _, e := range got[0].Events {
		for _, kv := range e.Attributes {
			all += " " + kv.Value.Emit()
		}
	}
	for _, secret := range []string{"pw", "jane", "LK-secret-key-123456"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q reached the exporter: %s", secret, all)
		}
	}
	if !strings.Contains(all, "site.example/s?q=[redacted]") {
		t.Errorf("the redacted span lost what may be shown: %s", all)
	}
}

func sdktraceEventAttrs(kv ...string) []traceEventOption {
	var attrs []attribute.KeyValue
	for i := 0; i+1 < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(kv[i], kv[i+1]))
	}
	return []traceEventOption{trace.WithAttributes(attrs...)}
}

type traceEventOption = trace.EventOption

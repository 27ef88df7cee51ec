// Package otlptest is an OTLP receiver for tests: an HTTP server that
// decodes what an exporter sends to /v1/traces and /v1/metrics with the
// official protobuf definitions (go.opentelemetry.io/proto/otlp) and keeps
// it for the test to read.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	// URL is the receiver's origin, for OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu      sync.Mutex
	spans   []Span
	metrics []Metric
	raw     [][]byte // every request body, decoded from gzip
}

// Span is one received span with its resource's attributes.
type Span struct {
	*tracepb.Span
	Resource map[string]string
	Scope    string
}

// Metric is one received metric with its resource's attributes.
type Metric struct {
	*metricpb.Metric
	Resource map[string]string
}

// Start serves a receiver until t ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveTraces)
	mux.HandleFunc("POST /v1/metrics", r.serveMetrics)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func readBody(req *http.Request) ([]byte, error) {
	var body io.Reader = http.MaxBytesReader(nil, req.Body, 32<<20)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		body = zr
	}
	return io.ReadAll(body)
}

func (r *Receiver) serveTraces(w http.ResponseWriter, req *http.Request) {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "content type "+ct+": OTLP/HTTP binary is application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
	b, err := readBody(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.addTraces(b, &msg)
	respond(w, &coltracepb.ExportTraceServiceResponse{})
}

func (r *Receiver) addTraces(b []byte, msg *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, b)
	for _, rs := range msg.ResourceSpans {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, Span{Span: s, Resource: res, Scope: ss.GetScope().GetName()})
			}
		}
	}
}

func (r *Receiver) serveMetrics(w http.ResponseWriter, req *http.Request) {
	b, err := readBody(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.addMetrics(b, &msg)
	respond(w, &colmetricpb.ExportMetricsServiceResponse{})
}

func (r *Receiver) addMetrics(b []byte, msg *colmetricpb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw = append(r.raw, b)
	for _, rm := range msg.ResourceMetrics {
		res := attrMap(rm.GetResource().GetAttributes())
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				r.metrics = append(r.metrics, Metric{Metric: m, Resource: res})
			}
		}
	}
}

func respond(w http.ResponseWriter, m proto.Message) {
	b, err := proto.Marshal(m)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// Spans is every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Metrics is every metric received so far.
func (r *Receiver) Metrics() []Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Metric(nil), r.metrics...)
}

// Raw is every request body received, decoded from gzip: a test can look
// for a secret in all of it.
func (r *Receiver) Raw() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.raw...)
}

// WaitSpans waits up to within for done to hold over the spans received
// and returns them; it fails t when it never does.
func (r *Receiver) WaitSpans(t testing.TB, within time.Duration, what string, done func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := r.Spans()
		if done(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("otlptest: after %v, %s; received %d spans:\n%s", within, what, len(s), Describe(s))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Describe lists spans one a line (name, ids, attributes), for failures.
func Describe(spans []Span) string {
	out := ""
	for _, s := range spans {
		out += fmt.Sprintf("  %s trace=%s span=%s parent=%s %v\n", s.GetName(), s.TraceID(), s.SpanID(), s.ParentID(), s.Attrs())
	}
	return out
}

// TraceID is the span's trace id in hex.
func (s Span) TraceID() string { return hex.EncodeToString(s.GetTraceId()) }

// SpanID is the span's id in hex.
func (s Span) SpanID() string { return hex.EncodeToString(s.GetSpanId()) }

// ParentID is the parent span's id in hex ("" for a root).
func (s Span) ParentID() string { return hex.EncodeToString(s.GetParentSpanId()) }

// Attrs are the span's attributes as text.
func (s Span) Attrs() map[string]string { return attrMap(s.GetAttributes()) }

// Attr is one attribute as text and whether it is there.
func (s Span) Attr(key string) (string, bool) {
	for _, kv := range s.GetAttributes() {
		if kv.GetKey() == key {
			return valueText(kv.GetValue()), true
		}
	}
	return "", false
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = valueText(kv.GetValue())
	}
	return m
}

func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		out := "["
		for i, e := range x.ArrayValue.GetValues() {
			if i > 0 {
				out += ","
			}
			out += valueText(e)
		}
		return out + "]"
	}
	return fmt.Sprint(v)
}

package otlptest

import (
	"context"
	"net"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// StartGRPC serves a receiver over OTLP/gRPC until t ends; URL is
// http://<addr>, for OTEL_EXPORTER_OTLP_ENDPOINT with
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc (insecure: it is on loopback).
func StartGRPC(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{URL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, grpcTraces{r: r})
	colmetricpb.RegisterMetricsServiceServer(srv, grpcMetrics{r: r})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return r
}

type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (g grpcTraces) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	b, _ := proto.Marshal(req)
	g.r.addTraces(b, req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (g grpcMetrics) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	b, _ := proto.Marshal(req)
	g.r.addMetrics(b, req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

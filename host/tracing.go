package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	hosttel "github.com/surfsense/pluginhost/host/telemetry"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/surfsense/pluginhost/license"
	"github.com/surfsense/pluginhost/scrapers"
)

// Traces in the OpenTelemetry convention for MCP: one server span per MCP
// request, named "{mcp.method.name} {target}", parented on the traceparent
// the client put in params._meta (MCP reserves it) or else on the HTTP
// traceparent header. Its children: the license check, the rate limit,
// every upstream attempt, extraction where a plugin marks it
// (scrapers.Extraction), result storage and Redis commands.
//
// The license check comes before the body is read (CONTRACTS.md), so the
// request span cannot exist when it runs: the check is noted and recorded
// as a child, with its own timestamps, once the body gate has read the
// message and the span begins (at the request's arrival).
//
// Attributes hold no license key (nor its hash), no URL credentials and no
// arguments: an upstream attempt's path is cut to its first segment,
// kept only when it is a site's route word (redactPath) and its query is never seen. host/telemetry's exporter
// redacts again, by rule, whatever reaches it.

// tracerName is the instrumentation scope of the host's spans.
const tracerName = "github.com/surfsense/pluginhost/host"

const ctxMCPRequest ctxKey = 400

// telemetry is the host's tracer and OpenTelemetry meter.
type telemetry struct {
	tracer     trace.Tracer
	enabled    bool // a real provider was given: spans are worth building
	opDuration mcpconv.ServerOperationDuration
	prop       propagation.TraceContext
}

// opBuckets are the bucket bounds the MCP convention advises for
// mcp.server.operation.duration, in seconds.
var opBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

func newTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) *telemetry {
	t := &telemetry{enabled: tp != nil}
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t.tracer = tp.Tracer(tracerName, trace.WithInstrumentationVersion(Version))
	d, err := mcpconv.NewServerOperationDuration(mp.Meter(tracerName, metric.WithInstrumentationVersion(Version)),
		metric.WithExplicitBucketBoundaries(opBuckets...))
	if err == nil {
		t.opDuration = d
	} else {
		t.opDuration, _ = mcpconv.NewServerOperationDuration(nil)
	}
	return t
}

// mcpMetrics is mcp.server.operation.duration on the Prometheus listener,
// labelled as the convention names its attributes.
type mcpMetrics struct {
	duration *prometheus.HistogramVec
}

func newMCPMetrics(reg prometheus.Registerer) *mcpMetrics {
	m := &mcpMetrics{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mcp_server_operation_duration_seconds",
		Help:    "MCP request or notification duration as the host observed it, from arrival to the response's end (OpenTelemetry's mcp.server.operation.duration), by plugin, method, tool and error type.",
		Buckets: opBuckets,
	}, []string{"plugin", "mcp_method_name", "gen_ai_tool_name", "error_type"})}
	reg.MustRegister(m.duration)
	return m
}

// mcpMethods are the MCP methods the convention names and those the SDK
// serves beside them. Any other method is
// "_OTHER" in spans, metrics and logs: the value comes from the client.
var mcpMethods = map[string]bool{}

func init() {
	for _, m := range []mcpconv.MethodNameAttr{
		mcpconv.MethodNameNotificationsCancelled, mcpconv.MethodNameInitialize, mcpconv.MethodNameNotificationsInitialized,
		mcpconv.MethodNameNotificationsProgress, mcpconv.MethodNamePing, mcpconv.MethodNameResourcesList,
		mcpconv.MethodNameResourcesTemplatesList, mcpconv.MethodNameResourcesRead, mcpconv.MethodNameNotificationsResourcesListChanged,
		mcpconv.MethodNameResourcesSubscribe, mcpconv.MethodNameResourcesUnsubscribe, mcpconv.MethodNameNotificationsResourcesUpdated,
		mcpconv.MethodNamePromptsList, mcpconv.MethodNamePromptsGet, mcpconv.MethodNameNotificationsPromptsListChanged,
		mcpconv.MethodNameToolsList, mcpconv.MethodNameToolsCall, mcpconv.MethodNameNotificationsToolsListChanged,
		mcpconv.MethodNameLoggingSetLevel, mcpconv.MethodNameNotificationsMessage, mcpconv.MethodNameSamplingCreateMessage,
		mcpconv.MethodNameCompletionComplete, mcpconv.MethodNameRootsList, mcpconv.MethodNameNotificationsRootsListChanged,
		mcpconv.MethodNameElicitationCreate,
	} {
		mcpMethods[string(m)] = true
	}
	// Methods of later protocol versions the SDK serves (SEP-2575's
	// stateless discovery among them), not yet in the convention's list.
	for _, m := range []string{"server/discover", "subscriptions/listen", "notifications/elicitation/complete", "notifications/subscriptions/acknowledged"} {
		mcpMethods[m] = true
	}
}

func methodLabel(m string) string {
	if mcpMethods[m] {
		return m
	}
	return "_OTHER"
}

// mcpRequest is what the host learns about one MCP request on its way
// through the middleware and the call, read when it ends: the span, the
// log line and the duration metric.
type mcpRequest struct {
	plugin string
	tools  map[string]bool // the plugin's tools, get_result included
	start  time.Time

	mu      sync.Mutex
	span    trace.Span      // nil until the body gate read the message
	spanCtx context.Context // the context holding span
	traceID string          // the trace the request belongs to, when known
	method  string          // methodLabel
	tool    string          // a tool of the plugin, else ""
	license *licenseNote
	refusal string // the reason of a refusal the host answered with
	errType string // error.type from the SDK or the call
	call    *callNote
}

// licenseNote is a license check waiting to become a span.
type licenseNote struct {
	start, end time.Time
	reason     string // the verdict's reason, "valid" when valid
	source     string // "cache", or the backend asked (keygen, file, dev)
	grace      bool
	// spans are the check's own (its Redis commands), noted as they ran
	// and recorded under its span (telemetry.Deferred).
	spans *hosttel.Deferred
}

// deferLicenseSpans gives an MCP request's license check a context in
// which the spans of its work (Redis commands) are noted for later: the
// request's span, their parent's parent, is begun only once the body is
// read.
func (h *Host) deferLicenseSpans(ctx context.Context) (context.Context, *hosttel.Deferred) {
	if !h.tel.enabled || mcpRequestFrom(ctx) == nil {
		return ctx, nil
	}
	d := &hosttel.Deferred{}
	return hosttel.WithDeferred(ctx, d), d
}

// noteLicenseSpans hands the license check's noted spans to its note.
func noteLicenseSpans(ctx context.Context, d *hosttel.Deferred) {
	r := mcpRequestFrom(ctx)
	if r == nil || d == nil {
		return
	}
	r.mu.Lock()
	if r.license != nil {
		r.license.spans = d
	}
	r.mu.Unlock()
}

// callNote is a tool call's end as observeCall saw it.
type callNote struct {
	outcome            string
	items              int
	requests, bytes    int64
	blocked            int64
	thread             string
	durationMs         int64
	withUpstreamCounts bool
	served             string // fresh, shared or cache: where the answer came from ("" for get_result)
}

func mcpRequestFrom(ctx context.Context) *mcpRequest {
	r, _ := ctx.Value(ctxMCPRequest).(*mcpRequest)
	return r
}

// noteLicense records a license check for the request's span
// (licensecheck.go): its verdict, and whether the cache or the backend gave
// it. reason, when set, overrides the result's (a missing key is never
// checked).
func noteLicense(ctx context.Context, start time.Time, res license.Result, backend, reason string) {
	r := mcpRequestFrom(ctx)
	if r == nil {
		return
	}
	if reason == "" {
		reason = res.Reason()
	}
	if reason == "" {
		reason = "valid"
	}
	source := backend
	if res.Cached {
		source = "cache"
	}
	r.mu.Lock()
	r.license = &licenseNote{start: start, end: time.Now(), reason: reason, source: source, grace: res.FromGrace}
	r.mu.Unlock()
}

// noteRefusal records the reason of a refusal (respond.go's refuse).
func noteRefusal(w http.ResponseWriter, reason string) {
	if rw, ok := w.(*mcpResponseWriter); ok {
		rw.req.mu.Lock()
		rw.req.refusal = reason
		rw.req.mu.Unlock()
	}
}

// noteErrorType records the error type of a JSON-RPC error the host
// answered with itself (the body gate's), as the convention asks: its code.
func noteErrorType(w http.ResponseWriter, errType string) {
	if rw, ok := w.(*mcpResponseWriter); ok {
		rw.req.mu.Lock()
		rw.req.errType = errType
		rw.req.mu.Unlock()
	}
}

// mcpResponseWriter is the MCP route's writer: it keeps the status and
// lets refuse name its reason.
type mcpResponseWriter struct {
	statusRecorder
	req *mcpRequest
}

// observeMCP is the MCP route's first step (mcpRoute): it notes the
// request's arrival and returns the writer and context the other steps get;
// endMCP, at the request's end, records the span (or, for a request refused
// before the body was read, a span of its own), the duration metric and the
// request's one log line. tools are the plugin's tools' names.
func (h *Host) observeMCP(w http.ResponseWriter, r *http.Request, plugin string, tools map[string]bool) (*mcpResponseWriter, context.Context) {
	req := &mcpRequest{plugin: plugin, tools: tools, start: time.Now()}
	rw := &mcpResponseWriter{statusRecorder: statusRecorder{ResponseWriter: w}, req: req}
	if sr, ok := w.(*statusRecorder); ok {
		sr.logged = true // this request's line is ours
	}
	return rw, context.WithValue(r.Context(), ctxMCPRequest, req)
}

// startMCPSpan begins the span of r (whose steps' context is ctx) once the
// body gate read its message; it is the step right after gateMessage
// (mcpRoute).
func (h *Host) startMCPSpan(r *http.Request, ctx context.Context) context.Context {
	req := mcpRequestFrom(ctx)
	msg, ok := messageFrom(ctx)
	if req == nil || !ok {
		return ctx
	}
	return h.beginSpan(ctx, r, req, msg)
}

// mcpParams is what the host reads of a request's params: the tool's name,
// the protocol version of initialize and the trace context in _meta.
type mcpParams struct {
	Name            string `json:"name"`
	ProtocolVersion string `json:"protocolVersion"`
	Meta            struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
	} `json:"_meta"`
}

var protocolVersionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// beginSpan starts req's span (at the request's arrival) under its parent
// and records the license check noted before it; the span's context is
// ctx's (r's steps' context) with the span.
func (h *Host) beginSpan(ctx context.Context, r *http.Request, req *mcpRequest, msg *rpcMessage) context.Context {
	// params are read for the tool's name, initialize's version (an
	// attribute) and a traceparent in _meta; most requests have none of
	// these to read.
	var params mcpParams
	if len(msg.Params) > 0 && (msg.Method == "tools/call" || (h.tel.enabled && msg.Method == "initialize") || bytes.Contains(msg.Params, []byte(`"traceparent"`))) {
		_ = json.Unmarshal(msg.Params, &params)
	}
	method := methodLabel(msg.Method)
	tool := ""
	if msg.Method == "tools/call" && req.tools[params.Name] {
		tool = params.Name
	}
	parent := h.parentContext(ctx, r, params)
	name := method
	if tool != "" {
		name += " " + tool
	}
	var opts []trace.SpanStartOption
	if h.tel.enabled { // the no-op tracer would drop them
		opts = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(req.start), trace.WithAttributes(h.spanAttributes(r, req, msg, method, tool, params)...)}
	}
	ctx, span := h.tel.tracer.Start(parent, name, opts...)
	req.mu.Lock()
	req.span, req.spanCtx, req.method, req.tool = span, ctx, method, tool
	if sc := span.SpanContext(); sc.HasTraceID() {
		req.traceID = sc.TraceID().String()
	}
	lic := req.license
	req.mu.Unlock()
	h.recordLicense(ctx, lic)
	return ctx
}

// spanAttributes are the attributes of an MCP request's span, in the
// convention's names.
func (h *Host) spanAttributes(r *http.Request, req *mcpRequest, msg *rpcMessage, method, tool string, params mcpParams) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.McpMethodNameKey.String(method),
		semconv.JSONRPCProtocolVersion("2.0"),
		semconv.NetworkTransportTCP,
		semconv.NetworkProtocolName("http"),
		attribute.String("surfsense.plugin", req.plugin),
	}
	if msg.Method == "tools/call" {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
		if tool != "" {
			attrs = append(attrs, semconv.GenAIToolName(tool))
		}
	}
	if id := requestIDString(msg.ID); id != "" {
		attrs = append(attrs, semconv.JSONRPCRequestID(id))
	}
	pv := r.Header.Get("Mcp-Protocol-Version")
	if msg.Method == "initialize" && params.ProtocolVersion != "" {
		pv = params.ProtocolVersion
	}
	if protocolVersionPattern.MatchString(pv) {
		attrs = append(attrs, semconv.McpProtocolVersion(pv))
	}
	return attrs
}

// parentContext is ctx with the trace context r continues: params._meta's
// traceparent when valid, else the HTTP traceparent header.
func (h *Host) parentContext(ctx context.Context, r *http.Request, params mcpParams) context.Context {
	if params.Meta.Traceparent != "" {
		carrier := propagation.MapCarrier{"traceparent": params.Meta.Traceparent}
		if params.Meta.Tracestate != "" {
			carrier["tracestate"] = params.Meta.Tracestate
		}
		if pctx := h.tel.prop.Extract(ctx, carrier); trace.SpanContextFromContext(pctx).IsValid() {
			return pctx
		}
	}
	return h.tel.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
}

// requestIDString is a JSON-RPC id as the convention records it: a string's
// text or a number's digits, at most 128 characters.
func requestIDString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	if len(s) > 128 {
		s = s[:128]
	}
	return s
}

func (h *Host) recordLicense(ctx context.Context, lic *licenseNote) {
	if lic == nil || !h.tel.enabled {
		return
	}
	lctx, span := h.tel.tracer.Start(ctx, "license check", trace.WithTimestamp(lic.start), trace.WithAttributes(
		attribute.String("surfsense.license.verdict", lic.reason),
		attribute.String("surfsense.license.source", lic.source),
		attribute.Bool("surfsense.license.grace", lic.grace),
	))
	if lic.reason != "valid" {
		span.SetAttributes(semconv.ErrorTypeKey.String(lic.reason))
		span.SetStatus(codes.Error, lic.reason)
	}
	lic.spans.Emit(lctx, h.tel.tracer)
	span.End(trace.WithTimestamp(lic.end))
}

// endMCP ends a request: its span, its duration and its log line.
func (h *Host) endMCP(r *http.Request, req *mcpRequest, status int) {
	end := time.Now()
	req.mu.Lock()
	span, method, tool, refusal, errType, call, lic := req.span, req.method, req.tool, req.refusal, req.errType, req.call, req.license
	req.mu.Unlock()
	if refusal != "" && errType == "" {
		errType = refusal
	}
	if errType == "" && status >= 400 {
		errType = strconv.Itoa(status)
	}
	if span == nil {
		// Refused before the body was read (draining, the license): a span
		// of the route's own, with the license check under it.
		ctx, s := h.tel.tracer.Start(h.parentContext(r.Context(), r, mcpParams{}), "POST /"+req.plugin+"/mcp",
			trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(req.start),
			trace.WithAttributes(attribute.String("surfsense.plugin", req.plugin)))
		h.recordLicense(ctx, lic)
		span = s
		if sc := s.SpanContext(); sc.HasTraceID() {
			req.traceID = sc.TraceID().String()
		}
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if call != nil {
		span.SetAttributes(attribute.String("surfsense.outcome", call.outcome), attribute.Int("surfsense.items", call.items))
		if call.withUpstreamCounts {
			span.SetAttributes(attribute.Int64("surfsense.upstream.requests", call.requests), attribute.Int64("surfsense.upstream.blocked", call.blocked))
		}
	}
	if errType != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	span.End(trace.WithTimestamp(end))

	dur := end.Sub(req.start)
	if method != "" {
		h.metrics.mcp.duration.WithLabelValues(req.plugin, method, tool, errType).Observe(dur.Seconds())
		attrs := []attribute.KeyValue{attribute.String("surfsense.plugin", req.plugin)}
		if tool != "" {
			attrs = append(attrs, semconv.GenAIToolName(tool))
		}
		if errType != "" {
			attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
		}
		h.tel.opDuration.Record(context.WithoutCancel(r.Context()), dur.Seconds(), mcpconv.MethodNameAttr(method), attrs...)
	}
	h.logMCP(r, req, method, tool, errType, status, dur, call)
}

// annotateMCP is the SDK middleware (mcp.go) that gives the request's span
// the method's answer: a JSON-RPC error's code, or a tool result's error.
func (h *Host) annotateMCP(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		noteMCPResult(ctx, res, err)
		return res, err
	}
}

// noteMCPResult records an answer's error type on the request's span and
// log line: a JSON-RPC error's code, or tool_error for a tool's isError.
// The SDK's answers pass here through annotateMCP; the direct calls call it.
func noteMCPResult(ctx context.Context, res mcp.Result, err error) {
	r := mcpRequestFrom(ctx)
	if r == nil {
		return
	}
	errType := ""
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		errType = strconv.FormatInt(we.Code, 10)
	case err != nil:
		errType = strconv.Itoa(jsonrpc.CodeInternalError)
	default:
		if ctr, ok := res.(*mcp.CallToolResult); ok && ctr.IsError {
			errType = "tool_error" // the convention's value for isError
		}
	}
	if errType != "" {
		r.mu.Lock()
		r.errType = errType
		if r.span != nil && we != nil {
			r.span.SetAttributes(semconv.RPCResponseStatusCode(errType))
		}
		r.mu.Unlock()
	}
}

// noteCall hands a tool call's end to the request's log line and span
// (call.go's observeCall). It reports whether the request will log it.
func noteCall(ctx context.Context, n callNote) bool {
	r := mcpRequestFrom(ctx)
	if r == nil {
		return false
	}
	r.mu.Lock()
	r.call = &n
	r.mu.Unlock()
	return true
}

// childSpan starts a span under the one in ctx when tracing is on; end
// takes the error it ended with, if any.
func (h *Host) childSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func(err error, more ...attribute.KeyValue)) {
	if !h.tel.enabled || !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, func(error, ...attribute.KeyValue) {}
	}
	ctx, span := h.tel.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error, more ...attribute.KeyValue) {
		span.SetAttributes(more...)
		if err != nil {
			span.SetAttributes(semconv.ErrorTypeKey.String(errorTypeOf(err)))
			span.SetStatus(codes.Error, "failed")
		}
		span.End()
	}
}

// errorTypeOf is a bounded error.type for an error: never its text, which
// may name a key or a URL.
func errorTypeOf(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "_OTHER"
}

// traceUpstream records one upstream attempt as a client span under the
// span in ctx, after the fact, with the attempt's own timestamps.
func (h *Host) traceUpstream(ctx context.Context, u scrapers.Upstream) {
	if !h.tel.enabled {
		return
	}
	if sc := trace.SpanContextFromContext(ctx); !sc.IsValid() || !sc.IsSampled() {
		return
	}
	method := u.Method
	if method == "" {
		method = http.MethodGet
	}
	attrs := []attribute.KeyValue{
		attribute.String("surfsense.site", u.Site),
		semconv.HTTPRequestMethodKey.String(method),
		semconv.ServerAddress(u.Host),
		semconv.URLPath(redactPath(u.Path)),
		attribute.Int("surfsense.upstream.attempt", u.Attempt),
		attribute.String("surfsense.upstream.outcome", outcomeLabel(u.Outcome)),
		attribute.Int64("http.response.body.size", u.Bytes),
	}
	if u.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(u.Status))
	}
	if u.ProxyIndex >= 0 {
		attrs = append(attrs, attribute.Int("surfsense.upstream.proxy_index", u.ProxyIndex))
	}
	if u.Attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(u.Attempt-1))
	}
	if u.Outcome == scrapers.OutcomeBlocked {
		attrs = append(attrs, attribute.String("surfsense.upstream.block_kind", blockLabel(u.BlockKind)))
	}
	_, span := h.tel.tracer.Start(ctx, method+" "+u.Site, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(u.Began), trace.WithAttributes(attrs...))
	if u.Outcome != scrapers.OutcomeOK {
		span.SetAttributes(semconv.ErrorTypeKey.String(outcomeLabel(u.Outcome)))
		span.SetStatus(codes.Error, outcomeLabel(u.Outcome))
	}
	span.End(trace.WithTimestamp(u.Began.Add(u.Duration)))
}

// routeWords are the first path segments kept in a span: the route words
// of the sites the plugins scrape (search pages, product and job pages,
// APIs). Any other segment may be a person's name or a query, so it is
// never kept: a profile at "/jane.doe" is "/*".
var routeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`search s dp gp product-reviews ip reviews browse maps place sorry url
		watch results shorts youtubei api channel playlist feed comments tag video discover
		jobs viewjob cmp rc r p reel explore user v1 v2 graphql ajax
		robots.txt sitemap.xml favicon.ico`) {
		routeWords[w] = true
	}
}

// redactPath keeps what a path says about the kind of page and nothing a
// caller asked for: its first segment when it is a route word, and "/*" for
// whatever follows ("/dp/B0C1234/ref=x" is "/dp/*", "/@someone" is "/*").
func redactPath(p string) string {
	if p == "" || p == "/" {
		return "/"
	}
	rest := p[1:]
	first, more := rest, false
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		first, more = rest[:i], i < len(rest)-1
	}
	if !routeWords[strings.ToLower(first)] {
		return "/*"
	}
	if more {
		return "/" + first + "/*"
	}
	return "/" + first
}

// rateLimitResult is the rate limit span's answer: allowed,
// too_many_in_flight or over_rate.
func rateLimitResult(r string) attribute.KeyValue {
	return attribute.String("surfsense.rate_limit.result", r)
}
